package io.timingwheel;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * How the pool's workers wait, and who wakes them: the JDK's leader-follower discipline. While the first task is not
 * due, one worker, the leader, waits with a timeout until its deadline; the others wait without one until they are
 * signalled: by a worker that takes a task and leaves work behind with no leader, by a publisher, or by the master.
 * So a timer wakes one thread when it falls due. All but the three words publishers read are guarded by the pool's
 * lock.
 *
 * <p>A publisher takes the pool's lock only to wake a worker ({@link #someoneToWake}, {@link #wakesFor}): when one
 * waits, no wake-up is already on its way (a signalled worker moves in all that arrived before it got the lock), and
 * its task is due now or before the leader's wait ends (a later one, the leader moves in as it wakes). A task due now
 * wakes a worker even where the leader's wait ends before it: such a wait may be over already, its leader not run yet
 * (the kernel lets a timed wait overrun by its timer slack, 50 µs, and more on a busy core), and a signal wakes it at
 * once.
 */
final class WorkerWaits {
    /**
     * How far ahead of the master's planned turn a leader about to wait lets the master take it now (see
     * {@link MasterLoop#turnEarlyIfPlannedBy}): longer than a worker's cycle between two such waits when timers are
     * dense (80 to 130 µs on the development machine), so that nearly every turn the master plans then starts as a
     * worker parks, not as it wakes; short against the nine milliseconds by which the master hands over ahead.
     */
    static final long EARLY_TURN_REACH_NANOS = 250_000;

    private final Condition workAvailable;

    /** Workers waiting on {@code workAvailable}, for work, a deadline or the gate; read by publishers without the lock. */
    private volatile int waiting;

    /**
     * Set when a worker is signalled, cleared by a worker that holds the lock before it looks at the arrivals: while
     * set, a worker is on its way to the lock and will move in what arrives, so a publisher need not take the lock.
     */
    private volatile boolean wakeUpPending;

    /**
     * When the leader's wait ends ({@link TimingWheel#NONE} while no worker leads one): written by the leader under the
     * lock as it begins and ends the wait, read by publishers without it.
     */
    private volatile long leaderWakeUp = TimingWheel.NONE;

    /** The worker that waits, with a timeout, for the first task's deadline; null if none does. */
    private Worker leader;

    WorkerWaits(ReentrantLock lock) {
        this.workAvailable = lock.newCondition();
    }

    // -- publishers, without the lock -------------------------------------------------------------------------------

    /** @return whether any worker waits (any thread: a hint) */
    boolean anyWaiting() {
        return waiting > 0;
    }

    /** @return whether a worker waits and none has been signalled since: a publisher may have to wake one */
    boolean someoneToWake() {
        return waiting > 0 && !wakeUpPending;
    }

    /**
     * @return whether a waiting worker needs waking for a task whose deadline is {@code deadline}, at {@code now}: it
     *     is due before the leader's wait ends (or no worker leads one), or now. Read after {@link #someoneToWake}: a
     *     leader raises the count, looks at the arrivals, then says when it wakes
     */
    boolean wakesFor(long deadline, long now) {
        return deadline < leaderWakeUp || deadline <= now;
    }

    // -- workers and wakers, under the lock -------------------------------------------------------------------------

    /** Counts a worker as waiting; the caller then looks at the arrivals once more (see Arrivals.beforeWait). */
    void register() {
        waiting++;
    }

    /** A worker counted as waiting looks again instead of waiting, or leaves. */
    void leave() {
        waiting--;
    }

    /** A worker holding the lock is about to look at the arrivals: any worker signalled before will find them moved. */
    void clearWakeUpPending() {
        if (wakeUpPending) {
            wakeUpPending = false;
        }
    }

    /** @return whether a signal is on its way (for the tests) */
    boolean wakeUpPending() {
        return wakeUpPending;
    }

    /** @return when the leader's wait ends, {@link TimingWheel#NONE} while no worker leads one (for the tests) */
    long leaderWakeUp() {
        return leaderWakeUp;
    }

    boolean hasLeader() {
        return leader != null;
    }

    /** @return whether workers wait and none leads the wait for the first deadline */
    boolean hasWaitersWithoutLeader() {
        return leader == null && waiting > 0;
    }

    /**
     * Makes the worker, counted as waiting and past its look at the arrivals, the leader of the wait for
     * {@code deadline}. A publisher that sees the count but not yet this wake-up reads {@link TimingWheel#NONE} and
     * wakes a worker, as without a leader; one that sees it wakes nobody for a task due no sooner, which the leader
     * moves in as it wakes.
     */
    void lead(Worker worker, long deadline) {
        leader = worker;
        leaderWakeUp = deadline;
    }

    private void resign() {
        leader = null;
        leaderWakeUp = TimingWheel.NONE;
    }

    /**
     * Leads the wait for the first task's {@code deadline}, as read at {@code now}; the worker is counted as waiting.
     * The master may take its next turn now, if it planned one soon ({@link #EARLY_TURN_REACH_NANOS}): while this
     * worker sleeps.
     */
    void leadUntil(Worker worker, long deadline, long now, DispatcherHost host) {
        lead(worker, deadline);
        host.letMasterTurnBy(now + EARLY_TURN_REACH_NANOS);
        try {
            awaitQuietly(deadline - now);
        } finally {
            waiting--;
            if (leader == worker) {
                resign();
            }
        }
    }

    /**
     * Waits, counted as waiting, until signalled. The master may take a turn it planned soon, or put off while every
     * worker was busy, now ({@link MasterLoop#turnEarlyIfPlannedBy}): while this worker sleeps.
     */
    void awaitSignal(DispatcherHost host) {
        host.letMasterTurnBy(host.now() + EARLY_TURN_REACH_NANOS);
        try {
            workAvailable.awaitUninterruptibly();
        } finally {
            waiting--;
        }
    }

    /** The same, until signalled or {@code nanos} have passed. */
    void awaitSignal(DispatcherHost host, long nanos) {
        host.letMasterTurnBy(host.now() + EARLY_TURN_REACH_NANOS);
        try {
            awaitQuietly(nanos);
        } finally {
            waiting--;
        }
    }

    /** Lets go of the lock for {@code nanos}, not counted as waiting: no publisher signals this worker. */
    void pauseUncounted(long nanos) {
        awaitQuietly(nanos);
    }

    /**
     * Wakes a waiting worker for each of {@code dueNow} new tasks (at most every waiting one), and, if the first
     * deadline moved earlier, one to lead the wait for it (the leader waits for the old one).
     */
    void wakeFor(int dueNow, boolean newHead) {
        int signals = Math.min(dueNow, waiting);
        if (newHead) {
            resign();
            signals = Math.max(signals, Math.min(1, waiting));
        }
        if (signals > 0) {
            wakeUpPending = true;
        }
        for (int i = signals; i > 0; i--) {
            workAvailable.signal();
        }
    }

    /** Wakes one waiting worker: due work is left, and no one leads the wait for it. */
    void signalOne() {
        workAvailable.signal();
    }

    /** Wakes every waiting worker to look again. */
    void wakeAll() {
        workAvailable.signalAll();
    }

    /** An interrupt ends the wait: shutdownNow interrupts every worker, and a waiting one just looks again. */
    private void awaitQuietly(long nanos) {
        try {
            workAvailable.awaitNanos(nanos);
        } catch (InterruptedException e) {
            // the worker looks again
        }
    }
}
