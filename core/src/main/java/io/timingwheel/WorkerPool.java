package io.timingwheel;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The executor's own worker threads and the queue of tasks they take from, in deadline order ({@link DueQueue}).
 *
 * <p>One lock guards the queue, the worker set and the counts. A worker books the end of a run and takes its next
 * task under one acquisition, so the lock is taken about once per task; the master, in steady firing, not at all (see
 * "The master's hand-overs").
 *
 * <p><b>Ahead of time.</b> The master hands over the tasks that fall due within {@link #HAND_OVER_AHEAD_NANOS}, and a
 * periodic task whose next run is that close comes here straight from its run. A worker waits for the first task's
 * deadline itself, as the JDK's workers wait for the head of their heap: one worker, the leader, waits with a timeout
 * until the first deadline, the others without one until they are signalled (but one: see {@link #deputize}). So a
 * timer reaches a worker that is already waiting for it, and wakes one thread when it falls due, not two (the master,
 * then a worker); the master wakes once per hand-over, a little ahead of the deadlines it covers. A leader whose
 * deadline is nearer than a park can keep (the kernel's timer slack, {@link #DEFAULT_DEADLINE_SPIN_NANOS}) spins for
 * it instead, yielding its core at every turn, and watches for arrivals itself ({@link #spinUntil}).
 *
 * <p><b>Order.</b> A worker takes the first task of the queue once it is due, and only once the order gate is open
 * for it ({@link OrderGate}): every task the master holds that is due before it has been handed over. A task due at
 * once, or a periodic task re-armed, comes here straight, and must not pass a timer the master has not handed over
 * yet. The master opens the gate once the batch it hands over is here (queued, or published: see below), so a worker
 * woken for the batch finds it open; a worker that finds it shut waits until the master signals. With one worker,
 * tasks run in deadline order, as the JDK's heap runs them.
 *
 * <p><b>The master's hand-overs.</b> A small hand-over of tasks not yet due (the common one: a millisecond of timers,
 * some ten milliseconds ahead) is not queued under the lock: the master publishes it in one field, opens the gate, and
 * the next holder of the lock moves it into the queue, as it moves the arrivals. That holder is most often the leader,
 * woken for a timer due now: so the master publishes the deadlines beside the tasks, and moving them in reads no task
 * (a task's memory is the master's until then, and fetching it line by line delayed the due timer). The master takes
 * the lock only to wake a worker: when one waits for the gate, or waits and no leader's wait ends by the hand-over's
 * first deadline (the leader, which wakes by then, moves it in itself). So in steady firing the master and the workers
 * never meet on the lock: a worker that met the master there parked and was woken by its unlock, and the contended
 * paths of the lock were among the last code the JIT compiled, at either thread's request. A worker about to wait for a
 * deadline lets the master take a turn it planned soon at once (see {@link #EARLY_TURN_REACH_NANOS}), so that the
 * master's work runs while the worker sleeps. The order holds because a worker reads the gate before it moves the
 * published hand-over in, and the master publishes before it opens: a worker that reads the gate open for a deadline
 * then finds every task handed over before it in the queue. One hand-over is published at a time: while one waits (the
 * workers are all busy), the next goes under the lock, after it. The count of waiting workers and the published field
 * are read and written as the arrivals' claims are: either the worker sees the hand-over before it waits, or the master
 * sees the worker.
 *
 * <p><b>Threads</b> come and go as in {@link java.util.concurrent.ThreadPoolExecutor}: a worker starts per dispatch
 * until the core size is reached (at least one, even for a core size of 0); a worker beyond the core size, or any with
 * {@code allowCoreThreadTimeOut}, retires after the keep-alive time without work, but the last one stays while timers
 * are pending, as the JDK's does. A worker whose thread dies (a hook threw) is replaced; if the thread factory fails,
 * the next dispatch tries again and tasks wait, never lost.
 *
 * <p><b>Arrivals.</b> A task that comes straight (due at once or soon, or re-armed) is not queued under the lock: its
 * publisher appends it to a lock-free queue of arrivals, and whoever holds the lock next moves the arrivals into the
 * queue, in the order they came; every hold that reads the queue starts so. The publisher takes the lock only to wake
 * a worker: when one waits, no wake-up is already on its way (a signalled worker moves in all that arrived before it
 * got the lock), and the task is due now or before the leader's wait ends (a later one, the leader moves in as it
 * wakes). So tasks due at once from a producer that outpaces the workers cost it no lock, nor do timers due soon from
 * a burst while the leader waits for an earlier one, and the workers one hold of an uncontended lock per task (the
 * JDK's producers and workers take one lock per task each). A publisher, or the master, that finds the lock held
 * tries it again for a moment before it parks ({@link #lockSpinningFirst}). Taking no lock, a publisher never waits
 * for a worker as the JDK's do; so where the workers are held off their cores in the pool's own code (a machine whose
 * cores the publishers and the JIT keep busy), a publisher pauses a moment on purpose ({@link StallWatch}).
 *
 * <p>A worker claims a task when it takes it, under the lock; {@code shutdownNow} drains under the lock too, so every
 * task is either started or returned, never both and never neither.
 *
 * <p><b>The lone worker's hand.</b> A pool of one worker (the JDK's {@code ScheduledThreadPoolExecutor(1)}, the common
 * case) that takes a task also takes the due tasks right behind it, up to {@value #HAND_CAPACITY}, into its hand,
 * under the same hold of the lock: one acquisition for many tasks due at once instead of one per task. A task in a
 * hand is not claimed: it stays pending, and is claimed with a CAS on its state only as the worker starts it. So
 * {@code cancel}, getQueue's {@code remove} and {@code poll}, the shutdown policies and {@code shutdownNow}'s drain
 * still take it (under the lock they see the hand, as part of what waits here) and the worker's claim then fails;
 * once the executor stops, the worker starts nothing more from its hand and leaves the rest to the drain. Only
 * one-shot tasks that run directly (no hooks, no decoration) go into a hand, behind a first task that does too: such
 * a run never kills the thread, and a one-shot task that left NEW never becomes pending again. With one worker the
 * hand changes no order: the tasks are the queue's first ones, due, and run in that order. Only a lone
 * worker fills a hand, so at most one holds tasks ({@link #handHolder}); workers started meanwhile (a larger core
 * size) take from it first, as the queue's front, so no task waits in a hand behind a long run while a worker is free.
 */
final class WorkerPool extends Dispatcher {
    /**
     * How far ahead of their deadlines the master hands tasks to the workers: ten milliseconds. The master wakes when
     * the first deadline it holds is nine of them away ({@link MasterLoop}), so a hand-over covers about a
     * millisecond of timers, and a master that wakes up to nine milliseconds late (on two busy cores a thread that is
     * due to run can wait out another's time slice, a few milliseconds) still hands them over in time.
     */
    static final long HAND_OVER_AHEAD_NANOS = 10_000_000;

    /**
     * How far ahead of its deadline a task comes here straight from its publisher, past the master: fifty
     * milliseconds. A timer due that soon never waits behind a backlog in the master's inbox, nor for the master to
     * wake, and the master, which announces this far ahead (see {@link OrderGate}), may fall that far behind a burst of
     * schedules, or a cold start, before it holds a worker back.
     */
    static final long STRAIGHT_REACH_NANOS = 50_000_000;

    /** How often, at most, publishers give way to an overdue leader ({@link #publisherGivesWay}): 50 µs. */
    private static final long PUBLISHER_GIVE_WAY_EVERY_NANOS = 50_000;

    /** {@link #publisherGaveWayAt} before any give-way: long enough before any reading of the executor's clock. */
    private static final long NEVER_GAVE_WAY = Long.MIN_VALUE / 2;

    /** How long a worker lets go of the lock when an arrival is still being written (see {@link #enterWait}). */
    private static final long ARRIVAL_GAP_WAIT_NANOS = 50_000;

    /** How many times a worker looks again for an arrival still being written before it lets go of the lock. */
    private static final int ARRIVAL_GAP_SPINS = 256;

    /**
     * How far ahead of the master's planned turn a worker about to wait for a deadline lets the master take it (see
     * {@link MasterLoop#turnEarlyIfPlannedBy}): longer than a worker's cycle between two such waits when timers are
     * dense (80 to 130 µs on the development machine: the kernel's timer slack of 50 µs, then the wake-up), so that
     * nearly every turn the master plans then starts as a worker parks; short against the nine milliseconds by which
     * the master hands over ahead.
     */
    static final long EARLY_TURN_REACH_NANOS = 250_000;

    /**
     * How many times a thread that is not a worker (a publisher, the master) tries the lock again, a spin-wait hint
     * apart, before it parks for it (see {@link #lockSpinningFirst}): some ten microseconds, longer than a worker's
     * usual hold.
     */
    private static final int OUTSIDE_LOCK_SPINS = 512;

    /**
     * How close to the first task's deadline the leader spins rather than parks, unless the builder says otherwise
     * ({@link TimingWheelExecutor.Builder#deadlineSpin}): 50 µs, the kernel's timer slack for a thread, by which a timed
     * park overruns anyway. Parks of 10 µs for deadlines 10 µs apart returned after 80 to 100 µs on the development
     * machine, and now and then after a millisecond or more (a virtual core that halted comes back when its host
     * schedules it), so timers due at once a few tens of microseconds apart ran some 50 µs late as a rule, and a
     * millisecond late at times, as on the JDK's executor, whose workers park the same way. See {@link #spinUntil}.
     */
    static final long DEFAULT_DEADLINE_SPIN_NANOS = 50_000;

    /**
     * A turn of the leader's spin (one yield) that took longer than this was robbed: another thread held the core for
     * its slice, as a JIT compiler thread does for 1 to 4 ms ({@link #spinUntil}). An uncontended yield returns within
     * microseconds, and one that lets a producer or the master run a moment within tens of them.
     */
    static final long ROBBED_TURN_NANOS = 200_000;

    /**
     * How long the leader parks, rather than spins, for near deadlines after a robbed turn: a thread that takes a whole
     * slice, a compiler, is at work for longer than one, and each turn would hand it the core again.
     */
    static final long SPIN_BACK_OFF_NANOS = 5_000_000;

    /** A follower's wait without a limit: it is not the leader's deputy ({@link #deputize}). */
    private static final long NO_WATCH = Long.MAX_VALUE;

    /** Tasks of a hand-over queued under one hold of the lock: workers get the lock between chunks. */
    private static final int HAND_OVER_CHUNK = 256;

    /** How many due tasks a lone worker takes into its hand behind the one it starts (see the class comment). */
    static final int HAND_CAPACITY = 32;

    /** How many tasks a worker takes and runs per call of its loop's body (see {@link Worker#run}). */
    private static final int RUNS_PER_CALL = 64;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition workAvailable = lock.newCondition();
    private final HashSet<Worker> workers = new HashSet<>();
    private final DueQueue due = new DueQueue();

    /**
     * Tasks that came straight from their publishers and are not in {@link #due} yet: whoever holds the lock next moves
     * them in ({@link #absorbArrivals}). The lock holder is the one consumer.
     */
    private final FetchAddQueue<ScheduledTask<?>> arrivals = new FetchAddQueue<>();

    /**
     * A hand-over the master published without the lock, its tasks in deadline order, or null: the next holder of the
     * lock moves it into the queue ({@link #absorbArrivals}). One at a time: while one waits here, the master hands
     * over under the lock (see "The master's hand-overs" in the class comment). Written by the master (a new one each
     * time) and by holders of the lock (null, once moved in).
     */
    private volatile PublishedHandOver published;

    /**
     * Workers waiting on {@code workAvailable}, for work, for a deadline or for the gate; written under the lock, read
     * by publishers without it.
     */
    private volatile int waitingWorkers;

    /**
     * 1 when a worker is signalled, 0 once a worker that holds the lock clears it before it looks at the arrivals:
     * while 1, a worker is on its way to the lock and will move in what arrives, so a publisher need not take the
     * lock. A number, not a flag, so that publishers weigh it by arithmetic ({@link #oneIfWakeUpNeeded}).
     */
    private volatile int wakeUpPending;

    /**
     * When the leader's wait for the first task's deadline ends ({@link TimingWheel#NONE} while no worker leads one):
     * written by the leader under the lock as it begins and ends the wait, read by the master without it.
     */
    private volatile long leaderWakeUp = TimingWheel.NONE;

    /**
     * When a publisher last gave way to an overdue leader ({@link #publisherGivesWay}): publishers yield at most once
     * per {@link #PUBLISHER_GIVE_WAY_EVERY_NANOS}, so that a leader held up by a thread no publisher can move (a
     * compiler thread, another process) costs a publisher scheduling at full speed a few yields, not one per task.
     */
    private volatile long publisherGaveWayAt = NEVER_GAVE_WAY;

    /** The workers' progress, at which publishers look to pause while the workers are held ({@link StallWatch}). */
    private final StallWatch stallWatch = new StallWatch();

    /** The worker that waits, with a timeout, for the first task's deadline; null if none does. */
    private Worker leader;

    /** The leader while it spins for a deadline near ({@link #spinUntil}); null else. Guarded by the lock. */
    private Worker spinner;

    /**
     * The follower that waits no longer than a robbed turn past the leader's deadline ({@link #deputize}); null if
     * none does. Guarded by the lock.
     */
    private Worker deputy;

    /**
     * 1, set under the lock, when a task due now, or due before the first one, is queued while the {@link #spinner}
     * spins: it is not counted as waiting, so {@link #wakeFor} tells it so instead of signalling it; 0 as a spin
     * begins. A number, so that the spin weighs it with its other reasons to end by arithmetic ({@link
     * #spinShouldEnd}).
     */
    private volatile int spinnerCalls;

    /**
     * How many hand-overs the master has published without the lock ({@link #publishWithoutLock}); the master alone
     * writes it, after the publication. A spinner watches it rather than {@link #published} itself, so that a
     * publication, a call and a claim end the spin through one test (see {@link #spinShouldEnd}).
     */
    private volatile long publications;

    /** The count of {@link #publications} the spinner read as its spin began; the spinner's own. */
    private long publicationsAtSpin;

    /** How close to the first deadline its leader spins rather than parks; 0 for never (a virtual clock). */
    private final long deadlineSpinNanos;

    /** A turn of the spin longer than this was robbed ({@link #ROBBED_TURN_NANOS}); a parameter for the tests. */
    private final long robbedTurnNanos;

    /** How long the leader parks for near deadlines after a robbed turn ({@link #SPIN_BACK_OFF_NANOS}). */
    private final long spinBackOffNanos;

    /** Whether the leader parks for near deadlines until {@link #spinResumesAt}, after a robbed turn; under the lock. */
    private boolean spinBackedOff;

    /** When the leader may spin again after a robbed turn; under the lock, meaningful while {@link #spinBackedOff}. */
    private long spinResumesAt;

    /** The worker whose hand holds tasks, or null: at most one does (see the class comment); guarded by the lock. */
    private Worker handHolder;

    /** The counts of runs, written by the workers at every run: on cache lines of their own, see {@link RunCounts}. */
    private final RunCounts runs = new RunCounts();

    /** Set by the termination decision: nothing is taken or started any more, workers leave. Read without the lock. */
    private volatile boolean closed;

    /** The lateness of runs by workers that have left. */
    private final long[] retiredLateness = new long[LatenessHistogram.BUCKETS];

    /** Workers alive or being started; read without the lock on the schedule path. */
    private volatile int workerCount;

    /** Set once the thread factory failed to give a worker a running thread: only then may tasks starve here. */
    private volatile boolean startFailed;

    private final String executorName;
    private final DispatcherHost host;
    private final TaskRunner runner;
    private final OrderGate gate;
    private final PoolSettings settings;

    /**
     * @param deadlineSpinNanos how close to the first deadline its leader spins rather than parks ({@link #spinUntil});
     *     0 for never, as with a virtual clock, whose time does not pass while a worker spins
     */
    WorkerPool(String executorName, DispatcherHost host, TaskRunner runner, OrderGate gate, PoolSettings settings,
               long deadlineSpinNanos) {
        this(executorName, host, runner, gate, settings, deadlineSpinNanos, ROBBED_TURN_NANOS, SPIN_BACK_OFF_NANOS);
    }

    /**
     * @param robbedTurnNanos how long a turn of the spin may take before the spin counts it robbed
     *     ({@link #ROBBED_TURN_NANOS}; {@code Long.MAX_VALUE} for never)
     * @param spinBackOffNanos how long the leader then parks for near deadlines ({@link #SPIN_BACK_OFF_NANOS})
     */
    WorkerPool(String executorName, DispatcherHost host, TaskRunner runner, OrderGate gate, PoolSettings settings,
               long deadlineSpinNanos, long robbedTurnNanos, long spinBackOffNanos) {
        this.deadlineSpinNanos = deadlineSpinNanos;
        this.robbedTurnNanos = robbedTurnNanos;
        this.spinBackOffNanos = spinBackOffNanos;
        this.executorName = executorName;
        this.host = host;
        this.runner = runner;
        this.gate = gate;
        this.settings = settings;
    }

    /** Has the gate wake the workers that wait for it when the master opens it; once, before the master starts. */
    void listenToGate() {
        gate.wakeWaitersWith(this::wakeAll);
    }

    // -- hand-offs --------------------------------------------------------------------------------------------------

    /**
     * Queues the task in the arrivals without the lock; the next holder of the lock moves it into the queue. The lock
     * is taken only to wake a waiting worker, once per wake-up, and not for a task due later than the leader's wait
     * ends (see "Arrivals" in the class comment and {@link #oneIfWakeUpNeededFor}).
     */
    @Override
    boolean dispatch(ScheduledTask<?> task) {
        if (closed) {
            return false;
        }
        arrivals.offer(task); // its claim, an atomic add, comes before the reads below: see enterWait and close
        if (closed) {
            // The pool closed as the task arrived, and close() may not have seen the claim: the task is refused, unless
            // close() saw it, opened the pool again and a worker took it first.
            return !task.markRejected();
        }
        if (oneIfWakeUpNeeded() != 0 && oneIfWakeUpNeededFor(task.deadline, host.now()) != 0) {
            lockSpinningFirst();
            try {
                absorbArrivals(); // wakes workers for what it moved in
            } finally {
                lock.unlock();
            }
        }
        prestart();
        return true;
    }

    /**
     * Moves the master's published hand-over, if any, and the arrivals into the queue and wakes waiting workers for
     * them, as a hand-over does; the lock is held. Stops at a slot still being written (see {@link #enterWait}).
     *
     * @return how many tasks it moved
     */
    private int absorbArrivals() {
        PublishedHandOver batch = published;
        ScheduledTask<?> task = arrivals.poll();
        if (task == null && batch == null) {
            return 0;
        }
        long now = host.now();
        int moved = 0;
        int dueNow = 0;
        int found = 0;
        if (batch != null) {
            published = null; // the master may publish the next one once it reads this
            ScheduledTask<?>[] tasks = batch.tasks;
            long[] deadlines = batch.deadlines;
            moved = tasks.length;
            for (int i = 0; i < tasks.length; i++) {
                int f = queueArrived(tasks[i], deadlines[i], true, now);
                found |= f;
                dueNow += f & DUE_NOW;
            }
        }
        for (; task != null; task = arrivals.poll()) {
            moved++;
            int f = queueArrived(task, task.deadline, false, now);
            found |= f;
            dueNow += f & DUE_NOW;
        }
        if (!closed) {
            wakeFor(dueNow, (found & NEW_HEAD) != 0);
        }
        return moved;
    }

    /** What {@link #queueArrived} found: the task is due by {@code now}. */
    private static final int DUE_NOW = 1;

    /** What {@link #queueArrived} found: the task comes before the queue's first one. */
    private static final int NEW_HEAD = 2;

    /**
     * Queues a task that came to the pool, {@code byMaster} or straight; the lock is held. In a closed pool only tasks
     * their publishers refused can arrive (see {@link #close}), never a hand-over (the master decides on termination
     * after its last one): what is pending is cancelled, never left.
     *
     * @param deadline the task's deadline, as its publisher read it (see {@link DueQueue#add(ScheduledTask, long,
     *     boolean)})
     * @return {@link #DUE_NOW} and {@link #NEW_HEAD} as they hold for it (0 in a closed pool)
     */
    private int queueArrived(ScheduledTask<?> task, long deadline, boolean byMaster, long now) {
        if (closed) {
            task.cancelIfPending();
            return 0;
        }
        // By arithmetic (see BranchFree): a workload may meet either side of each first seconds in. The queue's first
        // deadline is DueQueue.EMPTY, later than any, if it is empty.
        int found = BranchFree.oneIfLess(deadline, due.peekDeadline()) * NEW_HEAD
                | (1 - BranchFree.oneIfLess(now, deadline)) * DUE_NOW;
        due.add(task, deadline, byMaster);
        return found;
    }

    /**
     * Queues the hand-over in chunks of {@value #HAND_OVER_CHUNK}, the lock let go between them so that a large one
     * (a burst falling due) never holds the workers off for long, and opens the gate with the last chunk: until then
     * the gate stands where it was, so a worker that takes a task between two chunks takes one the gate already let
     * pass, in order.
     */
    @Override
    void dispatchAll(HandOver handOver) {
        int count = handOver.size();
        long now = host.now();
        if (publishWithoutLock(handOver, now)) {
            prestart();
            return;
        }
        int refusedFrom = count;
        for (int from = 0; from < count; from += HAND_OVER_CHUNK) {
            int to = Math.min(count, from + HAND_OVER_CHUNK);
            lockSpinningFirst();
            try {
                if (published != null) {
                    absorbArrivals(); // the master's earlier hand-over first, as it came
                }
                if (closed) {
                    refusedFrom = from;
                    break;
                }
                boolean newHead = handOver.task(from).deadline < due.peekDeadline();
                int dueNow = 0;
                for (int i = from; i < to; i++) {
                    ScheduledTask<?> task = handOver.task(i);
                    due.add(task, true);
                    if (task.deadline <= now) {
                        dueNow++;
                    }
                }
                boolean last = to == count;
                if (last) {
                    handOver.openGate(); // before the signals: see the class comment
                }
                wakeFor(last && handOver.opensGate() && gate.hasWaiters() ? waitingWorkers : dueNow, newHead);
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

    /**
     * Publishes a small hand-over of tasks not yet due without the lock, then opens the gate; takes the lock only to
     * wake a worker: when one waits for the gate, or waits with no leader's wait ending by the hand-over's first
     * deadline (see "The master's hand-overs" in the class comment).
     *
     * @return false if the hand-over must go under the lock: it is large, holds a due task, the master's last
     *     one has not been moved in yet, or the pool closed
     */
    private boolean publishWithoutLock(HandOver handOver, long now) {
        int count = handOver.size();
        if (count > HAND_OVER_CHUNK || published != null || closed) {
            return false;
        }
        long first = handOver.task(0).deadline;
        if (first <= now) {
            return false; // a worker to wake for each due task
        }
        published = new PublishedHandOver(handOver); // before the reads below: see registerWaiting and close
        publications = publications + 1; // the master's alone: a spinner that began before the publication sees it
        handOver.openGate(); // after the publication: a worker reads the gate before it moves tasks in (see take)
        if (closed || gate.hasWaiters() || (oneIfWakeUpNeeded() & oneIfWakeUpNeededFor(first, now)) != 0) {
            lockSpinningFirst();
            try {
                absorbArrivals(); // wakes a worker for a new first deadline; cancels the tasks if closed
                if (!closed && gate.hasWaiters()) {
                    wakeFor(waitingWorkers, false);
                }
            } finally {
                lock.unlock();
            }
        }
        return true;
    }

    /**
     * @return 1 if a worker waits and none has been signalled since (a publisher must take the lock to wake one), else
     *     0: by arithmetic (see {@link BranchFree}), so that a publisher's one branch on it sees both sides wherever
     *     workers wait, while a worker waiting with a signal already on its way is a side a run may first meet
     *     seconds in
     */
    private int oneIfWakeUpNeeded() {
        return BranchFree.oneIfPositive(waitingWorkers) & (wakeUpPending ^ 1);
    }

    /**
     * Takes the lock for a thread that is not a worker (a publisher, the master), trying it again for a moment before
     * it parks: a thread parked on the lock is woken by the unlock of the worker that held it, and the kernel puts it
     * on the core that worker runs on, where it may keep the worker from its next timer for the rest of its slice. In
     * a burst on two cores (JDK 25), a producer so parked, woken by the worker, ran 2.8 ms on the worker's core while
     * the other core was idle for most of it, and the timers due meanwhile waited.
     */
    private void lockSpinningFirst() {
        for (int spins = OUTSIDE_LOCK_SPINS; !lock.tryLock(); spins--) {
            if (spins == 0) {
                lock.lock();
                return;
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Whether a waiting worker needs waking for a task (or a published hand-over) whose first deadline is
     * {@code deadline}, at time {@code now}: when it is due before the leader's wait ends (or no worker leads one), or
     * due now. A later one is left for the leader, which moves it in as it wakes: taking the lock for it would wake
     * nobody, only contend with the worker that holds it. A task due now must wake a worker even where the leader's
     * wait ends before it: such a wait may be over already, its leader not run yet (the kernel lets a timed wait
     * overrun by its timer slack, 50 µs, and more on a busy core), and a signal wakes it at once; left to that wait,
     * tasks due at once every 20 µs among timers (one worker, two cores) doubled their p99. The rule of publishers and
     * of the master's published hand-overs (which hold no due task). By arithmetic (see {@link BranchFree}).
     *
     * @return 1 if a worker needs waking, else 0
     */
    private int oneIfWakeUpNeededFor(long deadline, long now) {
        int beforeLeader = BranchFree.oneIfLess(deadline, leaderWakeUp);
        int dueNow = 1 - BranchFree.oneIfLess(now, deadline);
        return beforeLeader | dueNow;
    }

    /** Wakes every waiting worker to look again (the gate opened, or the keep-alive settings changed). */
    private void wakeAll() {
        lockSpinningFirst();
        try {
            workAvailable.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Wakes a waiting worker for each of {@code dueNow} new tasks, and, if the first deadline moved earlier, one more
     * to lead the wait for it (the leader waits for the old one); the lock is held.
     */
    private void wakeFor(int dueNow, boolean newHead) {
        int signals = Math.min(dueNow, waitingWorkers);
        if (spinner != null && (dueNow > 0 || newHead)) {
            spinnerCalls = 1;
        }
        if (newHead) {
            resign();
            signals = Math.max(signals, Math.min(1, waitingWorkers));
        }
        if (signals > 0) {
            wakeUpPending = 1;
        }
        for (int i = signals; i > 0; i--) {
            workAvailable.signal();
        }
    }

    /**
     * A hand-over the master publishes without the lock: its tasks, in deadline order, and their deadlines beside them,
     * read by the master as it collected the tasks. The worker that moves it in reads the deadlines, not the tasks:
     * the master wrote each task's memory last (it unlinked the task from the wheel), and fetching those lines one by
     * one to another core took the moving worker 2 to 28 µs per hand-over of a hundred tasks (the median of a burst's
     * moves, by JVM; up to 0.6 ms at worst), just as it woke for a timer due then (see "The master's hand-overs" in
     * the class comment). Moving in the deadlines took 1.4 to 2.0 µs (at worst 35 to 43 µs).
     */
    private static final class PublishedHandOver {
        final ScheduledTask<?>[] tasks;
        final long[] deadlines;

        PublishedHandOver(HandOver handOver) {
            int count = handOver.size();
            tasks = new ScheduledTask<?>[count];
            deadlines = new long[count];
            for (int i = 0; i < count; i++) {
                ScheduledTask<?> task = handOver.task(i);
                tasks[i] = task;
                deadlines[i] = task.deadline;
            }
        }
    }

    // -- the workers' side ------------------------------------------------------------------------------------------

    /**
     * Books the end of the worker's previous run, if any, then takes its next task, claimed for its thread, waiting
     * while there is none: one lock acquisition per task in the common case.
     *
     * @return the task, or null when the worker must leave (it has left the pool then, under the same lock, so that a
     *     dispatch never counts on a worker that is leaving)
     */
    private ScheduledTask<?> next(Worker worker, boolean ranOne, boolean runFailed) {
        boolean lastRunAfterShutdown;
        lock.lock();
        try {
            if (ranOne) {
                bookRun(runFailed);
            }
            if (worker.handSize > 0) {
                settleHand(worker);
            }
            ScheduledTask<?> task = take(worker);
            if (task != null || closed) {
                return task;
            }
            // The shutdown first: a new worker that finds nothing to take (no run ended) is met at an executor's
            // start, which a run may first see compiled seconds in, and a test of it was compiled as a trap (see
            // BranchFree); a shutdown is met at the first executor's end.
            lastRunAfterShutdown = host.isShutdown() && ranOne && runs.active == 0;
            if (!lastRunAfterShutdown) {
                return waitFor(worker);
            }
        } finally {
            lock.unlock();
        }
        host.tryTerminate(); // maybe that was the last work; outside the lock: the decision takes it under its own
        lock.lock();
        try {
            return waitFor(worker);
        } finally {
            lock.unlock();
        }
    }

    private void bookRun(boolean runFailed) {
        runs.active--;
        runs.completed++;
        if (runFailed) {
            runs.failed++;
        }
    }

    /**
     * Books the runs of the worker's hand and empties it; the lock is held. A task still pending there was left when
     * the executor began to stop (see {@link Worker#runFromHand}): it goes back to the queue, where shutdownNow's drain
     * finds it (or has found it already in the hand: then it is no longer pending).
     */
    private void settleHand(Worker worker) {
        if (handHolder == worker) {
            handHolder = null;
        }
        runs.completed += worker.handRan;
        runs.failed += worker.handFailed;
        for (int i = 0; i < worker.handSize; i++) {
            ScheduledTask<?> task = worker.hand[i];
            if (task.isPending()) {
                due.add(task, false);
            }
            worker.hand[i] = null;
        }
        worker.handSize = 0;
        worker.handNext = 0;
        worker.handRan = 0;
        worker.handFailed = 0;
    }

    /** Passes every task still pending in the hand, if a worker holds one, to {@code action}; the lock is held. */
    private void forEachInHand(Consumer<ScheduledTask<?>> action) {
        Worker holder = handHolder;
        for (int i = 0; holder != null && i < holder.handSize; i++) {
            ScheduledTask<?> task = holder.hand[i];
            if (task.isPending()) {
                action.accept(task);
            }
        }
    }

    /** @return the hand's first task still pending (the hand is in deadline order), or null; the lock is held */
    private ScheduledTask<?> firstPendingInHand() {
        Worker holder = handHolder;
        for (int i = 0; holder != null && i < holder.handSize; i++) {
            if (holder.hand[i].isPending()) {
                return holder.hand[i];
            }
        }
        return null;
    }

    /**
     * Claims, for {@code worker}, the first task of another worker's hand that is pending and may run; the lock is
     * held. @return it, or null if there is none
     */
    private ScheduledTask<?> takeFromHand(Worker worker) {
        Worker holder = handHolder;
        for (int i = 0; holder != null && holder != worker && i < holder.handSize; i++) {
            ScheduledTask<?> task = holder.hand[i];
            if (task.isPending() && host.mayRun(task) && TaskRunner.claim(task, true)) {
                runs.active++;
                worker.userTask = task;
                worker.direct = true;
                worker.claimed = true;
                return task;
            }
        }
        return null;
    }

    /**
     * Takes the first task if it is due and the gate is open for it, claimed for the worker's thread, or returns null
     * (removing the worker if the pool is closed); the lock is held. A worker that takes one while others wait and no
     * one leads the wait for the next signals one of them to lead it.
     */
    private ScheduledTask<?> take(Worker worker) {
        if (closed) {
            retire(worker);
            return null;
        }
        // Read before the master's hand-over is moved in: the master publishes one before it opens the gate for it.
        long open = gate.opening();
        if (wakeUpPending != 0) {
            wakeUpPending = 0; // before the look at the arrivals: see the field
        }
        absorbArrivals();
        // While stopping, tasks stay queued for shutdownNow to return: one taken now would be neither started nor
        // returned.
        if (host.isStopping()) {
            return null;
        }
        if (handHolder != null) {
            ScheduledTask<?> fromHand = takeFromHand(worker); // a hand holds the queue's first tasks
            if (fromHand != null) {
                return fromHand;
            }
        }
        DueQueue.Lane first = due.headLane();
        long deadline = first.headDeadline(); // DueQueue.EMPTY, never due, if the queue is empty: no branch of its own
        if (deadline > worker.timeSeen && deadline > (worker.timeSeen = host.now())) {
            return null; // not due: the clock is read only when the time the worker saw last does not settle it
        }
        if (deadline >= open) {
            return null; // the gate is shut for it
        }
        ScheduledTask<?> task = first.head();
        boolean mayRun = host.mayRun(task);
        if (!mayRun && host.isStopping()) {
            // shutdownNow began since the look above: the task stays queued for its drain, which takes this lock
            // after this worker lets go of it, to return (taken and cancelled here, it would be neither run nor
            // returned; jcstress found it: ScheduleVersusShutdownNowStress)
            return null;
        }
        first.poll();
        runs.active++;
        worker.userTask = runner.userTask(task);
        worker.direct = runner.runsDirectly(task, worker.userTask);
        worker.claimed = mayRun && TaskRunner.claim(task, worker.direct);
        if (leader == null && waitingWorkers > 0 && !due.isEmpty()) {
            workAvailable.signal();
        }
        if (worker.direct && !task.isPeriodic() && workers.size() == 1) {
            fillHand(worker, open);
        }
        return task;
    }

    /**
     * Takes the due tasks that follow into the lone worker's hand, unclaimed, while they are one-shot, run directly,
     * may run, and the gate is open for them; the lock is held. Due means due by the time the worker saw last: the
     * clock is not read again for the hand, nor the gate: {@code open} is where it stood when the worker began its
     * take.
     */
    private void fillHand(Worker worker, long open) {
        while (worker.handSize < HAND_CAPACITY) {
            DueQueue.Lane first = due.headLane();
            long deadline = first.headDeadline(); // DueQueue.EMPTY if the queue is empty
            if (deadline > worker.timeSeen || deadline >= open) {
                return;
            }
            ScheduledTask<?> task = first.head();
            if (task.isPeriodic() || !runner.runsDirectly(task) || !host.mayRun(task)) {
                return;
            }
            first.poll();
            worker.hand[worker.handSize++] = task;
            handHolder = worker;
        }
    }

    /**
     * Waits until a task can be taken, the worker may retire, or the pool closes; the lock is held. While the first
     * task is not due, one worker leads: it waits until its deadline; the others wait as idle workers do. A worker
     * beyond the core size (or any, with core time-out) retires once it has waited the keep-alive time in vain, unless
     * it is the last and timers are pending.
     */
    private ScheduledTask<?> waitFor(Worker worker) {
        long retireAt = 0; // when the keep-alive time runs out; 0 until the worker may retire at all
        for (;;) {
            ScheduledTask<?> task = take(worker);
            if (task != null || closed) {
                return task;
            }
            long watchNanos = NO_WATCH; // how long this worker waits at most as the leader's deputy
            if (!due.isEmpty() && !host.isStopping()) {
                long deadline = due.peekDeadline();
                long now = host.now();
                long wait = deadline - now;
                if (wait <= 0) {
                    awaitGate(deadline);
                    continue;
                }
                if (leader == null) {
                    if (wait <= deadlineSpinNanos && maySpin(now)) {
                        spinUntil(worker, deadline);
                    } else {
                        awaitDeadline(worker, deadline, wait);
                    }
                    continue;
                }
                // a follower: it waits as an idle worker, and the leader signals one when it takes the task; one
                // follower, the deputy, waits no longer than a robbed turn past the leader's deadline
                watchNanos = untilRobbed(leaderWakeUp - now);
            }
            boolean mayRetire = settings.allowCoreThreadTimeOut || workerCount > settings.corePoolSize;
            if (!mayRetire) {
                retireAt = 0;
                if (enterWait()) {
                    boolean watching = deputize(worker, watchNanos);
                    try {
                        if (watching) {
                            awaitQuietly(watchNanos);
                        } else {
                            workAvailable.awaitUninterruptibly();
                        }
                    } finally {
                        waitingWorkers--;
                        if (watching) {
                            deputy = null;
                        }
                    }
                }
                continue;
            }
            long now = System.nanoTime();
            if (retireAt == 0) {
                retireAt = now + Math.max(1, settings.keepAliveNanos);
            } else if (now - retireAt >= 0) {
                if (workerCount > 1 || (!host.timersPending() && due.isEmpty())) {
                    // Counted as waiting while it leaves (see enterWait): a task that arrived since the look above is
                    // seen here, or its publisher takes the lock once this worker is gone and starts another.
                    if (enterWait()) {
                        retire(worker);
                        waitingWorkers--;
                        return null;
                    }
                    continue;
                }
                retireAt = now + Math.max(1, settings.keepAliveNanos); // the last one stays while timers are pending
            }
            if (enterWait()) {
                boolean watching = deputize(worker, watchNanos);
                try {
                    awaitQuietly(watching ? Math.min(retireAt - now, watchNanos) : retireAt - now);
                } finally {
                    waitingWorkers--;
                    if (watching) {
                        deputy = null;
                    }
                }
            }
        }
    }

    /**
     * Makes the worker, about to wait as a follower while a leader waits for its deadline ({@code watchNanos} is then
     * how long it may wait), the leader's deputy, unless another follower is; the lock is held. A thread that takes the
     * leader's core for a slice (a compiler thread, another process) holds the leader off it: a spinning leader is
     * runnable there and stays ({@link #spinUntil}), and a parked one's wake-up at its deadline may be queued there
     * too, while the other core is idle. Meanwhile the tasks due from the leader's deadline on wait, and the followers,
     * which only the leader signals, sleep (the burst's timers due after 200 ms, two workers: a spinning leader held
     * 2.8 ms, a woken one 3.4 ms, the follower asleep on an idle core all that time). So one follower waits no longer
     * than a robbed turn ({@link #ROBBED_TURN_NANOS}) past the leader's deadline, then takes what is due itself; one
     * only, so that a leader that takes its task on time and leaves the queue empty (no signal to a follower) costs
     * one early wake-up at most; where no leader waits (an idle pool, a pool of one worker) it costs none.
     *
     * @return whether the worker is the deputy; the caller clears {@link #deputy} as the worker stops waiting
     */
    private boolean deputize(Worker worker, long watchNanos) {
        if (watchNanos == NO_WATCH || deputy != null) {
            return false;
        }
        deputy = worker;
        return true;
    }

    /**
     * @return how long a deputy waits when the leader's deadline is {@code nanos} away: a robbed turn more;
     *     {@link #NO_WATCH} where that is beyond the clock's range (a pool whose turns are never robbed)
     */
    private long untilRobbed(long nanos) {
        long toDeadline = Math.max(0, nanos);
        return robbedTurnNanos >= NO_WATCH - toDeadline ? NO_WATCH : toDeadline + robbedTurnNanos;
    }

    /**
     * A worker's wait of at most {@code nanos}; the lock is held. An interrupt ends it: shutdownNow interrupts every
     * worker, and a waiting one just looks again.
     */
    private void awaitQuietly(long nanos) {
        try {
            workAvailable.awaitNanos(nanos);
        } catch (InterruptedException e) {
            // the worker looks again
        }
    }

    /**
     * Counts the worker as waiting, then looks at the arrivals once more; the lock is held. A publisher claims its
     * place in the arrivals (an atomic add), then reads the count; the worker raises the count, then reads the claims
     * (all sequentially consistent): so either the worker sees the claim, or the publisher sees the count and takes
     * the lock to wake a worker. A claim whose task is still being written cannot be moved in yet: the worker
     * spins a moment (the publisher is between its claim and its write), and if the publisher was preempted there,
     * lets go of the lock for {@value #ARRIVAL_GAP_WAIT_NANOS} ns, not counted as waiting, and looks again.
     *
     * @return true if the worker may wait (the caller lowers the count after); false if tasks arrived: the count is
     *     lowered again and the worker looks at the queue once more
     */
    private boolean enterWait() {
        if (registerWaiting()) {
            return true;
        }
        int moved = absorbArrivals();
        for (int spins = ARRIVAL_GAP_SPINS; moved == 0 && spins > 0; spins--) {
            Thread.onSpinWait(); // the publisher is between its claim and its write, a few instructions
            moved = absorbArrivals();
        }
        if (moved == 0) {
            awaitQuietly(ARRIVAL_GAP_WAIT_NANOS);
        }
        return false;
    }

    /**
     * Leads the wait for the first task's {@code deadline}, {@code nanos} from now; the lock is held. The master may
     * take its next turn now, if it planned one soon ({@link #EARLY_TURN_REACH_NANOS}): while this worker sleeps.
     */
    private void awaitDeadline(Worker worker, long deadline, long nanos) {
        if (!enterWait()) {
            return;
        }
        lead(worker, deadline);
        long now = deadline - nanos; // as the caller read the clock
        host.letMasterTurnBy(now + EARLY_TURN_REACH_NANOS);
        try {
            awaitQuietly(nanos);
        } finally {
            waitingWorkers--;
            if (leader == worker) {
                resign();
            }
        }
    }

    /**
     * Leads the wait for the first task's {@code deadline}, near ({@link #deadlineSpinNanos} or less), by spinning
     * rather than parking, the lock let go of meanwhile: a park that short would overrun the deadline by the kernel's
     * timer slack (see {@link #DEFAULT_DEADLINE_SPIN_NANOS}). Each turn of the spin yields the core to any other thread
     * ready to run on it: three threads sharing two cores (a producer, the master, this worker), a worker that only
     * hinted the spin kept the others off its core and made the timers due first later. The spinning worker is not
     * counted as waiting, so no publisher takes the lock to signal it; it watches for them instead, and looks again at
     * the deadline or as soon as a task arrives: a publisher's claim in the arrivals, the master's published hand-over,
     * or a task queued under the lock due now or before its deadline ({@link #wakeFor}).
     *
     * <p>A yield hands the core to a thread that wants all of it (a JIT compiler thread) for that thread's whole
     * slice, 1-4 ms, and the kernel does not move the spinner, which ran a moment ago, to the other core even while
     * that one is idle; a parked worker's wake-up is placed anew instead. So a turn that took longer than
     * {@link #ROBBED_TURN_NANOS} ends the spin, and for {@link #SPIN_BACK_OFF_NANOS} after it the leader parks for near
     * deadlines as for far ones: the robbed turn itself is not undone (tasks due at once among close timers waited that
     * long, the README's "On time"), the next ones are not handed over while the compiler is still at work. Where other
     * workers wait, one of them takes the due tasks in the robbed leader's place ({@link #deputize}).
     */
    private void spinUntil(Worker worker, long deadline) {
        long claims = beginSpin(worker, deadline);
        if (claims < 0) {
            return;
        }
        lock.unlock();
        boolean robbed = false;
        long turnEnd = host.now();
        try {
            while (turnEnd - deadline < 0 && !spinShouldEnd(claims)) {
                long turnStart = turnEnd;
                Thread.yield();
                turnEnd = host.now();
                if (turnEnd - turnStart > robbedTurnNanos) {
                    robbed = true; // the task is most likely due by now: the caller looks, and parks for what follows
                    break;
                }
            }
        } finally {
            lock.lock();
            endSpin(worker);
            if (robbed) {
                spinBackedOff = true;
                spinResumesAt = turnEnd + spinBackOffNanos;
            }
        }
    }

    /**
     * @return whether the leader may spin for a near deadline at {@code now}: not within the back-off after a robbed
     *     turn ({@link #SPIN_BACK_OFF_NANOS}); the lock is held
     */
    private boolean maySpin(long now) {
        if (spinBackedOff && now - spinResumesAt < 0) {
            return false;
        }
        spinBackedOff = false;
        return true;
    }

    /**
     * The step into a spin, under the lock: reads the arrivals' claims, looks at the arrivals as a worker does before it
     * waits ({@link #enterWait}), then makes the worker the leader and the spinner. A publisher claims its place, then
     * reads the count of waiting workers; here the count of claims is read first: a claim before that read is seen by
     * the look (and moved in), one after it changes the count the spinner watches.
     *
     * @return the count of claims to watch, or -1 if tasks arrived (the worker looks again, and does not spin)
     */
    private long beginSpin(Worker worker, long deadline) {
        long claims = arrivals.claimedCount();
        long published = publications; // as the claims: a publication before this read is seen by the look
        if (!enterWait()) {
            return -1;
        }
        waitingWorkers--; // not counted as waiting: it watches the arrivals itself
        lead(worker, deadline);
        spinner = worker;
        spinnerCalls = 0;
        publicationsAtSpin = published;
        return claims;
    }

    /**
     * Whether a task arrived since the spin began ({@code claims} as {@link #beginSpin} read them), the master
     * published a hand-over, or a task was queued for the spinner to look at; without the lock. One test, by
     * arithmetic (see {@link BranchFree}): in steady firing a spin ends by a publication or a call, never by an
     * arrival, which only a burst's first milliseconds bring (timers due within the straight reach). A test of its
     * own, compiled as a trap in those seconds, sent the spin back to the interpreter as the next burst began, in 4 of
     * 7 JVMs of the on-time harness's burst (one worker, JDK 17, {@code -XX:+LogCompilation}); with the arrivals' own
     * traps, a compiler thread then took 98 ms of the burst's first 150 to compile the worker's wait again.
     *
     * @return true if the spin must end
     */
    private boolean spinShouldEnd(long claims) {
        long arrived = arrivals.claimedCount() - claims; // claims only grow
        long publishedSince = publications - publicationsAtSpin;
        return (arrived | publishedSince | spinnerCalls) != 0;
    }

    /** The spin is over; the lock is held. */
    private void endSpin(Worker worker) {
        spinner = null;
        if (leader == worker) {
            resign();
        }
    }

    /**
     * Makes the worker, counted as waiting and past its look at the arrivals, the leader of the wait for
     * {@code deadline}; the lock is held. A publisher that sees the count but not yet this wake-up reads
     * {@link TimingWheel#NONE} and wakes a worker, as without a leader; one that sees it wakes nobody for a task due no
     * sooner, which the leader moves in as it wakes.
     */
    private void lead(Worker worker, long deadline) {
        leader = worker;
        leaderWakeUp = deadline;
    }

    /** No worker leads the wait for the first deadline any more; the lock is held. */
    private void resign() {
        leader = null;
        leaderWakeUp = TimingWheel.NONE;
    }

    /** Waits for the master to open the gate for {@code deadline}; the lock is held. */
    private void awaitGate(long deadline) {
        boolean open = gate.enterWait(deadline);
        try {
            if (!open && enterWait()) {
                try {
                    workAvailable.awaitUninterruptibly();
                } finally {
                    waitingWorkers--;
                }
            }
        } finally {
            gate.leaveWait();
        }
    }

    /**
     * The race step of {@link #enterWait}: raises the count of waiting workers, then reads the arrivals' claims; the
     * lock is held. @return true if there were none (the worker may wait; the count stays raised), false if there were
     * (the count is lowered again)
     */
    private boolean registerWaiting() {
        waitingWorkers++;
        if (arrivals.isEmpty() && published == null) {
            return true;
        }
        waitingWorkers--;
        return false;
    }

    /**
     * For the jcstress test of the arrivals against a worker's wait: the worker's step up to its wait, under the
     * lock. @return true if it would wait
     */
    boolean registerWaitingForStress() {
        lock.lock();
        try {
            return registerWaiting();
        } finally {
            lock.unlock();
        }
    }

    /**
     * For the jcstress test of the arrivals against a leader's wait: a worker's step up to leading the wait for
     * {@code deadline}, under the lock, as in {@link #awaitDeadline}. @return true if it would wait
     */
    boolean registerLeadingForStress(long deadline) {
        lock.lock();
        try {
            if (!registerWaiting()) {
                return false;
            }
            lead(new Worker(), deadline);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * For the jcstress test of the arrivals against a leader's spin: a worker's step into the spin for
     * {@code deadline}, under the lock, as in {@link #spinUntil}. @return the count of claims it watches, or -1 if it
     * would look again instead
     */
    long beginSpinForStress(long deadline) {
        lock.lock();
        try {
            return beginSpin(new Worker(), deadline);
        } finally {
            lock.unlock();
        }
    }

    /** For the same test: whether a spin begun with {@code claims} would end now (a look of its loop). */
    boolean spinShouldEndForStress(long claims) {
        return spinShouldEnd(claims);
    }

    /**
     * For the jcstress test of the master's published hand-over against a worker's take: a new worker's take, under
     * the lock, as in {@link #next}. @return the deadline of the task it took, or -1 if it took none
     */
    long takeForStress() {
        lock.lock();
        try {
            ScheduledTask<?> task = take(new Worker());
            return task == null ? -1 : task.deadline;
        } finally {
            lock.unlock();
        }
    }

    /** For the tests: whether tasks wait in the arrivals, not yet moved into the queue by a holder of the lock. */
    boolean holdsArrivals() {
        return !arrivals.isEmpty();
    }

    /** For the same test: whether a signalled worker is on its way, that is, a publisher woke one. */
    boolean wakeUpPendingForStress() {
        return wakeUpPending != 0;
    }

    // -- threads ----------------------------------------------------------------------------------------------------

    /** Starts a worker if fewer than the core size run (at least one), as the JDK does on every delayed schedule. */
    void prestart() {
        int core = Math.max(1, settings.corePoolSize);
        if (workerCount < core) {
            addWorker(core);
        }
    }

    /** @return true once as many workers run as the core size asks for */
    boolean isFullyStarted() {
        return workerCount >= Math.max(1, settings.corePoolSize);
    }

    /** @return true if a core thread was started, as {@code ThreadPoolExecutor.prestartCoreThread} */
    boolean prestartCoreThread() {
        return addWorker(settings.corePoolSize);
    }

    /**
     * The core size changed from {@code previous} to what the settings say now; workers start or retire as the JDK's
     * do: a larger size starts workers for the tasks that wait, up to {@code waiting} of them.
     */
    void coreSizeChanged(int previous, long waiting) {
        int size = settings.corePoolSize;
        keepAliveChanged(); // fewer core threads: the excess ones may retire now
        for (long k = Math.min((long) size - previous, waiting); k > 0; k--) {
            if (!addWorker(size)) {
                break;
            }
        }
    }

    /** The keep-alive settings changed: idle workers look again whether they may stay, and for how long. */
    void keepAliveChanged() {
        wakeAll();
    }

    /**
     * Starts one worker if fewer than {@code limit} exist. Never throws: a failing thread factory is reported and
     * leaves tasks waiting. @return true if a thread was started
     */
    private boolean addWorker(int limit) {
        lock.lock();
        try {
            if (closed || workerCount >= limit) {
                return false;
            }
            workerCount++;
        } finally {
            lock.unlock();
        }
        Worker worker = new Worker();
        try {
            Thread thread = settings.threadFactory.newThread(worker);
            if (thread != null && enlist(worker, thread)) {
                return true;
            }
            if (thread == null) {
                startFailed = true;
            }
        } catch (Throwable t) {
            startFailed = true;
            InternalFailures.report(executorName, "cannot start a worker thread", t);
        }
        lock.lock();
        try {
            workerCount--;
        } finally {
            lock.unlock();
        }
        return false;
    }

    /** Adds a worker and starts its thread, unless the pool has closed meanwhile. @return whether it started */
    private boolean enlist(Worker worker, Thread thread) {
        worker.thread = thread;
        worker.progress = new StallWatch.Progress(thread);
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            workers.add(worker);
            stallWatch.add(worker.progress);
            try {
                thread.start();
            } catch (Throwable t) {
                workers.remove(worker);
                stallWatch.remove(worker.progress);
                throw t;
            }
            runs.largest = Math.max(runs.largest, workers.size());
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Takes a leaving worker out of the pool; the lock is held. The last to leave a closed pool reports it. */
    private void retire(Worker worker) {
        workers.remove(worker);
        stallWatch.remove(worker.progress);
        workerCount--;
        worker.lateness.addTo(retiredLateness);
        worker.lastToLeave = closed && workers.isEmpty();
    }

    /** A worker's thread dies of what a hook threw in a run: books that run, and replaces the worker unless closed. */
    private void replaceDead(Worker worker) {
        boolean replace;
        lock.lock();
        try {
            bookRun(false);
            if (worker.handSize > 0) {
                settleHand(worker); // never: a hand follows only a task that runs directly, and such a run never throws
            }
            retire(worker);
            replace = !closed;
        } finally {
            lock.unlock();
        }
        if (replace) {
            addWorker(Math.max(1, settings.corePoolSize));
        }
    }

    @Override
    int poolSize() {
        lock.lock();
        try {
            return workers.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    int largestPoolSize() {
        lock.lock();
        try {
            return runs.largest;
        } finally {
            lock.unlock();
        }
    }

    @Override
    int activeCount() {
        lock.lock();
        try {
            return runs.active;
        } finally {
            lock.unlock();
        }
    }

    @Override
    long completedCount() {
        lock.lock();
        try {
            return runs.completed;
        } finally {
            lock.unlock();
        }
    }

    @Override
    Figures figures() {
        lock.lock();
        try {
            long[] lateness = retiredLateness.clone();
            for (Worker w : workers) {
                w.lateness.addTo(lateness);
            }
            return new Figures(runs.active, runs.completed, runs.failed, lateness);
        } finally {
            lock.unlock();
        }
    }

    // -- queries and shutdown ---------------------------------------------------------------------------------------

    /** @return true if tasks wait here but no worker exists to run them (thread creation has been failing) */
    boolean isStarved() {
        // The common case, without the lock; the failure is asked first: a fresh pool has no worker for a moment, and a
        // test of the count first would be a branch that only a fresh pool takes, which the JIT compiles as a trap
        // (see PoolControls.prestartWorkers) in the master's turn, compiled again for each new executor.
        if (!startFailed || workerCount > 0) {
            return false;
        }
        lock.lock();
        try {
            absorbArrivals();
            return !due.isEmpty() && workerCount == 0 && !closed;
        } finally {
            lock.unlock();
        }
    }

    @Override
    void applyShutdownPolicies() {
        List<ScheduledTask<?>> dropped = new ArrayList<>();
        lock.lock();
        try {
            absorbArrivals();
            forEachInHand(task -> {
                if (!host.keptAfterShutdown(task)) {
                    dropped.add(task);
                }
            });
            due.removeIf(task -> !host.keptAfterShutdown(task), dropped::add);
        } finally {
            lock.unlock();
        }
        for (ScheduledTask<?> task : dropped) {
            task.cancelIfPending();
        }
    }

    @Override
    void drainUnstartedTo(List<ScheduledTask<?>> sink) {
        lock.lock();
        try {
            absorbEveryClaim();
            forEachInHand(task -> {
                if (task.markReturned()) {
                    sink.add(task);
                }
            });
            for (ScheduledTask<?> task; (task = due.poll()) != null; ) {
                if (task.markReturned()) {
                    sink.add(task);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Moves in every task whose publisher has claimed its place in the arrivals, waiting for those still being written;
     * the lock is held, and let go of while it waits. For shutdownNow's drain: a publisher that claimed its place and
     * read the executor running before the stop counts its task accepted, and a claim still being written ahead of it
     * stops {@link #absorbArrivals} there; a drain that looked once left such a task queued behind the gap, neither
     * returned nor run, and the executor never terminated (one run in about a thousand of the conformance test with
     * two producers, {@code ShutdownTest.everyTaskEndsExactlyOnceUnderConcurrentShutdownNow}). It ends: publishers
     * check the run state before they claim, so once the stop is seen no new claims come, and each claim is written a
     * few instructions after it is made (later if its publisher was preempted there: the lock is let go of meanwhile).
     */
    private void absorbEveryClaim() {
        absorbArrivals();
        for (int spins = 0; !arrivals.isEmpty(); spins++) {
            if (spins < ARRIVAL_GAP_SPINS) {
                Thread.onSpinWait(); // the publisher is between its claim and its write
            } else {
                lock.unlock();
                try {
                    LockSupport.parkNanos(this, ARRIVAL_GAP_WAIT_NANOS); // it was preempted there
                } finally {
                    lock.lock();
                }
            }
            absorbArrivals();
        }
    }

    @Override
    int takeDue(int max, List<ScheduledTask<?>> sink) {
        int taken = 0;
        lock.lock();
        try {
            absorbArrivals();
            long now = host.now();
            Worker holder = handHolder; // a hand holds the first due tasks, in order
            for (int i = 0; holder != null && i < holder.handSize && taken < max; i++) {
                ScheduledTask<?> task = holder.hand[i];
                if (task.deadline <= now && task.markReturned()) {
                    sink.add(task);
                    taken++;
                }
            }
            while (taken < max && !due.isEmpty() && due.peekDeadline() <= now) {
                ScheduledTask<?> task = due.poll();
                if (task.markReturned()) {
                    sink.add(task);
                    taken++;
                }
            }
        } finally {
            lock.unlock();
        }
        return taken;
    }

    @Override
    void copyWaitingTo(List<ScheduledTask<?>> sink) {
        lock.lock();
        try {
            absorbArrivals();
            forEachInHand(sink::add);
            due.copyPendingTo(sink);
        } finally {
            lock.unlock();
        }
    }

    @Override
    boolean deadlineWaitOverdue(LongSupplier clock, long toleranceNanos) {
        long wakeUp = leaderWakeUp;
        return wakeUp != TimingWheel.NONE && clock.getAsLong() - wakeUp > toleranceNanos;
    }

    @Override
    boolean publisherGivesWay(long now) {
        if (stallWatch.lookDue(now) && waitingWorkers == 0 && stallWatch.held(now)) {
            LockSupport.parkNanos(this, StallWatch.PAUSE_NANOS);
            return true;
        }
        long wakeUp = leaderWakeUp;
        if (wakeUp != TimingWheel.NONE && now - wakeUp > MasterLoop.GIVE_WAY_AFTER_NANOS
                && now - publisherGaveWayAt > PUBLISHER_GIVE_WAY_EVERY_NANOS) {
            publisherGaveWayAt = now;
            Thread.yield();
            return true;
        }
        return false;
    }

    @Override
    long firstWaitingDeadline() {
        lock.lock();
        try {
            absorbArrivals();
            long first = due.isEmpty() ? TimingWheel.NONE : due.peekDeadline();
            ScheduledTask<?> firstInHand = firstPendingInHand();
            return firstInHand == null ? first : Math.min(first, firstInHand.deadline);
        } finally {
            lock.unlock();
        }
    }

    @Override
    int waitingCount() {
        lock.lock();
        try {
            absorbArrivals();
            List<ScheduledTask<?>> inHand = new ArrayList<>();
            forEachInHand(inHand::add);
            return due.pendingCount() + inHand.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    long idleRunsEnded(Thread advancing) {
        lock.lock();
        try {
            absorbArrivals();
            boolean advancingRunsHere = runsOnWorker(advancing);
            boolean othersIdle = runs.active == (advancingRunsHere ? 1 : 0) && arrivals.isEmpty() && published == null;
            // Due tasks wait only because no one else can take them when every worker (alive or being started) is
            // running a task, the advancing one among them; a worker that is waiting, starting or between runs will.
            boolean nothingWaits = !due.hasPending() || advancingRunsHere && workerCount <= runs.active;
            return othersIdle && nothingWaits ? runs.completed : -1; // an idle worker has settled its hand (see next)
        } finally {
            lock.unlock();
        }
    }

    /** @return true if {@code thread} is one of the workers (so it is running a task or a hook); the lock is held */
    private boolean runsOnWorker(Thread thread) {
        for (Worker w : workers) {
            if (w.thread == thread) {
                return true;
            }
        }
        return false;
    }

    @Override
    void copyRunningTo(List<ScheduledTask<?>> sink) {
        lock.lock();
        try {
            for (Worker w : workers) {
                ScheduledTask<?> task = w.progress.running; // written by its worker without the lock: a description
                if (task != null) {
                    sink.add(task);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    void interruptWorkers() {
        List<Thread> threads = new ArrayList<>();
        lock.lock();
        try {
            for (Worker w : workers) {
                threads.add(w.thread);
            }
        } finally {
            lock.unlock();
        }
        for (Thread t : threads) {
            try {
                t.interrupt();
            } catch (SecurityException ignore) {
                // as ThreadPoolExecutor: a thread we may not interrupt keeps running its task
            }
        }
    }

    @Override
    Closing close(BooleanSupplier masterStillEmpty) {
        lock.lock();
        try {
            absorbArrivals();
            if (closed) {
                return Closing.ALREADY_CLOSED;
            }
            if (runs.active != 0 || due.hasPending() || !masterStillEmpty.getAsBoolean()) {
                return Closing.BUSY;
            }
            closed = true;
            if (!arrivals.isEmpty() || published != null) {
                // A publisher claimed a place since the look above and may not see closed: its task was accepted.
                // (Claim, then read closed; write closed, then read the claims: one of the two sees the other.) It asks
                // for the decision again once it has found the executor shut down (ExecutorCore.accept).
                closed = false;
                return Closing.BUSY;
            }
            due.clear(); // what is left are stragglers that left NEW: taken back, cancelled, returned
            workAvailable.signalAll(); // the waiting workers leave now
            if (spinner != null) {
                spinnerCalls = 1; // and a spinning one
            }
            return workers.isEmpty() ? Closing.NO_THREADS_LEFT : Closing.THREADS_LEAVING;
        } finally {
            lock.unlock();
        }
    }

    /** A worker thread's loop: take a task, run it, until the pool no longer needs the thread. */
    private final class Worker implements Runnable {
        Thread thread;

        /**
         * The executor's time as this worker read it last: a task due by then is due now (the clock never goes back),
         * so a worker with a backlog of due tasks reads the clock once per task it cannot settle so, not once per task.
         */
        long timeSeen = Long.MIN_VALUE;

        /** Whether the task that {@code next} returned last was claimed for this thread. */
        boolean claimed;

        /**
         * The runs it started and the task it runs now, if any ({@link StallWatch}): the task names it when a virtual
         * clock gives up waiting for it. Made as the worker enlists; plain writes, read by others without order.
         */
        StallWatch.Progress progress;

        /** The form in which it runs (see {@link TaskRunner#userTask}), taken before the claim. */
        Runnable userTask;

        /** Whether it runs without hooks or decoration (see {@link TaskRunner#runsDirectly}). */
        boolean direct;

        /**
         * The due tasks taken behind that one, pending until each is claimed as it starts (see "The lone worker's
         * hand" in the class comment): filled and emptied by this worker under the lock, read by others under it.
         */
        final ScheduledTask<?>[] hand = new ScheduledTask<?>[HAND_CAPACITY];
        int handSize;

        /** Where the hand's runs stand: the tasks before it have started (or were cancelled, or left to the drain). */
        int handNext;

        /** The hand's runs since it was filled, and how many of them failed: booked when it is emptied. */
        int handRan;
        int handFailed;

        /** Set when this worker is the last to leave a closed pool: it then reports that the threads are gone. */
        boolean lastToLeave;

        /** The lateness of this worker's runs; only this worker writes it. */
        final LatenessHistogram lateness = LatenessHistogram.forOneThread();

        /** Whether this worker has run a task, and whether its last run failed: booked by its next {@code next}. */
        boolean ranOne;
        boolean runFailed;

        /**
         * The thread's loop, in calls of {@value WorkerPool#RUNS_PER_CALL} tasks. The JIT compiles a method when it is
         * called often or when its loop turns often; a loop that a thread enters once (this one) only the second way,
         * by on-stack replacement, which in a pool with tens of thousands of runs a second came seconds late, in the
         * measured windows of the on-time harness, and in one large piece with everything the loop's body inlines (JDK
         * 25, {@code -XX:+PrintCompilation}: 17-25 ms of a compiler thread there). The work is in {@link #runSome},
         * called and turning often from the first burst on, so it is compiled then; this loop turns once per
         * {@value WorkerPool#RUNS_PER_CALL} tasks, too rarely to be compiled again on its own.
         */
        @Override
        public void run() {
            try {
                while (runSome()) {
                    // each call took and ran RUNS_PER_CALL tasks
                }
            } finally {
                if (lastToLeave) {
                    host.threadsGone();
                }
            }
        }

        /** Takes and runs up to {@value WorkerPool#RUNS_PER_CALL} tasks. @return false if the worker must leave */
        private boolean runSome() {
            for (int i = 0; i < RUNS_PER_CALL; i++) {
                if (!runNext()) {
                    return false;
                }
            }
            return true;
        }

        /**
         * Runs the hand's next task, if it holds one; otherwise takes the next task (booking the runs before) and runs
         * it. A hand's tasks run here, one per call, not in a loop of their own: a loop that only a filled hand
         * entered reached the JIT's top tier late, bursts after the rest of the path (its compilation fell in the
         * on-time harness's measured burst), where this method is compiled with the hand's path as soon as any run's.
         *
         * @return false if the worker must leave
         */
        private boolean runNext() {
            try {
                if (handNext < handSize) {
                    runFromHand();
                    return true;
                }
                ScheduledTask<?> task = next(this, ranOne, runFailed);
                if (task == null) {
                    return false;
                }
                ranOne = true;
                runFailed = runOne(task);
            } catch (Throwable death) {
                replaceDead(this); // a hook or a decoration threw: the thread dies of it, as in the JDK
                throw death;
            }
            return true;
        }

        /** Runs a task that next() returned. @return whether the run failed */
        private boolean runOne(ScheduledTask<?> task) {
            Runnable form = userTask;
            userTask = null; // not kept alive past its run
            if (!claimed) {
                task.cancelIfPending(); // the shutdown policies forbid it to run (or it was not pending any more)
                return false;
            }
            return runClaimed(task, form, direct);
        }

        /** Runs a task this thread has claimed. @return whether the run failed */
        private boolean runClaimed(ScheduledTask<?> task, Runnable userTask, boolean runsDirectly) {
            // An interrupt meant for an earlier task (or a stray one) must not reach this task, unless the executor is
            // stopping, in which case it must. Clear first, then look: a shutdownNow that comes after the look
            // interrupts this thread itself, one that came before it is seen.
            Thread.interrupted();
            if (host.isStopping()) {
                thread.interrupt();
            }
            progress.running = task;
            progress.started++;
            runner.run(task, userTask, runsDirectly, thread, lateness);
            progress.running = null;
            return task.isFailed();
        }

        /**
         * Starts the hand's next task, claimed as it starts. One that may not run any more is cancelled, as
         * {@link #runOne} does; once the executor stops, the rest stays pending in the hand for shutdownNow's drain.
         */
        private void runFromHand() {
            ScheduledTask<?> task = hand[handNext++];
            boolean mayRun = host.mayRun(task);
            if (!mayRun && host.isStopping()) {
                handNext = handSize; // this one and the rest are the drain's
                return;
            }
            if (!mayRun || !TaskRunner.claim(task, true)) {
                task.cancelIfPending(); // the shutdown policies forbid it to run (or it was not pending any more)
                return;
            }
            handRan++;
            if (runClaimed(task, task, true)) {
                handFailed++;
            }
        }
    }

    /**
     * The pool's counts of runs, guarded by its lock. A worker writes them at every run; publishers read the pool's
     * other fields (closed, the waiting workers, the worker count) at every task without the lock, so these live on
     * cache lines of their own: beside them, each run would take those fields' line from the publishers' cores.
     */
    private static final class RunCounts extends RunCountsFields {
        long q0, q1, q2, q3, q4, q5, q6, q7; // after the counts: a subclass's fields come after its superclass's
    }

    /** The counts themselves, between the two paddings (within one class the JVM orders fields by size). */
    private abstract static class RunCountsFields extends RunCountsPadding {
        int active;
        int largest;
        long completed;
        long failed;
    }

    /** Padding before the counts. */
    private abstract static class RunCountsPadding {
        long p0, p1, p2, p3, p4, p5, p6, p7;
    }
}
