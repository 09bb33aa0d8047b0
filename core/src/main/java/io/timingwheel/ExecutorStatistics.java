package io.timingwheel;

import java.util.Arrays;

/**
 * A snapshot of a {@link TimingWheelExecutor}'s activity, taken by {@link TimingWheelExecutor#statistics()} without
 * locks: each figure is exact for its own counter but the figures are not taken at one instant, as with the JDK's
 * {@code getTaskCount()}.
 *
 * <p>Lateness is the time between a task's deadline and the start of its run, in a histogram whose buckets double:
 * bucket {@code i} counts runs late by less than {@link #latenessBucketUpperBoundNanos(int)} and at least the previous
 * bucket's bound; the last bucket is unbounded.
 */
public final class ExecutorStatistics {
    private final long pendingTasks;
    private final int runningTasks;
    private final long completedRuns;
    private final long failedRuns;
    private final long cancelledTasks;
    private final long rejectedTasks;
    private final long[] latenessCounts;

    ExecutorStatistics(long pendingTasks, int runningTasks, long completedRuns, long failedRuns,
                       long cancelledTasks, long rejectedTasks, long[] latenessCounts) {
        this.pendingTasks = pendingTasks;
        this.runningTasks = runningTasks;
        this.completedRuns = completedRuns;
        this.failedRuns = failedRuns;
        this.cancelledTasks = cancelledTasks;
        this.rejectedTasks = rejectedTasks;
        this.latenessCounts = latenessCounts;
    }

    /** @return tasks accepted and not started (approximate: tasks on their way to the master are not counted) */
    public long pendingTasks() {
        return pendingTasks;
    }

    /** @return tasks running now */
    public int runningTasks() {
        return runningTasks;
    }

    /** @return runs that have ended, normally or not; each run of a periodic task counts */
    public long completedRuns() {
        return completedRuns;
    }

    /** @return runs that ended with an exception (included in {@link #completedRuns()}) */
    public long failedRuns() {
        return failedRuns;
    }

    /** @return tasks cancelled, by the user or by a shutdown policy */
    public long cancelledTasks() {
        return cancelledTasks;
    }

    /** @return tasks given to the rejection handler */
    public long rejectedTasks() {
        return rejectedTasks;
    }

    /** @return the number of buckets in the lateness histogram */
    public int latenessBuckets() {
        return latenessCounts.length;
    }

    /**
     * @param bucket a bucket index, from 0 to {@link #latenessBuckets()} - 1
     * @return the runs counted in that bucket of the lateness histogram
     */
    public long latenessCount(int bucket) {
        return latenessCounts[bucket];
    }

    /**
     * @param bucket a bucket index, from 0 to {@link #latenessBuckets()} - 1
     * @return the exclusive upper bound of that bucket, in nanoseconds ({@code Long.MAX_VALUE} for the last)
     */
    public long latenessBucketUpperBoundNanos(int bucket) {
        return LatenessHistogram.upperBound(bucket);
    }

    /** @return the number of runs in the histogram */
    public long latenessSamples() {
        long total = 0;
        for (long c : latenessCounts) {
            total += c;
        }
        return total;
    }

    /**
     * @param quantile between 0 and 1, e.g. 0.99
     * @return an upper bound, in nanoseconds, on the lateness of that fraction of runs (the bound of its bucket);
     *     0 if no run was recorded
     * @throws IllegalArgumentException if quantile is not within [0, 1]
     */
    public long latenessPercentileNanos(double quantile) {
        if (!(quantile >= 0 && quantile <= 1)) {
            throw new IllegalArgumentException("quantile must be within [0, 1]: " + quantile);
        }
        long total = latenessSamples();
        if (total == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(quantile * total);
        long seen = 0;
        for (int i = 0; i < latenessCounts.length; i++) {
            seen += latenessCounts[i];
            if (seen >= rank && seen > 0) {
                return LatenessHistogram.upperBound(i);
            }
        }
        return LatenessHistogram.upperBound(latenessCounts.length - 1);
    }

    @Override
    public String toString() {
        return "ExecutorStatistics[pending=" + pendingTasks + ", running=" + runningTasks
                + ", completedRuns=" + completedRuns + ", failedRuns=" + failedRuns
                + ", cancelled=" + cancelledTasks + ", rejected=" + rejectedTasks
                + ", lateness p50<=" + latenessPercentileNanos(0.5) / 1000 + "us"
                + ", p99<=" + latenessPercentileNanos(0.99) / 1000 + "us"
                + ", histogram=" + Arrays.toString(latenessCounts) + "]";
    }
}
