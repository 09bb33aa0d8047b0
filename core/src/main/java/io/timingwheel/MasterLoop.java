package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongPredicate;

/**
 * The master thread: the only owner of the {@link TimingWheel}. It drains the inbox (new tasks, periodic tasks due
 * again, cancelled tasks to unlink) into the wheel, runs commands (the shutdown policies, snapshots, getQueue's
 * operations), hands tasks to the {@link Dispatcher} in deadline order as they fall due (or a little ahead, where the
 * dispatcher's workers wait for the deadlines themselves), opens the {@link OrderGate}, decides on termination once
 * shut down, and sleeps until it must hand over again. It reaches the executor only through its {@link MasterHost}.
 * With a virtual clock, a step of the clock may do a turn's work on another thread ({@link #stepIfIdle}); the master
 * thread and that thread then hold the {@link #turnLock} for it, and what this class calls "master only" means the
 * lock's holder.
 *
 * <h2>A turn</h2>
 * It reads the clock, announces how far it will open the gate, marks the inbox and drains what was offered before the
 * mark: never more, so a burst of schedules that keeps the inbox full does not keep the master from handing over what
 * falls due meanwhile (it drains a burst a turn's worth at a time, and hands over between). Then it hands over the
 * tasks due within the dispatcher's hand-over time and opens the gate
 * (see {@link OrderGate} for why the mark makes that safe).
 *
 * <h2>Sleeping and waking</h2>
 * Producers never unpark the master for work that can wait; that would cost more than the schedule itself.
 * <ul>
 *   <li>The master's sleep is the gate's state ({@link OrderGate}): before parking it announces the first deadline it
 *       holds, looks at its inbox and commands once more, and confirms; a producer whose task is due before the
 *       announced deadline lowers the gate to it, and the one that finds the master asleep unparks it. So no wake-up
 *       is lost, and one producer per sleep unparks.</li>
 *   <li>It parks until {@link #leadNanos} before that deadline when the dispatcher's workers wait for deadlines
 *       themselves: it hands the tasks over ahead of time, so its own wake-up is off the timers' path. A worker about
 *       to wait wakes it early, if that park is to end soon ({@link #turnEarlyIfPlannedBy}): its turn then runs while
 *       the worker sleeps, not as the worker wakes. While a worker is due to run, the master puts its turn off,
 *       within what its hand-overs and the order gate allow ({@link #putOffTurn}), until the first of them is about
 *       to wait; in a long drain it yields once per turn to a leader kept from its core ({@link #giveWayToLeader}).</li>
 *   <li>Work that can wait (a far deadline, a cancellation) is drained at the next wake-up, but a master in a long
 *       sleep (the gate's state says so: {@link OrderGate.Horizon#deep}) is woken once for it, so cancelled tasks never wait for a far deadline to become
 *       garbage. After draining such work the master looks again within {@code lazyWakeNanos} instead of sleeping
 *       deeply, so a steady stream of schedules costs one wake-up per interval, not one per schedule.</li>
 * </ul>
 * With nothing pending the master parks without a timeout: an idle executor costs no CPU.
 */
final class MasterLoop implements Runnable, Lifecycle.Master {
    /** How long the master naps while producers keep the inbox busy; bounds the lateness it may add then. */
    private static final long BUSY_NAP_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

    /** Tasks a long drain takes between two hand-overs (see {@link #drainMarked}): some tens of microseconds. */
    private static final int HAND_OVER_EVERY = 512;

    /** Tasks a drain takes between two looks at whether the leader is overdue (see {@link #giveWayToLeader}). */
    private static final int GIVE_WAY_LOOK_EVERY = 64;

    /** How often the master retries to start a worker while due tasks wait and no worker could be started. */
    private static final long WORKER_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final String executorName;
    private final MasterHost host;

    private final TimingWheel<ScheduledTask<?>> wheel;
    private final Dispatcher dispatcher;
    private final OrderGate gate;
    private final StripedInbox<ScheduledTask<?>> inbox =
            new StripedInbox<>(Runtime.getRuntime().availableProcessors());
    private final ConcurrentLinkedQueue<Command<?>> commands = new ConcurrentLinkedQueue<>();

    /**
     * Set by a thread after it posts a command, cleared by the master before it polls them: the master's looks at
     * every turn and before each sleep read this one field. Commands are rare (shutdown, getQueue's operations,
     * snapshots), and the queue's own poll and isEmpty, each a walk with several volatile reads, were half of what the
     * JIT compiled into the master's turn (C2 inlined them at four places: 3,100 of its 5,900 bytes).
     */
    private volatile boolean commandsPosted;
    private final long lazyWakeNanos;

    /** How far ahead the master hands tasks over ({@link WorkerPool#HAND_OVER_AHEAD_NANOS}; 0 for an external executor). */
    private final long handOverAheadNanos;

    /** How far ahead publishers hand tasks straight to the dispatcher ({@link WorkerPool#STRAIGHT_REACH_NANOS}, or 0). */
    private final long straightReachNanos;

