package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Counts run lateness in buckets that double from 1 microsecond up (bucket 0: under 1 us; bucket 27: 67 s and
 * more). One made {@link #forOneThread()} is written by its owner alone (each of the executor's own workers has one),
 * so recording is a plain increment with no contention; one made {@link #shared()} takes any number of writers (the
 * threads of an external executor) and records with an atomic add, so no count is lost. Readers sum the counts with
 * opaque reads.
 */
final class LatenessHistogram {
    static final int BUCKETS = 28;
    private static final long FIRST_BOUND_NANOS = 1_000; // 1 us
    private static final VarHandle COUNTS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] counts = new long[BUCKETS];
    private final boolean shared;

    private LatenessHistogram(boolean shared) {
        this.shared = shared;
    }

    /** @return a histogram that only the thread that records into it first may ever record into */
    static LatenessHistogram forOneThread() {
        return new LatenessHistogram(false);
    }

    /** @return a histogram that any thread may record into */
    static LatenessHistogram shared() {
        return new LatenessHistogram(true);
    }

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

    /** Records one run, as the histogram's kind allows: by its one writer, or by any thread. */
    void record(long latenessNanos) {
        int bucket = bucketOf(latenessNanos);
        if (shared) {
            COUNTS.getAndAdd(counts, bucket, 1L);
        } else {
            COUNTS.setOpaque(counts, bucket, (long) COUNTS.getOpaque(counts, bucket) + 1);
        }
    }

    /** Adds this histogram's counts into {@code sums}. */
    void addTo(long[] sums) {
        for (int i = 0; i < BUCKETS; i++) {
            sums[i] += (long) COUNTS.getOpaque(counts, i);
        }
    }
}
