package io.timingwheel;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The executor's own worker threads and the queue of tasks they take from, in deadline order ({@link DueQueue}).
 *
 * <p>Its parts, each with one job: the {@link Arrivals} (tasks that come without the pool's lock, straight from their
 * publishers), the {@link DueTasks} (the {@link DueQueue}, in deadline order, and each {@link Worker}'s {@link Hand}:
 * how a worker takes a task, or a batch of due ones), the {@link WorkerWaits} (the waiting discipline: who waits for
 * the first deadline, who is woken and when), the {@link WorkerRoster} (the threads and the JDK's counts), the
 * {@link CoreSharing} (the looks of publishers and the master at whether a worker needs a core) and the
 * {@link VirtualSteps} (a virtual clock's steps, taken by the workers). One lock, this class's, guards the queue, the
 * hands and the waits; a worker takes its next task (or a batch of due ones, into its hand) under one acquisition.
 *
 * <p><b>Ahead of time.</b> The master hands over the tasks that fall due within {@link #HAND_OVER_AHEAD_NANOS}, and a
 * task due within {@link #STRAIGHT_REACH_NANOS} comes here straight from its publisher (or from its last run). A
 * worker waits for the first task's deadline itself, as the JDK's workers wait for the head of their heap: one worker,
 * the leader, waits with a timeout until the first deadline, the others without one until they are signalled. So a
 * timer reaches a worker that is already waiting for it, and wakes one thread when it falls due, not two (the master,
 * then a worker); the master wakes once per hand-over, a little ahead of the deadlines it covers.
 *
 * <p><b>Order.</b> A worker takes the first task of the queue once it is due, and only once the order gate is open
 * for it ({@link OrderGate}): every task the master holds that is due before it has been handed over. A task due at
 * once, or a periodic task re-armed, comes here straight, and must not pass a timer the master has not handed over
 * yet. The master opens the gate once the batch it hands over is queued here, so a worker woken for the batch finds
 * it open; a worker that finds it shut waits until the master signals. A free worker takes from another's hand before
 * it takes from the queue, so tasks are taken in deadline order across workers; with one worker they run in that
 * order, as the JDK's heap runs them.
 *
 * <p><b>Threads</b> come and go as in {@link java.util.concurrent.ThreadPoolExecutor}: a worker starts per dispatch
 * until the core size is reached (at least one, even for a core size of 0); a worker beyond the core size, or any with
 * {@code allowCoreThreadTimeOut}, retires after the keep-alive time without work, but the last one stays while timers
 * are pending, as the JDK's does. A worker whose thread dies (a hook threw) is replaced; if the thread factory fails,
 * the next dispatch tries again and tasks wait, never lost.
 *
 * <p>A worker claims a task when it takes it, under the lock (a task in a hand, as it starts it); {@code shutdownNow}
 * drains under the lock too, hands included, so every task is either started or returned, never both and never
 * neither.
 */
final class WorkerPool extends Dispatcher {
    /**
     * How far ahead of their deadlines the master hands tasks to the workers: ten milliseconds. The master wakes when
     * the first deadline it holds is nine of them away ({@link MasterLoop}), so a hand-over covers about a
     * millisecond of timers, and a master that wakes up to nine milliseconds late (on two busy cores a thread that is
     * due to run can wait out another's time slice, a few milliseconds) still hands them over in time. Measured:
     * docs/design.md, the ablation's "hand-over ahead 0" (the heartbeat, the cold start, the burst's later bands).
     */
    static final long HAND_OVER_AHEAD_NANOS = 10_000_000;

    /**
     * How far ahead of its deadline a task comes here straight from its publisher, past the master: fifty
     * milliseconds. A timer due that soon never waits behind a backlog in the master's inbox, nor for the master to
     * wake, and the master, which announces this far ahead (see {@link OrderGate}), may fall that far behind a burst of
     * schedules, or a cold start, before it holds a worker back. Measured: docs/design.md, the ablation's "straight
     * reach 0" (most lateness rows worse, and firing).
     */
    static final long STRAIGHT_REACH_NANOS = 50_000_000;

    /** Tasks of a hand-over queued under one hold of the lock: workers get the lock between chunks. */
    private static final int HAND_OVER_CHUNK = 256;

    private final ReentrantLock lock = new ReentrantLock();
    private final WorkerWaits waits = new WorkerWaits(lock);
    private final Arrivals arrivals;
    private final WorkerRoster roster;
    private final DueTasks due;

    /** The looks of publishers and the master at whether a worker needs a core. */
    final CoreSharing coreSharing;

    /** The queue of {@link #due}, which hand-overs and arrivals go to. */
    private final DueQueue queue;

    /** The worker side of a virtual clock's stepped advance. */
    private final VirtualSteps virtualSteps;

    /** Set by the termination decision: nothing is taken or started any more, workers leave. Read without the lock. */
    private volatile boolean closed;

    private final TaskRunner runner;
    private final OrderGate gate;
    private final PoolSettings settings;

    WorkerPool(String executorName, DispatcherHost host, TaskRunner runner, OrderGate gate, PoolSettings settings) {
        super(host);
        this.runner = runner;
        this.gate = gate;
        this.settings = settings;
        this.roster = new WorkerRoster(this, lock, settings, executorName);
        this.due = new DueTasks(host, runner, roster);
        this.queue = due.queue;
        this.coreSharing = new CoreSharing(waits, roster, host);
        this.arrivals = new Arrivals(lock, queue, waits, host, new BooleanSupplier() { // not a lambda: see Lifecycle
            @Override
            public boolean getAsBoolean() {
                return closed;
            }
        });
        this.virtualSteps = new VirtualSteps(this, lock, roster, due, host);
    }

    /** Has the gate wake the workers that wait for it when the master opens it; once, before the master starts. */
    void listenToGate() {
        gate.wakeWaitersWith(new Runnable() { // not a lambda: see Lifecycle's NO_MASTER
            @Override
            public void run() {
                wakeAll();
            }
        });
    }

    // -- hand-offs --------------------------------------------------------------------------------------------------

    /**
     * Puts the task in the arrivals without the lock; the next holder of the lock moves it into the queue. The lock
     * is taken only to wake a waiting worker, once per wake-up, and not for a task due later than the leader's wait
     * ends (see {@link WorkerWaits}).
     */
    @Override
    boolean dispatch(ScheduledTask<?> task) {
        if (closed) {
            return false;
        }
        // its claim, an atomic add, comes before the reads below: see Arrivals.beforeWait and close
        arrivals.offer(task);
        if (closed) {
            // The pool closed as the task arrived, and close() may not have seen the claim: the task is refused, unless
            // close() saw it, opened the pool again and a worker took it first.
            return !task.markRejected();
        }
        if (waits.someoneToWake() && waits.wakesFor(task.deadline, host.now())) {
            lock.lock();
            try {
                arrivals.moveIn(); // wakes workers for what it moved in
            } finally {
                lock.unlock();
            }
        }
        prestart();
        return true;
    }

    /**
     * Takes the master's hand-over, queued in chunks of {@value #HAND_OVER_CHUNK}, the lock let go between them so that
     * a large one (a burst falling due) never holds the workers off for long. The gate opens with the last chunk: until
     * then it stands where it was, so a worker that takes a task between two chunks takes one the gate already let
     * pass, in order. The master takes the lock for it, as the JDK's producers take their queue's: a millisecond of
     * timers some ten milliseconds ahead in steady firing, once per hand-over (measured, the hand-over published
     * without the lock and moved in by the next holder of it bought nothing beyond the runs' spread: docs/design.md).
     */
    @Override
    void dispatchAll(HandOver handOver) {
        int count = handOver.size();
        long now = host.now();
        int refusedFrom = count;
        for (int from = 0; from < count; from += HAND_OVER_CHUNK) {
            int to = Math.min(count, from + HAND_OVER_CHUNK);
            lock.lock();
            try {
                arrivals.moveIn();
                if (closed) {
                    refusedFrom = from;
                    break;
                }
                // A worker stepping a virtual clock takes the head itself: no one need lead a wait for it, nor run it.
                boolean callerTakes = from == 0 && handOver.callerTakesOne();
                boolean newHead = !callerTakes && handOver.task(from).deadline < queue.peekDeadline();
                int dueNow = callerTakes ? -1 : 0;
                for (int i = from; i < to; i++) {
                    ScheduledTask<?> task = handOver.task(i);
                    queue.add(task, true);
                    if (task.deadline <= now) {
                        dueNow++;
                    }
                }
                boolean last = to == count;
                if (last) {
                    handOver.openGate(); // before the signals: a worker woken for a task finds the gate open for it
                }
                waits.wakeFor(last && handOver.opensGate() && gate.hasWaiters() ? Integer.MAX_VALUE : dueNow, newHead);
            } finally {
                lock.unlock();
            }
        }
        if (refusedFrom == count) {
            prestart();
        }
        for (int i = refusedFrom; i < count; i++) {
            handOver.task(i).cancelIfPending(); // never: the master decides on termination after its last hand-off
        }
    }

    /** Wakes every waiting worker to look again (the gate opened, or the keep-alive settings changed). */
    private void wakeAll() {
        lock.lock();
        try {
            waits.wakeAll();
        } finally {
            lock.unlock();
        }
    }

    // -- the workers' side ------------------------------------------------------------------------------------------

    /**
     * Empties the worker's hand, if it filled one, then takes its next task, claimed for its thread, waiting while
     * there is none: one lock acquisition per task, or per hand of due tasks. After its last run since shutdown, the
     * worker asks for the termination decision.
     *
     * @return the task, or null when the worker must leave (it has left the pool then, under the same lock, so that a
     *     dispatch never counts on a worker that is leaving)
     */
    ScheduledTask<?> next(Worker worker) {
        lock.lock();
        try {
            due.emptyHand(worker);
            return waitFor(worker, worker.completedRuns() > 0);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes the task due first that the gate lets pass, claimed for the worker's thread (see {@link DueTasks}), or
     * returns null (removing the worker if the pool is closed); the lock is held. A worker that takes a task and leaves
     * work behind, with others waiting and no leader, signals one of them.
     */
    private ScheduledTask<?> take(Worker worker) {
        if (closed) {
            roster.retire(worker);
            return null;
        }
        long open = gate.opening();
        waits.clearWakeUpPending(); // before the look at the arrivals: see WorkerWaits
        arrivals.moveIn();
        // While stopping, tasks stay queued for shutdownNow to return: one taken now would be neither started nor
        // returned.
        if (host.isStopping()) {
            return null;
        }
        ScheduledTask<?> task = due.take(worker, open);
        if (task != null && waits.hasWaitersWithoutLeader() && due.workLeft()) {
            waits.signalOne(); // work is left and no one leads the wait for it: another worker comes for it
        }
        return task;
    }

    /**
     * Waits until a task can be taken, the worker may retire, or the pool closes; the lock is held. While the first
     * task is not due, one worker leads: it waits until its deadline; the others wait as idle workers do. A worker
     * beyond the core size (or any, with core time-out) retires once it has waited the keep-alive time in vain, unless
     * it is the last and timers are pending.
     */
    private ScheduledTask<?> waitFor(Worker worker, boolean ranBefore) {
        long retireAt = 0; // when the keep-alive time runs out; 0 until the worker may retire at all
        boolean mayBeLastWork = ranBefore;
        boolean stepTried = false;
        boolean gateTurnTried = false;
        for (;;) {
            ScheduledTask<?> task = take(worker);
            if (task != null || closed) {
                return task;
            }
            mayBeLastWork |= worker.droppedStraggler;
            worker.droppedStraggler = false;
            if (mayBeLastWork && host.isShutdown() && roster.counts().active() == 0) {
                // that may have been the last work since shutdown: the executor may terminate. Outside the lock: the
                // decision takes it under its own monitor
                mayBeLastWork = false;
                lock.unlock();
                try {
                    host.tryTerminate();
                } finally {
                    lock.lock();
                }
                continue;
            }
            if (!stepTried && queue.isEmpty() && host.stepsVirtualTime()) {
                stepTried = true; // once per call: a worker steps after its run, not again after each wait
                task = virtualSteps.step(worker);
                if (task != null) {
                    return task;
                }
                continue; // the lock was let go: look again (at what the step handed over, or a closed pool)
            }
            if (!queue.isEmpty() && !host.isStopping()) {
                long deadline = queue.peekDeadline();
                long now = host.now();
                if (deadline <= now) {
                    if (!gateTurnTried && host.stepsVirtualTime()) {
                        gateTurnTried = true; // the gate stands where the last full turn left it: see below
                        virtualSteps.turnForGate();
                        continue;
                    }
                    awaitGate(deadline);
                    continue;
                }
                if (!waits.hasLeader()) {
                    if (arrivals.beforeWait()) {
                        waits.leadUntil(worker, deadline, now, host);
                    }
                    continue;
                }
                // a follower: it waits as an idle worker, and the leader signals one when it takes the task
            }
            boolean mayRetire = settings.allowCoreThreadTimeOut || roster.workerCount() > settings.corePoolSize;
            if (!mayRetire) {
                retireAt = 0;
                if (arrivals.beforeWait()) {
                    waits.awaitSignal(host);
                }
                continue;
            }
            long now = System.nanoTime();
            if (retireAt == 0) {
                retireAt = now + Math.max(1, settings.keepAliveNanos);
            } else if (now - retireAt >= 0) {
                if (roster.workerCount() > 1 || (!host.timersPending() && queue.isEmpty())) {
                    // Counted as waiting while it leaves (see Arrivals.beforeWait): a task that arrived since the look
                    // above is seen here, or its publisher takes the lock once this worker is gone and starts another.
                    if (arrivals.beforeWait()) {
                        roster.retire(worker);
                        waits.leave();
                        return null;
                    }
                    continue;
                }
                retireAt = now + Math.max(1, settings.keepAliveNanos); // the last one stays while timers are pending
            }
            if (arrivals.beforeWait()) {
                waits.awaitSignal(host, retireAt - now);
            }
        }
    }

    @Override
    boolean giveToStepper(ScheduledTask<?> task) {
        return virtualSteps.giveToStepper(task);
    }


    /** Waits for the master to open the gate for {@code deadline}; the lock is held. */
    private void awaitGate(long deadline) {
        boolean open = gate.enterWait(deadline);
        try {
            if (!open && arrivals.beforeWait()) {
                waits.awaitSignal(host);
            }
        } finally {
            gate.leaveWait();
        }
    }

    /**
     * For the jcstress test of the arrivals against a worker's wait: the worker's step up to its wait, under the
     * lock. @return true if it would wait
     */
    boolean registerWaitingForStress() {
        lock.lock();
        try {
            return arrivals.registerWaiting();
        } finally {
            lock.unlock();
        }
    }

    /**
     * For the jcstress test of the arrivals against a leader's wait: a worker's step up to leading the wait for
     * {@code deadline}, under the lock, as in {@link #waitFor}. @return true if it would wait
     */
    boolean registerLeadingForStress(long deadline) {
        lock.lock();
        try {
            if (!arrivals.registerWaiting()) {
                return false;
            }
            waits.lead(new Worker(this, runner, host), deadline);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** For the tests: whether tasks wait in the arrivals, not yet moved into the queue by a holder of the lock. */
    boolean holdsArrivals() {
        return arrivals.hasAny();
    }

    /** For the tests: when the leader's wait ends ({@link TimingWheel#NONE} while no worker leads one). */
    long leaderWakeUpForTests() {
        return waits.leaderWakeUp();
    }

    /** For the same test: whether a signalled worker is on its way, that is, a publisher woke one. */
    boolean wakeUpPendingForStress() {
        return waits.wakeUpPending();
    }

    // -- threads ----------------------------------------------------------------------------------------------------

    /** Starts a worker if fewer than the core size run (at least one), as the JDK does on every delayed schedule. */
    void prestart() {
        roster.prestart();
    }

    /** @return true once as many workers run as the core size asks for */
    boolean isFullyStarted() {
        return roster.isFullyStarted();
    }

    /** @return true if a core thread was started, as {@code ThreadPoolExecutor.prestartCoreThread} */
    boolean prestartCoreThread() {
        return roster.addWorker(settings.corePoolSize);
    }

    /**
     * The core size changed from {@code previous} to what the settings say now; workers start or retire as the JDK's
     * do: a larger size starts workers for the tasks that wait, up to {@code waiting} of them.
     */
    void coreSizeChanged(int previous, long waiting) {
        int size = settings.corePoolSize;
        keepAliveChanged(); // fewer core threads: the excess ones may retire now
        for (long k = Math.min((long) size - previous, waiting); k > 0; k--) {
            if (!roster.addWorker(size)) {
                break;
            }
        }
    }

    /** The keep-alive settings changed: idle workers look again whether they may stay, and for how long. */
    void keepAliveChanged() {
        wakeAll();
    }

    /** @return a new worker of this pool, its thread not made yet (for the roster) */
    Worker newWorker() {
        return new Worker(this, runner, host);
    }

    /** @return whether the termination decision closed the pool: it starts no thread and takes no task any more */
    boolean isClosed() {
        return closed;
    }

    /** A worker's thread dies of what a hook threw in a run: the worker leaves, and is replaced unless closed. */
    void workerDied(Worker worker) {
        boolean replace;
        lock.lock();
        try {
            due.emptyHand(worker); // never filled: a hand follows only a task that runs directly, which never throws
            roster.retire(worker);
            replace = !closed;
        } finally {
            lock.unlock();
        }
        if (replace) {
            roster.addWorker(Math.max(1, settings.corePoolSize));
        }
    }

    @Override
    Figures figures() {
        WorkerRoster.Counts counts = roster.counts();
        return new Figures(counts.size(), counts.largest(), counts.active(), counts.completed(), counts.failed(),
                roster.lateness());
    }

    // -- queries and shutdown ---------------------------------------------------------------------------------------

    /** @return true if tasks wait here but no worker exists to run them (thread creation has been failing) */
    boolean isStarved() {
        if (!roster.startFailed() || roster.workerCount() > 0) {
            return false; // the common case, without the lock
        }
        lock.lock();
        try {
            arrivals.moveIn();
            return due.workLeft() && roster.workerCount() == 0 && !closed;
        } finally {
            lock.unlock();
        }
    }

    @Override
    void drainUnstartedTo(List<ScheduledTask<?>> sink) {
        lock.lock();
        try {
            arrivals.moveInEveryClaim();
            List<ScheduledTask<?>> unstarted = new ArrayList<>();
            due.copyPendingTo(unstarted);
            for (ScheduledTask<?> task : unstarted) {
                if (task.markReturned()) {
                    sink.add(task);
                }
            }
            queue.clear();
        } finally {
            lock.unlock();
        }
    }

    @Override
    void copyWaitingTo(List<ScheduledTask<?>> sink) {
        lock.lock();
        try {
            arrivals.moveIn();
            due.copyPendingTo(sink);
        } finally {
            lock.unlock();
        }
    }

    /** @return whether {@code thread} is one of this pool's workers */
    boolean runsOn(Thread thread) {
        lock.lock();
        try {
            return roster.hasThread(thread);
        } finally {
            lock.unlock();
        }
    }

    @Override
    long idleRunsEnded(Thread advancing) {
        lock.lock();
        try {
            arrivals.moveIn();
            boolean advancingRunsHere = advancing != null && roster.hasThread(advancing);
            // The due tasks before the runs: a hand's task is claimed after its worker is marked active (Worker)
            boolean duePending = due.hasPending();
            int active = roster.activeCount(); // under the lock: exact, without the roster's monitor
            boolean othersIdle = active == (advancingRunsHere ? 1 : 0) && !arrivals.hasAny();
            // Due tasks wait only because no one else can take them when every worker (alive or being started) is
            // running a task, the advancing one among them; a worker that is waiting, starting or between runs will.
            boolean nothingWaits = !duePending
                    || advancingRunsHere && roster.workerCount() <= active;
            return othersIdle && nothingWaits ? roster.completedUnderPoolLock() : -1;
        } finally {
            lock.unlock();
        }
    }

    @Override
    void copyRunningTo(List<ScheduledTask<?>> sink) {
        roster.copyRunningTo(sink);
    }

    @Override
    void interruptWorkers() {
        roster.interruptAll();
    }

    @Override
    Closing close(BooleanSupplier masterStillEmpty) {
        lock.lock();
        try {
            arrivals.moveIn();
            if (closed) {
                return Closing.ALREADY_CLOSED;
            }
            // The due tasks before the runs: a hand's task is claimed after its worker is marked active (Worker)
            if (due.hasPending() || roster.counts().active() != 0
                    || !masterStillEmpty.getAsBoolean()) {
                return Closing.BUSY;
            }
            closed = true;
            if (arrivals.hasAny()) {
                // A publisher claimed a place since the look above and may not see closed: its task was accepted.
                // (Claim, then read closed; write closed, then read the claims: one of the two sees the other.) It asks
                // for the decision again once it has found the executor shut down (ExecutorCore.accept).
                closed = false;
                return Closing.BUSY;
            }
            queue.clear(); // what is left are stragglers that left NEW: taken back, cancelled, returned
            waits.wakeAll(); // the waiting workers leave now
            return roster.size() == 0 ? Closing.NO_THREADS_LEFT : Closing.THREADS_LEAVING;
        } finally {
            lock.unlock();
        }
    }
}