    /**
     * How long before the first deadline it holds the master wakes: nine tenths of the hand-over time. So each wake-up
     * hands over about a tenth of it (a millisecond of timers, for the own pool: small batches, the workers' lock held
     * briefly), and a master that wakes up to the lead late still hands them over in time. Zero for an external
     * executor, which is handed only due tasks.
     */
    private final long leadNanos;

    /**
     * How long at most the master puts its turn off while every worker is busy ({@link #putOffTurn}): half the time
     * between a task's coming to the inbox (at least the straight reach before its deadline) and its hand-over (the
     * hand-over time before it), so that the put-off turn has the other half for its work. Zero (never) where there is
     * no such time: an external executor, a virtual clock.
     */
    private final long putOffLimitNanos;

    /** When the master's last turn began (not put off); its start, before the first. Master only. */
    private long lastTurnAt;

    /**
     * Whether {@link #handDue} handed tasks over since a step of a virtual clock last cleared it
     * ({@link #stepIfIdle}): a long drain hands over on its way too. Master only.
     */
    private boolean handedOver;

    /** Whether the master gave way to an overdue leader in this turn ({@link #giveWayToLeader}). Master only. */
    private boolean gaveWayThisTurn;

    /**
     * With a virtual clock: the master sleeps until woken, never for a time, since no amount of real time brings a
     * deadline nearer; the clock's look at the executor ({@link #settled}) wakes it after each step.
     */
    private final boolean sleepsUntilWoken;

    /**
     * With a virtual clock: held by whichever thread does the master's work, the master thread for its turns and
     * commands, or a thread of the executor that steps the clock ({@link #stepIfIdle}); null in real time, where only
     * the master thread does it and nothing is locked.
     */
    private final ReentrantLock turnLock;

    /** The user's factory for the master thread, or null; the default one is the fallback. */
    private final ThreadFactory threadFactory;

    private volatile Thread thread;

    /** Set when the master thread has left its loop for good; commands posted later never run. */
    private volatile boolean exited;

    /** Whether the wheel held tasks at the master's last turn: a cheap hint for other threads. */
    private volatile boolean holdsTimers;

    /**
     * When the master's timed park ends, while it is parked for its next turn (its start, while it puts a turn off: see
     * {@link #putOffTurn}); {@link TimingWheel#NONE} otherwise. A worker about to wait reads it to start that turn
     * early ({@link #turnEarlyIfPlannedBy}).
     */
    private volatile long plannedTurn = TimingWheel.NONE;

    private static final VarHandle PLANNED_TURN;

