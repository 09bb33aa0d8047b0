package io.timingwheel.jmh;

import java.util.SplittableRandom;

/**
 * One producer's pending tasks, oldest first, and its table of random delays in [1 s, 1 h): the workload of
 * {@link PendingBenchmark} and of the harness's pending-count curve. {@link #replaceOldest} cancels the oldest task and
 * schedules a new one in its place, so the pending count stays constant. Not thread-safe: one per producer thread.
 */
final class TaskRing {

    static final long MIN_DELAY_NANOS = 1_000_000_000L;         // 1 s
    static final long MAX_DELAY_NANOS = 3_600_000_000_000L;     // 1 h

    /** Size of the delay table: a power of two, drawn before any measurement. */
    private static final int DELAYS = 1 << 16;

    private final long[] delays = new long[DELAYS];
    private int nextDelay;
    private Object[] handles = new Object[0];
    private int oldest;

    TaskRing(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < DELAYS; i++) {
            delays[i] = random.nextLong(MIN_DELAY_NANOS, MAX_DELAY_NANOS);
        }
    }

    int size() {
        return handles.length;
    }

    /** Schedules new tasks until the ring holds {@code size}; they are the newest, the order stays oldest first. */
    void growTo(Subject subject, int size) {
        Object[] grown = new Object[size];
        int old = handles.length;
        for (int i = 0; i < old; i++) {
            grown[i] = handles[(oldest + i) % old];
        }
        for (int i = old; i < size; i++) {
            grown[i] = subject.schedule(Subject.NOOP, nextDelay());
        }
        handles = grown;
        oldest = 0;
    }

    private long nextDelay() {
        return delays[nextDelay++ & (DELAYS - 1)];
    }

    /** Cancels the oldest task and schedules a new one with a random delay in its place. */
    void replaceOldest(Subject subject) {
        int i = oldest;
        subject.cancel(handles[i]);
        handles[i] = subject.schedule(Subject.NOOP, nextDelay());
        oldest = i + 1 == handles.length ? 0 : i + 1;
    }
}
