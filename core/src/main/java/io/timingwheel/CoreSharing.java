package io.timingwheel;

import java.util.concurrent.locks.LockSupport;

/**
 * How the executor's other threads weigh its workers' need of a core, on a machine with as few cores as busy threads,
 * where the kernel shares the cores out fairly and a worker with due tasks gets no more of one than a publisher
 * scheduling at full speed, the master draining a burst, or a compiler thread. The JDK's publishers give their cores
 * away there without meaning to, waiting for the queue's lock that its worker holds; these are the looks that stand in
 * for that: whether a worker is due to run (the master then puts its turn off), whether the leader is overdue (the
 * master and the publishers then yield), whether the workers are held in the pool's own code (a publisher then pauses).
 * Each reads without the lock. Measured: docs/design.md, the ablation ("publisher yield off", "stall pause off",
 * "master give-way off") and the cold start and burst without them.
 */
final class CoreSharing {
    /**
     * How long past the end of its wait for a deadline a leader that has not come back counts as kept from its core:
     * above the usual lateness of a timed wait's end (the kernel's timer slack, 50 µs, and the wake-up itself).
     */
    private static final long OVERDUE_AFTER_NANOS = 100_000;

    /**
     * How often, at most, publishers yield to an overdue leader: a leader held up by a thread no publisher can move (a
     * compiler thread, another process) costs a publisher scheduling at full speed a few yields, not one per task.
     */
    private static final long PUBLISHER_YIELD_EVERY_NANOS = 50_000;

    private final WorkerWaits waits;
    private final WorkerRoster roster;
    private final DispatcherHost host;

    /** When a publisher last yielded to an overdue leader; long enough before any reading of the clock at first. */
    private volatile long publisherYieldedAt = Long.MIN_VALUE / 2;

    CoreSharing(WorkerWaits waits, WorkerRoster roster, DispatcherHost host) {
        this.waits = waits;
        this.roster = roster;
        this.host = host;
    }

    /**
     * A publisher's look, after it published a task:
     * <ul>
     *   <li>if the workers are held off their cores in the pool's own code (no run started between two looks, a moment
     *       apart, while no worker waits and one is not in a run: see {@link StallWatch}), the publisher pauses a
     *       little, so that a core frees for them;</li>
     *   <li>if the leader is overdue ({@link #leaderOverdue}: the kernel woke it on the publisher's core and lets the
     *       publisher finish its slice first, while the other core may idle), the publisher yields, at most once per
     *       {@link #PUBLISHER_YIELD_EVERY_NANOS} among all publishers.</li>
     * </ul>
     * A worker busy in a task, however long, is never a reason. {@code now} is the publisher's own reading of the
     * clock, the one its task's deadline was computed from.
     *
     * @return whether the publisher yielded or paused
     */
    boolean publisherGivesWay(long now) {
        StallWatch watch = roster.stallWatch;
        if (watch.lookDue(now) && !waits.anyWaiting() && watch.held(now)) {
            LockSupport.parkNanos(this, StallWatch.PAUSE_NANOS);
            return true;
        }
        if (leaderOverdue(now) && now - publisherYieldedAt > PUBLISHER_YIELD_EVERY_NANOS) {
            publisherYieldedAt = now;
            Thread.yield();
            return true;
        }
        return false;
    }

    /**
     * @return whether the leader's wait for a deadline ended more than {@link #OVERDUE_AFTER_NANOS} before {@code now}
     *     and it has not come back: a thread on its core keeps it from the due tasks
     */
    boolean leaderOverdue(long now) {
        long wakeUp = waits.leaderWakeUp();
        return wakeUp != TimingWheel.NONE && now - wakeUp > OVERDUE_AFTER_NANOS;
    }

    /**
     * @return whether a worker is due to run now: workers run and none of them waits (each is in a run or on its way
     *     to one), or the leader's wait for a deadline has ended (it is woken, or about to be); the clock is read only
     *     while a worker leads a wait
     */
    boolean workerDue() {
        if (roster.workerCount() == 0) {
            return false;
        }
        if (!waits.anyWaiting()) {
            return true;
        }
        long wakeUp = waits.leaderWakeUp();
        return wakeUp != TimingWheel.NONE && wakeUp <= host.now();
    }
}