    static {
        try {
            PLANNED_TURN = MethodHandles.lookup().findVarHandle(MasterLoop.class, "plannedTurn", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Tasks collected by one advance, handed to the dispatcher in one batch. */
    private final HandOver handOver;

    /**
     * A time before which no task claimed after the last mark the master has drained up to is due, unless its
     * publisher lowered the gate's floor: the least time announced since that mark's announcement (see
     * {@link OrderGate#open}). Master only.
     */
    private long drainedBound = TimingWheel.NONE;

    /** The gate's count of lowerings at that announcement. Master only. */
    private long drainedLowerings;

    /**
     * @param handOverAheadNanos how far ahead of their deadlines tasks are handed to the dispatcher
     * @param straightReachNanos how far ahead of its deadline a publisher hands a task to the dispatcher itself
     */
    MasterLoop(String executorName, MasterHost host, TimingWheel<ScheduledTask<?>> wheel, Dispatcher dispatcher,
               OrderGate gate, long handOverAheadNanos, long straightReachNanos, long lazyWakeNanos,
               boolean sleepsUntilWoken, ThreadFactory threadFactory) {
        this.executorName = executorName;
        this.host = host;
        this.wheel = wheel;
        this.dispatcher = dispatcher;
        this.gate = gate;
        this.lazyWakeNanos = lazyWakeNanos;
        this.handOverAheadNanos = handOverAheadNanos;
        this.straightReachNanos = straightReachNanos;
        this.handOver = new HandOver(gate);
        this.leadNanos = handOverAheadNanos - handOverAheadNanos / 10;
        this.putOffLimitNanos = Math.max(0, straightReachNanos - handOverAheadNanos) / 2;
        this.sleepsUntilWoken = sleepsUntilWoken;
        this.turnLock = sleepsUntilWoken ? new ReentrantLock() : null;
        this.threadFactory = threadFactory;
    }

    /**
     * Starts the master thread: the user's factory first, if any; whatever goes wrong with its thread (null, a throw
     * from newThread or from start), the default factory next, for the master must run. Called once, by
     * {@link Lifecycle#startMaster}. @return false if no thread could be started
     */
    @Override
    public boolean startThread() {
        if (threadFactory != null && tryStart(threadFactory, "the master thread factory failed")) {
            return true;
        }
        // String.concat, not +: see NamedThreadFactory.newThread
        return tryStart(new NamedThreadFactory(executorName.concat("-master"), true, false),
                "cannot start the master thread");
    }

    private boolean tryStart(ThreadFactory factory, String failure) {
        try {
            Thread t = factory.newThread(this);
            if (t == null) {
                InternalFailures.report(executorName, failure, new NullPointerException("the factory returned null"));
                return false;
            }
            thread = t;
            t.start();
            return true;
        } catch (Throwable e) {
            InternalFailures.report(executorName, failure, e);
            return false;
        }
    }

    /** @return the order gate, which is also the master's sleep word */
    OrderGate gate() {
        return gate;
    }

    /** @return the producers' inbox (for the tests) */
    StripedInbox<ScheduledTask<?>> inbox() {
        return inbox;
    }

    @Override
    public boolean isMasterThread() {
        return Thread.currentThread() == thread;
    }

    /** The inbox and the wheel are empty; master thread only (the termination decision asks it, see Lifecycle). */
    @Override
    public boolean holdsNothing() {
        return wheel.size() == 0 && inbox.isEmpty();
    }

    /** @return true if the wheel held tasks at the master's last turn */
    boolean holdsTimers() {
        return holdsTimers;
    }

    // -- producer side ----------------------------------------------------------------------------------------------

    /** Publishes a task whose deadline is in the future (any thread). */
    void submit(ScheduledTask<?> task) {
        inbox.offer(task);
        if (gate.published(task.deadline)) {
            LockSupport.unpark(thread);
        }
    }

    /**
     * Publishes work that can wait a little: a task that left NEW while linked into the wheel, for the master to
     * unlink (any thread).
     */
    void postUnlink(ScheduledTask<?> task) {
        inbox.offer(task);
        if (gate.wakeFromDeepSleep()) {
            LockSupport.unpark(thread);
        }
    }

    /** Wakes the master at once, e.g. to decide on termination (any thread). */
    @Override
    public void wake() {
        gate.wakeMaster(); // a sleep being confirmed now fails; one confirmed is over
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /**
     * Wakes the master now if its next turn is planned by {@code time}. A worker about to wait for a deadline calls
     * it, so that the master's turn, tens of microseconds of the wheel's work (sorting the slot of the millisecond it
     * hands over waits for memory), runs while that worker sleeps, not as it wakes for its next timer. On two cores,
     * a worker that woke while the master's turn ran was late by 90 µs at p90 and 209 µs at p99, against 80 and 100
     * otherwise; one wake-up in nine met a turn so ({@code OnTimeHarness}'s burst, timers due 60-250 ms in). A turn
     * taken early only hands over a little sooner: the master plans its turns {@link #leadNanos} ahead. At most one
     * caller wakes the master for a planned turn; a wake-up that crosses the master's own is one turn more.
     * Measured: docs/design.md, the ablation's "early turn off" (the heartbeat on JDK 17, the burst's second band on
     * JDK 25).
     */
    void turnEarlyIfPlannedBy(long time) {
        long planned = plannedTurn;
        if (planned <= time && PLANNED_TURN.compareAndSet(this, planned, TimingWheel.NONE)) {
            LockSupport.unpark(thread);
        }
    }

    /** @return when the master's park for its next turn ends, {@link TimingWheel#NONE} if it is not so parked */
    long plannedTurn() {
        return plannedTurn;
    }

    // -- master thread ----------------------------------------------------------------------------------------------

    @Override
    public void run() {
        lastTurnAt = host.now(); // a put-off is bounded from here: the clock's readings may start anywhere
        try {
            for (;;) {
                lockTurn();
                try {
                    if (turn()) {
                        return;
                    }
                } catch (Throwable t) {
                    // The master must never die: whatever went wrong was one task's business, not the loop's.
                    InternalFailures.report(executorName, "master loop", t);
                } finally {
                    unlockTurn();
                }
            }
        } finally {
            holdsTimers = false;
            exited = true;
            for (Command<?> c; (c = commands.poll()) != null; ) {
                c.skip();
            }
        }
    }

    /** One turn of the loop. @return true when the executor has terminated and the master leaves */
    private boolean turn() {
        // The master has nothing interruptible; an interrupt from user code would only make every park return at
        // once and turn the loop into a spin.
        Thread.interrupted();
        runCommands();
        long now = host.now();
        if (putOffTurn(now)) {
            return false;
        }
        lastTurnAt = now;
        gaveWayThisTurn = false;
        boolean drained = drainAndHandOver(now);
        if (host.isShutdown() && holdsNothing() && host.tryTerminate()) {
            return true;
        }
        boolean starved = host.workersStarved();
        if (starved) {
            host.retryWorkerStart(); // the thread factory failed before; try again, at most once per retry interval
            starved = host.workersStarved();
        }
        sleep(now, drained, starved);
        return false;
    }

    /**
     * Puts the turn off while a worker of the own pool is due to run (every worker busy, or the leader's wait for a
     * deadline ended: {@link MasterHost#workerDue}), so that the master's work does not take a core from it (on a
     * machine with as few cores as busy threads, a burst of schedules or a cold JVM's compiler threads leave none to
     * spare): the first worker that is about to wait makes the master turn at once ({@link #turnEarlyIfPlannedBy}).
     * Never past the hand-over of the first deadline the master holds, nor longer than {@link #putOffLimitNanos}
     * after its last turn, within which the tasks of the inbox, due the straight reach after they came or later, are
     * still taken in and handed over in time, and the order gate still opens for the tasks due now. Measured:
     * docs/design.md, the ablation's "put-off turn off" (JDK 25: p99 at 10 timers per ms). Master thread only.
     *
     * @return whether the turn was put off (the master parked meanwhile)
     */
    private boolean putOffTurn(long now) {
        if (putOffLimitNanos == 0 || commandsPosted || !host.workerDue()) {
            return false;
        }
        long first = wheel.nextDeadlineBound();
        long until = lastTurnAt + putOffLimitNanos;
        if (first != TimingWheel.NONE) {
            until = Math.min(until, first - leadNanos);
        }
        if (until - now <= 0) {
            return false;
        }
        plannedTurn = now; // before the park: a worker about to wait turns it at once
        LockSupport.parkNanos(this, until - now);
        plannedTurn = TimingWheel.NONE;
        return true;
    }

    /**
     * The work of a turn, {@code now} being the time at its start: announces, marks the inbox, drains up to the mark
     * (handing over as it goes), hands over what falls due within the hand-over time, opens the gate. Master thread
     * only. @return whether anything was drained
     */
    boolean drainAndHandOver(long now) {
        // Before the mark: see OrderGate. A task published later and due before this went straight to the
        // dispatcher, unless its publisher was slow; then it lowers the gate's floor.
        OrderGate.Horizon announced = announce(now + straightReachNanos + 1);
        inbox.mark();
        boolean drained = drainMarked();
        if (inbox.reachedMark()) {
            drainedUpTo(announced); // a drain stops short of its mark only at a producer between its claim and write
        }
        handDue(host.now() + handOverAheadNanos);
        return drained;
    }

    /**
     * A virtual clock's steps, on the thread that steps it (see {@link VirtualClock}), while the dispatcher is idle (no
     * run, no due task waiting): the master's turn at the clock's time, done here instead of on the master thread,
     * which sleeps on; then, while nothing was handed over, a move of time to the first deadline the wheel holds, if
     * {@code moveTimeTo} takes it, and a turn there. The master's gate is left awake, so that what the steps' runs
     * publish wakes nobody (the next step drains it); the clock wakes the master once the advance is over
     * ({@link #wake}), and its turn puts the gate back to sleep.
     *
     * @param callerTakesOne whether the caller is a worker that takes a task it hands over itself: one worker fewer
     *     is woken for them
     * @param mayWait whether the caller may wait for the master's lock (false: a worker that holds its pool's lock)
     * @param moveTimeTo moves the clock's time to the deadline it is given and returns true, or returns false if
     *     that deadline is beyond the advance
     * @return {@link VirtualClock#STEP_NOT_IDLE} if the dispatcher is not idle; {@link VirtualClock#STEP_HANDED_OVER}
     *     if tasks due were handed over; {@link VirtualClock#STEP_WOULD_WAIT} if the caller may not wait and the lock
     *     was held; otherwise the first deadline bound the wheel holds, which
     *     {@code moveTimeTo} refused ({@link TimingWheel#NONE} if none, or if the executor stops)
     */
    long stepIfIdle(boolean callerTakesOne, boolean mayWait, LongPredicate moveTimeTo) {
        if (mayWait) {
            turnLock.lock();
        } else if (!turnLock.tryLock()) {
            return VirtualClock.STEP_WOULD_WAIT; // the master thread turns: the caller steps the waiting way
        }
        try {
            // Under the lock: a turn of the master thread between this look and the hand-over below could hand over
            // what falls due now, and leave this step finding nothing due, while the tasks it handed over wait to run.
            if (dispatcher.idleRunsEnded(null) < 0) {
                return VirtualClock.STEP_NOT_IDLE;
            }
            for (;;) {
                if (exited) {
                    return TimingWheel.NONE;
                }
                handOver.callerTakesOne(callerTakesOne);
                handedOver = false;
                if (!callerTakesOne || !stepTurn(host.now())) {
                    drainAndHandOver(host.now());
                }
                if (handedOver) {
                    return VirtualClock.STEP_HANDED_OVER;
                }
                if (host.isShutdown()) {
                    wake(); // the termination decision is the master thread's
                }
                // Nothing handed over, the master kept out: still idle, so time may move to the first deadline.
                long first = host.isStopping() ? TimingWheel.NONE : wheel.nextDeadlineBound();
                if (!moveTimeTo.test(first)) {
                    return first;
                }
            }
        } finally {
            handOver.callerTakesOne(false);
            turnLock.unlock();
        }
    }

    /**
     * A step's turn for a worker that steps ({@link #stepIfIdle}), where it is cheapest: the whole inbox drained into
     * the wheel, and the one task due now, if one alone is, given to the worker ({@link Dispatcher#giveToStepper}),
     * with no announcement and no opening of the gate: nothing waits in the dispatcher, and time moves only in a step,
     * so no task can be handed over ahead of it. What the gate keeps in order is only what the dispatcher queues; its
     * full turn ({@link #drainAndHandOver}) comes when it does: when none or several are due, the task is refused,
     * and at the next look of the master, which a worker blocked at the gate makes at once
     * ({@link #turnForVirtualTime}). Master only.
     *
     * @return whether the turn was done here: a task was given, or none is due; false if the full turn must be done
     */
    private boolean stepTurn(long now) {
        gate.keepAwake(); // as a full turn's announcement does: the runs' re-arms must not wake the master thread
        drainInbox();
        if (host.isStopping() || now < wheel.nextDeadlineBound()) {
            holdsTimers = wheel.size() > 0;
            return !host.isStopping();
        }
        wheel.advance(now, handOver);
        int due = handOver.size(); // a cancelled task is left out
        if (due == 1 && dispatcher.giveToStepper(handOver.task(0))) {
            handOver.clear();
            handedOver = true;
        }
        holdsTimers = wheel.size() > 0;
        return due == 0 || handedOver; // else the full turn hands over what the wheel gave up, with the rest
    }

    /**
     * The master's turn at the clock's time, on a worker of the own pool that found a due task held at the gate while
     * its workers step a virtual clock ({@link #stepTurn} opened none): the turn drains, hands over and opens the gate
     * as the master thread's own turn would, under the same lock; it moves no time. Any thread.
     */
    void turnForVirtualTime() {
        turnLock.lock();
        try {
            if (!exited) {
                drainAndHandOver(host.now());
            }
        } finally {
            turnLock.unlock();
        }
    }

    /**
     * The master's turn and its sleep once an advance that its workers stepped is over ({@link #stepIfIdle}), done on
     * the thread that ends the advance, under the {@link #turnLock}, while the master thread stays parked: waking it
     * to do them cost each advance a third of its real time in a calm hour, a tenth in a slow one (an advance of 1 ms
     * with one run, one worker: 31-37 µs with the wake-up, 22 without, in fresh JVMs; 48-51 and 44-46 warm in a slow
     * hour; docs/benchmarks.md, "Simulated time"). The turn drains and hands over as the master's own does; the
     * sleep is confirmed on the gate as the master confirms its own, so the next publisher that needs the master
     * wakes it, as in any sleep. The master thread is woken as before where it must act itself (a command, the
     * termination decision after a shutdown, a worker to start again) or where the sleep cannot be confirmed
     * (something came meanwhile: the master's own sleep never parks on a failed confirmation either). Nothing is done
     * while another stepped advance is under way: its steps do the master's work. Tested by
     * {@code VirtualClockAdvanceEndVersusExecuteStress} (jcstress/README). Any thread; virtual clock only.
     */
    void turnAfterSteps() {
        turnLock.lock();
        try {
            if (exited || host.virtualStepsUnderWay()) {
                return;
            }
            if (commandsPosted || host.isShutdown() || host.workersStarved()) {
                wake();
                return;
            }
            drainAndHandOver(host.now());
            // Not shut down (above): the first deadline held is one the sleep waits for, as in the master's own.
            if (confirmSleep(wheel.nextDeadlineBound(), true) == null) {
                wake();
                return;
            }
            gate.wakeWaiters();
        } finally {
            turnLock.unlock();
        }
    }

    /** Runs the commands posted so far; master thread only (the jcstress test of {@link #post} calls it too). */
    void runCommands() {
        if (commandsPosted) {
            // Cleared before the polls: a command posted after a poll found the queue empty sets it again.
            commandsPosted = false;
            for (Command<?> c; (c = commands.poll()) != null; ) {
                c.run(this);
            }
        }
    }

    /**
     * Drains what was offered before the inbox's mark. A long drain (a burst) hands over what falls due meanwhile
     * every {@value #HAND_OVER_EVERY} tasks, so the timers due first never wait for the rest of the burst.
     *
     * @return whether anything was drained
     */
    private boolean drainMarked() {
        int drained = 0;
        for (ScheduledTask<?> task; (task = inbox.pollMarked()) != null; ) {
            takeIn(task);
            if (++drained % GIVE_WAY_LOOK_EVERY == 0) {
                giveWayToLeader();
            }
            if (drained % HAND_OVER_EVERY == 0) {
                handDue(host.now() + handOverAheadNanos);
            }
        }
        return drained > 0;
    }

    /**
     * Lets another thread have this core, once per turn, when the leader is overdue ({@link MasterHost#leaderOverdue}):
     * on a machine with as few cores as busy threads (a burst of schedules), the kernel often wakes the leader on the
     * master's core and lets the master finish its slice first, so the timers due then wait for a drain that had time
     * to spare (what it drains is due the straight reach after it came, or later). A put-off turn
     * ({@link #putOffTurn}) cannot help there: the drain is under way. Once per turn: the thread given way to may be a
     * producer, whose slice then delays the master by a few milliseconds at most, well within what it hands over ahead.
     * Measured: docs/design.md, the ablation's "master give-way off" and the burst without it. Master thread only;
     * {@code Thread.yield} returns at once when nothing else waits for this core.
     */
    private void giveWayToLeader() {
        if (!gaveWayThisTurn && host.leaderOverdue(host.now())) {
            gaveWayThisTurn = true;
            Thread.yield();
        }
    }

    /** Drains everything in the inbox now (commands, which need no gate). */
    private boolean drainInbox() {
        boolean drained = false;
        for (ScheduledTask<?> task; (task = inbox.poll()) != null; ) {
            drained = true;
            takeIn(task);
        }
        return drained;
    }

    private void takeIn(ScheduledTask<?> task) {
        if (task.isInWheel()) {
            // Posted because it left NEW while linked (a cancel, or a run that no worker started): unlink it. If it
            // is NEW again (a periodic task re-armed since), its deadline changed: link it anew.
            wheel.remove(task);
            if (!task.isPending()) {
                return;
            }
        } else if (!task.isPending()) {
            return; // cancelled or taken back before the master linked it, or a post for a task that has left
        }
        if (host.mayRun(task) || host.isStopping()) {
            // When stopping: shutdownNow's drain, on its way, returns it; or, published after that drain, its
            // publisher takes it back (see Lifecycle).
            link(task);
        } else {
            task.cancel(false); // the shutdown policies
        }
    }

    /**
     * Hands every task due by {@code through} to the dispatcher, in deadline order, and opens the gate up to the first
     * deadline the master still holds, within what the last mark it drained up to allows ({@link OrderGate#open}).
     * The opening goes with the hand-over, once its tasks are with the dispatcher, so a worker woken for a task finds
     * the gate open for it. Nothing is handed over while stopping.
     */
    private void handDue(long through) {
        if (!host.isStopping()) {
            if (through >= wheel.nextDeadlineBound()) {
                wheel.advance(through, handOver);
            }
            handOver.opening(wheel.nextDeadlineBound(), drainedBound, drainedLowerings);
            if (handOver.size() > 0) {
                dispatcher.dispatchAll(handOver);
                handedOver = true;
            } else {
                handOver.openGate();
                gate.wakeWaiters();
            }
            handOver.clear();
        }
        holdsTimers = wheel.size() > 0;
    }

    /** Hands over what is due by {@code through} without opening the gate (a command's, outside any turn). */
    private void handDueKeepingGate(long through) {
        if (!host.isStopping() && through >= wheel.nextDeadlineBound()) {
            wheel.advance(through, handOver);
            if (handOver.size() > 0) {
                dispatcher.dispatchAll(handOver);
            }
            handOver.clear();
        }
    }

    private void sleep(long now, boolean drained, boolean starved) {
        // Stopping: nothing in the wheel fires any more (shutdownNow's drain takes it), so its deadlines are no
        // reason to wake; the drain's command wakes the master.
        long next = host.isStopping() ? TimingWheel.NONE : wheel.nextDeadlineBound();
        long until = next == TimingWheel.NONE ? next : next - leadNanos;
        if (drained) {
            until = Math.min(until, now + lazyWakeNanos);
        }
        if (starved) {
            until = Math.min(until, now + WORKER_RETRY_NANOS);
        }
        if (commandsPosted) {
            return;
        }
        if (sleepsUntilWoken && host.virtualStepsUnderWay()) {
            // The workers' steps do the master's work, and their turns keep the gate awake: a sleep of the gate's
            // protocol now would have the next run's re-arm wake the master, for a turn beside them, under the lock
            // they step under, once per run. A command wakes it (ask), and the advance as it ends.
            parkLettingTurnsGo(0);
            return;
        }
        if (!inbox.isEmpty()) {
            if (!gate.hasWaiters()) {
                napWhileProducersAreBusy();
            } // else the workers held back by the order gate come first: look again at once
            return;
        }
        // Deep: a sleep long enough that work which can wait (a cancelled task to unlink) wakes it; with a virtual
        // clock every sleep lasts until someone wakes it, so every one is deep (else, once shut down, the last
        // cancel would leave the termination decision to the clock's next look).
        OrderGate.Horizon asleep = confirmSleep(next, sleepsUntilWoken || until - now > lazyWakeNanos);
        if (asleep == null) {
            return;
        }
        gate.wakeWaiters();
        if (gate.state() != asleep) {
            // Woken meanwhile (every waker replaces the state first): waking the gate's waiters may take the
            // dispatcher's lock, and a park inside it consumes the waker's unpark, so this park would not return.
            return;
        }
        if (sleepsUntilWoken) {
            parkLettingTurnsGo(starved ? WORKER_RETRY_NANOS : 0); // a retry is real time's business
        } else if (until == TimingWheel.NONE) {
            LockSupport.park(this);
        } else {
            long nanos = until - host.now();
            if (nanos > 0) {
                plannedTurn = until; // before the park: a worker's unpark after it makes the park return at once
                LockSupport.parkNanos(this, nanos);
                plannedTurn = TimingWheel.NONE;
            }
        }
    }

    /**
     * The master's half of the sleep protocol (see {@link OrderGate}): announces the first deadline it holds, looks at
     * its queues once more, then confirms. Master thread only.
     *
     * @return the confirmed state (the gate open up to {@code firstHeld}, the master asleep), or null if the master
     *     must not sleep: something came, or a producer lowered the gate, or someone woke the master meanwhile (its
     *     lowering makes the confirmation fail, or, after it, unparks the master)
     */
    OrderGate.Horizon confirmSleep(long firstHeld, boolean deep) {
        OrderGate.Horizon prepared = announceForSleep(firstHeld, deep);
        if (commandsPosted || !inbox.isEmpty()) {
            return null;
        }
        drainedUpTo(prepared); // the inbox was empty after the announcement: as good as a mark drained up to
        return gate.confirmSleep(prepared);
    }

    /** Announces {@code time} on the gate; the bound of what the master has not drained follows it down. */
    private OrderGate.Horizon announce(long time) {
        OrderGate.Horizon announced = gate.announce(time);
        drainedBound = Math.min(drainedBound, time);
        return announced;
    }

    /** The same, for the master's sleep ({@link OrderGate#prepareSleep}). */
    private OrderGate.Horizon announceForSleep(long firstHeld, boolean deep) {
        OrderGate.Horizon prepared = gate.prepareSleep(firstHeld, deep);
        drainedBound = Math.min(drainedBound, firstHeld);
        return prepared;
    }

    /** The master has drained every task claimed before the mark that followed {@code announcement}. */
    private void drainedUpTo(OrderGate.Horizon announcement) {
        drainedBound = announcement.announced;
        drainedLowerings = announcement.lowerings;
    }

    /**
     * Producers are busy: tasks offered before the gate was announced woke nobody, even if due soon, so the nap is
     * short; but not zero: draining at the producers' heels would fetch every task's cache line while its producer
     * still writes it, and a short nap lets a batch build up instead.
     */
    private void napWhileProducersAreBusy() {
        if (turnLock != null) {
            parkLettingTurnsGo(BUSY_NAP_NANOS);
        } else {
            LockSupport.parkNanos(this, BUSY_NAP_NANOS);
        }
    }

    /** Takes the {@link #turnLock}, if there is one (a virtual clock's). */
    private void lockTurn() {
        if (turnLock != null) {
            turnLock.lock();
        }
    }

    private void unlockTurn() {
        if (turnLock != null) {
            turnLock.unlock();
        }
    }

    /**
     * Parks for {@code nanos} (0: until woken) with the {@link #turnLock} let go, so that a thread stepping the
     * virtual clock may do the master's work meanwhile. Virtual clock only.
     */
    private void parkLettingTurnsGo(long nanos) {
        turnLock.unlock();
        try {
            if (nanos == 0) {
                LockSupport.park(this);
            } else {
                LockSupport.parkNanos(this, nanos);
            }
        } finally {
            turnLock.lock();
        }
    }

    /**
     * Links a task into the wheel. A thread that takes a task out of NEW posts it only if it sees it linked
     * ({@code prev != null}); linking, a full fence, then re-reading the state closes the race: either that thread
     * sees the link, or we see the new state and unlink the task ourselves. Master thread only.
     */
    void link(ScheduledTask<?> task) {
        wheel.add(task);
        VarHandle.fullFence();
        if (!task.isPending()) {
            wheel.remove(task);
        }
    }

    // -- commands: run on the master thread, the caller waits -------------------------------------------------------

    /**
     * Cancels the tasks of the inbox and the wheel that the shutdown policies do not keep.
     *
     * @return false if the master has left (the executor has terminated)
     */
    boolean applyShutdownPolicies() {
        return runCommand(m -> {
            m.drainInbox();
            m.wheel.removeIf(task -> !m.host.keptAfterShutdown(task), task -> task.cancel(false));
        });
    }

    /**
     * Takes every task that has not started out of the inbox, the wheel and the dispatcher, in one step that nothing
     * moves tasks across; those still pending go to {@code sink}, marked as returned.
     *
     * @return false if the master has left
     */
    boolean drainUnstarted(List<ScheduledTask<?>> sink) {
        return runCommand(m -> {
            m.drainInbox();
            m.wheel.removeIf(task -> true, task -> {
                if (task.markReturned()) {
                    sink.add(task);
                }
            });
            m.dispatcher.drainUnstartedTo(sink);
        });
    }

    /** @return every pending task of the inbox, the wheel and the dispatcher; empty if the master has left */
    Optional<List<ScheduledTask<?>>> pendingTasks() {
        return ask(m -> {
            m.drainInbox();
            List<ScheduledTask<?>> tasks = new ArrayList<>();
            m.wheel.forEach(task -> {
                if (task.isPending()) {
                    tasks.add(task);
                }
            });
            m.dispatcher.copyWaitingTo(tasks);
            return tasks;
        });
    }

    /** @return the tasks in the inbox, the wheel and waiting in the dispatcher; empty if the master has left */
    Optional<Long> pendingCount() {
        return ask(m -> {
            m.drainInbox();
            return m.wheel.size() + (long) m.dispatcher.waitingCount();
        });
    }

    /** Processes what is in the inbox now, so that cancelled tasks leave the wheel. @return as above */
    boolean purge() {
        return runCommand(MasterLoop::drainInbox);
    }

    /**
     * Hands over what is due now, then takes up to {@code max} due tasks from the dispatcher, those due first, into
     * {@code sink}, marked as returned (getQueue's poll and drainTo). @return how many; empty if the master has left
     */
    Optional<Integer> takeDue(int max, List<ScheduledTask<?>> sink) {
        return ask(m -> {
            long through = m.host.now() + m.handOverAheadNanos;
            m.drainInbox();
            m.handDueKeepingGate(through);
            return m.dispatcher.takeDue(max, sink);
        });
    }

    /** Cancels every task of the inbox, the wheel and the dispatcher (getQueue's clear). @return as above */
    boolean cancelAll() {
        return runCommand(m -> {
            m.drainInbox();
            m.wheel.removeIf(task -> true, task -> task.cancel(false));
            m.dispatcher.cancelWaiting();
        });
    }

    /**
     * @return a time at or before which the earliest task the master holds is due ({@link TimingWheel#NONE} if it
     *     holds none); empty if the master has left
     */
    Optional<Long> nextDeadline() {
        return ask(m -> {
            m.drainInbox();
            return m.wheel.nextDeadlineBound();
        });
    }

    /** The answer of {@link #settled} when the executor is not settled. */
    static final VirtualClock.Settled NOT_SETTLED = new VirtualClock.Settled(-1, -1);

    /**
     * A virtual clock's look ({@link ExecutorCore#settled}), on the master thread, between two turns: the dispatcher
     * idle (no run, no due task waiting), then the inbox drained, then nothing in the wheel due by now. The turn
     * that follows hands over whatever made it {@link #NOT_SETTLED}.
     *
     * @param advancing the thread that advances the clock (see {@link Dispatcher#idleRunsEnded})
     * @return the wheel's first deadline and the dispatcher's ended runs, or {@link #NOT_SETTLED}; empty if the
     *     master has left
     */
    Optional<VirtualClock.Settled> settled(Thread advancing) {
        return ask(m -> {
            long runsEnded = m.dispatcher.idleRunsEnded(advancing);
            if (runsEnded < 0) {
                return NOT_SETTLED;
            }
            m.drainInbox();
            long first = m.host.isStopping() ? TimingWheel.NONE : m.wheel.nextDeadlineBound();
            return first <= m.host.now() ? NOT_SETTLED : new VirtualClock.Settled(first, runsEnded);
        });
    }

    /**
     * Takes a task in on the master thread, atomically with the termination decision (getQueue's offer after
     * shutdown). @return false if the master has left, or is stopping: the task was not taken in
     */
    boolean insert(ScheduledTask<?> task) {
        return ask(m -> {
            if (m.host.isStopping()) {
                return false;
            }
            m.takeIn(task);
            m.gate.published(task.deadline); // the gate may be open past it: a publisher's duty, as for any task
            return true;
        }).orElse(false);
    }

    /**
     * Runs {@code action} on the master thread and waits for it, as {@link #ask}.
     *
     * @return false if the master has left, so the action did not run, or if the action threw
     */
    boolean runCommand(Consumer<MasterLoop> action) {
        return ask(m -> {
            action.accept(m);
            return Boolean.TRUE;
        }).isPresent();
    }

    /**
     * Runs {@code query} on the master thread and waits for its answer (at once if called on the master thread). An
     * interrupt while waiting is remembered, not thrown.
     *
     * @return the answer; empty if the master has left, so the query did not run, or if the query threw
     */
    <T> Optional<T> ask(Function<MasterLoop, T> query) {
        if (Thread.currentThread() == thread) {
            return Optional.of(query.apply(this));
        }
        if (exited) {
            return Optional.empty();
        }
        Command<T> command = post(query);
        // The master sets exited and then skips what is queued; we queued and then read exited: one of the two sees
        // the other. If we see it, the command is either still queued (we take it back) or already skipped.
        if (exited && commands.remove(command)) {
            return Optional.empty();
        }
        wake();
        return command.await();
    }

    /**
     * Queues a command, then raises {@link #commandsPosted} (any thread; the caller wakes the master). The master
     * lowers the flag before it polls, so a command is either polled in that look or flagged for the next one.
     */
    <T> Command<T> post(Function<MasterLoop, T> query) {
        Command<T> command = new Command<>(query);
        commands.add(command);
        commandsPosted = true;
        return command;
    }

    /** Work that must run on the master thread; the caller waits for its answer. */
    static final class Command<T> {
        private final Function<MasterLoop, T> query;
        private final CountDownLatch done = new CountDownLatch(1);
        /** The answer, once the query has returned; published by the latch. */
        private Optional<T> answer = Optional.empty();

        Command(Function<MasterLoop, T> query) {
            this.query = query;
        }

        void run(MasterLoop master) {
            try {
                answer = Optional.of(query.apply(master));
            } finally {
                done.countDown();
            }
        }

        /** The master left without running it. */
        void skip() {
            done.countDown();
        }

        /** Waits until the master ran the command or skipped it; an interrupt is remembered, not thrown. */
        Optional<T> await() {
            Uninterruptibly.await(done::await, () -> { });
            return answer;
        }
    }
}
