package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Counts run lateness in buckets that double from 1 microsecond up (bucket 0: under 1 us; bucket 27: 67 s and
 * more). Single writer: each worker owns one, so recording is a plain increment with no contention; readers sum the
 * workers' histograms with opaque reads. {@link #recordConcurrently} serves writers that share one (the external
 * executor's threads).
 */
final class LatenessHistogram {
    static final int BUCKETS = 28;
    private static final long FIRST_BOUND_NANOS = 1_000; // 1 us
    private static final VarHandle COUNTS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] counts = new long[BUCKETS];

    /** @return the exclusive upper bound of a bucket in nanoseconds; Long.MAX_VALUE for the last */
    static long upperBound(int bucket) {
        return bucket >= BUCKETS - 1 ? Long.MAX_VALUE : FIRST_BOUND_NANOS << bucket;
    }

    static int bucketOf(long latenessNanos) {
        if (latenessNanos < FIRST_BOUND_NANOS) {
            return 0;
        }
        int bucket = 64 - Long.numberOfLeadingZeros(latenessNanos / FIRST_BOUND_NANOS);
        return Math.min(bucket, BUCKETS - 1);
    }

    /** Records one run; only the owning thread may call this. */
    void record(long latenessNanos) {
        int bucket = bucketOf(latenessNanos);
        COUNTS.setOpaque(counts, bucket, (long) COUNTS.getOpaque(counts, bucket) + 1);
    }

    /** Records one run; any thread may call this. */
    void recordConcurrently(long latenessNanos) {
        COUNTS.getAndAdd(counts, bucketOf(latenessNanos), 1L);
    }

    /** Adds this histogram's counts into {@code sums}. */
    void addTo(long[] sums) {
        for (int i = 0; i < BUCKETS; i++) {
            sums[i] += (long) COUNTS.getOpaque(counts, i);
        }
    }
}
