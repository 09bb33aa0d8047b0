package io.timingwheel;

import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The tasks that come to the worker pool without its lock: straight from their publishers (due at once or soon, or a
 * periodic task re-armed), in a lock-free queue; and how a holder of the pool's lock takes them in. Whoever holds the
 * lock next moves them into the queue ({@link #moveIn}), in the order they came, and wakes waiting workers for them;
 * a worker about to wait makes sure first that none came that it has not seen ({@link #beforeWait}). Any thread may
 * offer; only a holder of the pool's lock moves in.
 */
final class Arrivals {
    /** How long a worker lets go of the lock when an arrival is still being written (see {@link #beforeWait}). */
    private static final long GAP_WAIT_NANOS = 50_000;

    /** How many times a worker looks again for an arrival still being written before it lets go of the lock. */
    private static final int GAP_SPINS = 256;

    private final FetchAddQueue<ScheduledTask<?>> straight = new FetchAddQueue<>();

    private final ReentrantLock lock;
    private final DueQueue queue;
    private final WorkerWaits waits;
    private final DispatcherHost host;

    /** Whether the pool is closed (its termination decision): what arrives then is cancelled, not moved in. */
    private final BooleanSupplier poolClosed;

    /** What {@link #moveInto} moved: how many tasks, and how many of them are due. */
    record Moved(int count, int dueNow) {
        static final Moved NOTHING = new Moved(0, 0);
    }

    /** @param lock the pool's lock, which guards {@code queue} and {@code waits} */
    Arrivals(ReentrantLock lock, DueQueue queue, WorkerWaits waits, DispatcherHost host, BooleanSupplier poolClosed) {
        this.lock = lock;
        this.queue = queue;
        this.waits = waits;
        this.host = host;
        this.poolClosed = poolClosed;
    }

    /** Offers a task that came straight (any thread): one atomic add, sequentially consistent. */
    void offer(ScheduledTask<?> task) {
        straight.offer(task);
    }

    /** @return whether anything waits here, a claim still being written included (see {@link #beforeWait}) */
    boolean hasAny() {
        return !straight.isEmpty();
    }

    /**
     * Moves what arrived into the queue and wakes waiting workers for them; the lock is held. In a closed pool it
     * cancels them instead: only tasks their publishers refused can arrive there (see WorkerPool.close). Stops at a
     * claim whose task is still being written (see {@link #beforeWait}).
     *
     * @return how many tasks it moved
     */
    int moveIn() {
        if (!hasAny()) {
            return 0;
        }
        long now = host.now();
        if (poolClosed.getAsBoolean()) {
            return cancelAll();
        }
        long firstBefore = queue.peekDeadline();
        Moved moved = moveInto(now);
        waits.wakeFor(moved.dueNow(), queue.peekDeadline() < firstBefore);
        return moved.count();
    }

    /** Moves everything here into the queue, in order; the lock is held. Stops at a claim still being written. */
    private Moved moveInto(long now) {
        int count = 0;
        int dueNow = 0;
        for (ScheduledTask<?> task; (task = straight.poll()) != null; ) {
            queue.add(task, false);
            count++;
            if (task.deadline <= now) {
                dueNow++;
            }
        }
        return count == 0 ? Moved.NOTHING : new Moved(count, dueNow);
    }

    private int cancelAll() {
        int count = 0;
        for (ScheduledTask<?> task; (task = straight.poll()) != null; count++) {
            task.cancelIfPending();
        }
        return count;
    }

    /**
     * Counts the worker as waiting, then looks at the arrivals once more; the lock is held. A publisher claims its
     * place in the arrivals (an atomic add), then reads the count; the worker raises the count, then reads the claims
     * (all sequentially consistent): so either the worker sees the claim, or the publisher sees the count and takes
     * the lock to wake a worker. A claim whose task is still being written cannot be moved in yet: the worker spins a
     * moment (the publisher is between its claim and its write), and if the publisher was preempted there, lets go of
     * the lock for {@value #GAP_WAIT_NANOS} ns, not counted as waiting, and looks again.
     *
     * @return true if the worker may wait: it is counted as waiting, and the wait it enters lowers the count as it
     *     ends; false if tasks arrived: the worker looks at the queue once more
     */
    boolean beforeWait() {
        if (registerWaiting()) {
            return true;
        }
        int moved = moveIn();
        for (int spins = GAP_SPINS; moved == 0 && spins > 0; spins--) {
            Thread.onSpinWait(); // the publisher is between its claim and its write, a few instructions
            moved = moveIn();
        }
        if (moved == 0) {
            waits.pauseUncounted(GAP_WAIT_NANOS);
        }
        return false;
    }

    /**
     * The race step of {@link #beforeWait}: raises the count of waiting workers, then reads the arrivals' claims; the
     * lock is held. @return true if there were none (the worker may wait; the count stays raised), false if there were
     * (the count is lowered again)
     */
    boolean registerWaiting() {
        waits.register();
        if (!hasAny()) {
            return true;
        }
        waits.leave();
        return false;
    }

    /**
     * Moves in every task whose publisher has claimed its place, waiting for those still being written; the lock is
     * held, and let go of while it waits. For shutdownNow's drain: a publisher that claimed its place and read the
     * executor running before the stop counts its task accepted, and a claim still being written ahead of it stops
     * {@link #moveIn} there; a drain that looked once left such a task queued behind the gap, neither returned nor
     * run, and the executor never terminated. It ends: publishers check the run state before they claim, so once the
     * stop is seen no new claims come, and each claim is written a few instructions after it is made (later if its
     * publisher was preempted there: the lock is let go of meanwhile).
     */
    void moveInEveryClaim() {
        moveIn();
        for (int spins = 0; hasAny(); spins++) {
            if (spins < GAP_SPINS) {
                Thread.onSpinWait(); // the publisher is between its claim and its write
            } else {
                lock.unlock();
                try {
                    LockSupport.parkNanos(this, GAP_WAIT_NANOS); // it was preempted there
                } finally {
                    lock.lock();
                }
            }
            moveIn();
        }
    }
}
