package io.timingwheel;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The optional bound on pending tasks ({@code Builder.maxPendingTasks}): counts the tasks in state {@code NEW}. A
 * place is reserved before a task is published and released when the task leaves {@code NEW} (claimed, cancelled,
 * returned, taken back).
 */
final class PendingLimit {
    private final long max;
    private final AtomicLong count = new AtomicLong();

    PendingLimit(long max) {
        this.max = max;
    }

    long max() {
        return max;
    }

    /** Takes a place under the limit; a CAS loop rather than add-then-undo, so the count never shows more. */
    boolean reserve() {
        for (long n; (n = count.get()) < max; ) {
            if (count.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Takes a place whatever the limit: for a periodic task's next run, which is no new task, before it becomes NEW
     * again, so that a cancel of that run has a place to release.
     */
    void reserveAnyway() {
        count.incrementAndGet();
    }

    void release() {
        count.decrementAndGet();
    }

    /** @return the pending tasks, exact at the moment of the call */
    long count() {
        return Math.max(0, count.get());
    }
}
