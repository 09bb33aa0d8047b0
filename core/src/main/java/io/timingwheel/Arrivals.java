package io.timingwheel;

/**
 * The tasks that come to the worker pool without its lock: straight from their publishers (due at once or soon, or a
 * periodic task re-armed), in a lock-free queue. Whoever holds the pool's lock next moves them into the queue
 * ({@link #moveInto}), in the order they came. Any thread may offer; only a holder of the pool's lock moves in.
 */
final class Arrivals {
    private final FetchAddQueue<ScheduledTask<?>> straight = new FetchAddQueue<>();

    /** What {@link #moveInto} moved: how many tasks, and how many of them are due. */
    record Moved(int count, int dueNow) {
        static final Moved NOTHING = new Moved(0, 0);
    }

    /** Offers a task that came straight (any thread): one atomic add, sequentially consistent. */
    void offer(ScheduledTask<?> task) {
        straight.offer(task);
    }

    /** @return whether anything waits here, a claim still being written included (see WorkerPool.enterWait) */
    boolean hasAny() {
        return !straight.isEmpty();
    }

    /**
     * Moves everything here into {@code due}, in order; the pool's lock is held. Stops at a claim whose task is still
     * being written (see WorkerPool.enterWait).
     */
    Moved moveInto(DueQueue due, long now) {
        int count = 0;
        int dueNow = 0;
        for (ScheduledTask<?> task; (task = straight.poll()) != null; ) {
            due.add(task, false);
            count++;
            if (task.deadline <= now) {
                dueNow++;
            }
        }
        return count == 0 ? Moved.NOTHING : new Moved(count, dueNow);
    }

    /**
     * Cancels everything here that is still pending, in a closed pool (the lock is held): only tasks their publishers
     * refused can arrive there (see WorkerPool.close).
     */
    int cancelAll() {
        int count = 0;
        for (ScheduledTask<?> task; (task = straight.poll()) != null; count++) {
            task.cancelIfPending();
        }
        return count;
    }
}
