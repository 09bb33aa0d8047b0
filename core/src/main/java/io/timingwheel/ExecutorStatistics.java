package io.timingwheel;

import java.util.Arrays;
import java.util.Objects;

/**
 * A snapshot of a {@link TimingWheelExecutor}'s activity, taken by {@link TimingWheelExecutor#statistics()}. The
 * figures of the workers (running, completed, failed, lateness) are read together: under the worker pool's lock, or,
 * when tasks run on a given executor, from its counters one after another, without a lock;
 * the pending count is exact at some moment during the call; the cancelled and rejected counts are sums of striped
 * counters. So each figure is exact for itself, but they are not all taken at one instant, as with the JDK's
 * {@code getTaskCount()}.
 *
 * <p>An immutable value, compared by its figures. Not a record: a record's array component would be shared with
 * every caller and compared by identity, so this class copies the histogram in and out and compares its counts.
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

    /**
     * Creates a snapshot; the histogram is copied.
     *
     * @param pendingTasks the tasks accepted and not started
     * @param runningTasks the tasks running now
     * @param completedRuns the runs that have ended
     * @param failedRuns the runs that ended with an exception
     * @param cancelledTasks the tasks cancelled
     * @param rejectedTasks the tasks given to the rejection handler
     * @param latenessCounts the runs per bucket of the lateness histogram
     * @throws IllegalArgumentException if the histogram does not have {@link #latenessBuckets()} buckets
     */
    public ExecutorStatistics(long pendingTasks, int runningTasks, long completedRuns, long failedRuns,
                              long cancelledTasks, long rejectedTasks, long[] latenessCounts) {
        if (latenessCounts.length != LatenessHistogram.BUCKETS) {
            throw new IllegalArgumentException("the lateness histogram has " + LatenessHistogram.BUCKETS
                    + " buckets, not " + latenessCounts.length);
        }
        this.pendingTasks = pendingTasks;
        this.runningTasks = runningTasks;
        this.completedRuns = completedRuns;
        this.failedRuns = failedRuns;
        this.cancelledTasks = cancelledTasks;
        this.rejectedTasks = rejectedTasks;
        this.latenessCounts = latenessCounts.clone();
    }

    /**
     * Returns the tasks accepted and not started.
     *
     * @return the pending tasks
     */
    public long pendingTasks() {
        return pendingTasks;
    }

    /**
     * Returns the tasks running when the snapshot was taken.
     *
     * @return the running tasks
     */
    public int runningTasks() {
        return runningTasks;
    }

    /**
     * Returns the runs that have ended, normally or not; each run of a periodic task counts.
     *
     * @return the completed runs
     */
    public long completedRuns() {
        return completedRuns;
    }

    /**
     * Returns the runs that ended with an exception (included in {@link #completedRuns()}).
     *
     * @return the failed runs
     */
    public long failedRuns() {
        return failedRuns;
    }

    /**
     * Returns the tasks cancelled, by the user or by a shutdown policy.
     *
     * @return the cancelled tasks
     */
    public long cancelledTasks() {
        return cancelledTasks;
    }

    /**
     * Returns the tasks given to the rejection handler.
     *
     * @return the rejected tasks
     */
    public long rejectedTasks() {
        return rejectedTasks;
    }

    /**
     * Returns the runs per bucket of the lateness histogram.
     *
     * @return a copy of the counts, one per bucket
     */
    public long[] latenessCounts() {
        return latenessCounts.clone();
    }

    /**
     * Returns the number of buckets in the lateness histogram.
     *
     * @return the number of buckets
     */
    public int latenessBuckets() {
        return latenessCounts.length;
    }

    /**
     * Returns how many runs fell into one bucket of the lateness histogram.
     *
     * @param bucket a bucket index, from 0 to {@link #latenessBuckets()} - 1
     * @return the runs counted in that bucket
     */
    public long latenessCount(int bucket) {
        return latenessCounts[bucket];
    }

    /**
     * Returns the exclusive upper bound of one bucket of the lateness histogram.
     *
     * @param bucket a bucket index, from 0 to {@link #latenessBuckets()} - 1
     * @return the bound in nanoseconds ({@code Long.MAX_VALUE} for the last bucket)
     */
    public long latenessBucketUpperBoundNanos(int bucket) {
        return LatenessHistogram.upperBound(bucket);
    }

    /**
     * Returns the number of runs in the lateness histogram.
     *
     * @return the runs recorded
     */
    public long latenessSamples() {
        long total = 0;
        for (long c : latenessCounts) {
            total += c;
        }
        return total;
    }

    /**
     * Returns a bound on the lateness of a given fraction of the runs, from the histogram.
     *
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

    /**
     * Compares the figures, the histogram's counts included.
     *
     * @param other another object
     * @return whether it is a snapshot with the same figures
     */
    @Override
    public boolean equals(Object other) {
        return other instanceof ExecutorStatistics s && pendingTasks == s.pendingTasks
                && runningTasks == s.runningTasks && completedRuns == s.completedRuns && failedRuns == s.failedRuns
                && cancelledTasks == s.cancelledTasks && rejectedTasks == s.rejectedTasks
                && Arrays.equals(latenessCounts, s.latenessCounts);
    }

    /**
     * Hashes the figures, the histogram's counts included.
     *
     * @return the hash code
     */
    @Override
    public int hashCode() {
        return Objects.hash(pendingTasks, runningTasks, completedRuns, failedRuns, cancelledTasks, rejectedTasks)
                * 31 + Arrays.hashCode(latenessCounts);
    }

    /**
     * Returns the figures on one line, with the lateness median and 99th percentile.
     *
     * @return the figures, for logs
     */
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
