package io.timingwheel;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;

/**
 * The machinery behind a {@link TimingWheelExecutor}: it builds the parts and wires them, accepts tasks and hands them
 * to the master or straight to the dispatcher, and answers what tasks, the dispatcher and the master ask. The public
 * class is a facade over it: it checks arguments, builds tasks and answers the JDK's methods by calling this class or
 * the parts it hands out ({@link #pool()}, {@link #pending()}, {@link #shutdowns()}, {@link #lifecycle()}); none of
 * them calls back into the facade but through {@link ExecutorHooks}.
 *
 * <p>The parts, each with one job: the {@link Lifecycle} (run state, policies, the termination decision), the
 * {@link MasterLoop} (the wheel's thread), the {@link Dispatcher} (where due tasks run), {@link PoolControls} (the
 * JDK's pool methods), {@link PendingTasks} (what getQueue() sees), {@link Shutdowns}, the {@link PendingLimit}, the
 * {@link Decorations} and the {@link Instrumentation}. The others reach it through one narrow interface each: tasks
 * through {@link TaskHost}, dispatchers through {@link DispatcherHost}, the master through {@link MasterHost}. No
 * class below this one calls the facade, and none gets a callback built here to run on its own thread.
 *
 * <p><b>Accepting a task.</b> A task due at once, or soon ({@link WorkerPool#STRAIGHT_REACH_NANOS}), goes straight to
 * the dispatcher; one due later to the master's inbox, starting the master first if need be. Either way the producer
 * publishes it and then reads the run state again, taking the task back if the executor shut down meanwhile
 * ({@link Lifecycle}, note 1): that is what makes termination wait for no producer, and a schedule that overlaps
 * {@code shutdown()} either rejected or accepted and run, as in the JDK.
 */
final class ExecutorCore implements TaskHost, DispatcherHost, MasterHost, VirtualClock.Driven {
    /** Why a task was not accepted; the facade names it in the rejection. */
    enum Refusal {
        SHUT_DOWN, PENDING_LIMIT, NO_MASTER_THREAD
    }

    private final String name;
    private final Clock clock;
    private final Lifecycle lifecycle;
    private final Decorations decorations = new Decorations();
    private final Instrumentation instrumentation;
    private final Dispatcher dispatcher;
    private final PoolControls pool;
    private final PendingTasks pending;
    private final Shutdowns shutdowns;

    /**
     * How far ahead of its deadline a task goes straight to the dispatcher ({@link WorkerPool#STRAIGHT_REACH_NANOS});
     * zero with an external executor, which is given only due tasks.
     */
    private final long straightReachNanos;

    private final MasterLoop master;

    /** The clock a test moves, or null in real time. */
    private final VirtualClock virtualClock;

    /** The pending limit, or null when there is none. */
    private final PendingLimit limit;

    private final TaskFailureHandler failureHandler;
    private final boolean skipMissedRuns;

    ExecutorCore(ExecutorSettings settings, ExecutorHooks hooks) {
        this.name = settings.name();
        this.virtualClock = settings.virtualClock();
        this.clock = virtualClock != null ? Clock.of(virtualClock) : Clock.startingNow();
        this.instrumentation = new Instrumentation(name, clock, settings.lateRunEventThresholdNanos());
        this.limit = settings.maxPendingTasks() > 0 ? new PendingLimit(settings.maxPendingTasks()) : null;
        this.failureHandler = settings.failureHandler();
        this.skipMissedRuns = settings.skipMissedRuns();
        TaskRunner runner = new TaskRunner(hooks, decorations, instrumentation);
        OrderGate gate = new OrderGate();
        PoolSettings poolSettings = new PoolSettings(settings.corePoolSize(), settings.threadFactory());
        WorkerPool ownPool = null;
        if (settings.workerExecutor() != null) {
            this.dispatcher = new ExternalDispatcher(this, runner, settings.workerExecutor());
        } else {
            ownPool = new WorkerPool(name, this, runner, gate, poolSettings);
            this.dispatcher = ownPool;
            ownPool.listenToGate();
        }
        // Ahead of time only in real time, where it keeps a wake-up off the timers' path; with a virtual clock the
        // workers are handed only due tasks, so what is not due yet is all in the master's wheel, where a settled
        // executor's first deadline is read (see settled()).
        boolean ahead = ownPool != null && !clock.isVirtual();
        this.straightReachNanos = ahead ? WorkerPool.STRAIGHT_REACH_NANOS : 0;
        long handOverAhead = ahead ? WorkerPool.HAND_OVER_AHEAD_NANOS : 0;
        long lazyWake = Math.max(settings.tickNanos(), TimeUnit.MILLISECONDS.toNanos(1));
        this.master = new MasterLoop(name, this, new TimingWheel<>(settings.tickNanos(), settings.wheelSize()),
                dispatcher, gate, handOverAhead, straightReachNanos, lazyWake, clock.isVirtual(),
                settings.masterThreadFactory());
        this.lifecycle = new Lifecycle(name, clock, hooks, master, dispatcher);
        this.pool = new PoolControls(poolSettings, ownPool, dispatcher, lifecycle, new LongSupplier() { // see Lifecycle
            @Override
            public long getAsLong() {
                return pendingCount();
            }
        });
        this.pending = new PendingTasks(this, lifecycle, master, dispatcher, decorations, limit, pool);
        this.shutdowns = new Shutdowns(lifecycle, master, dispatcher, pool, decorations);
    }

    /** @return {@code shutdown()}, {@code shutdownNow()} and the policies' setters */
    Shutdowns shutdowns() {
        return shutdowns;
    }

    /** The pool asks for it only once the executor runs, when {@code pending} is set. */
    private long pendingCount() {
        return pending.count();
    }

    /** @return the pool methods of the JDK's API: settings, prestarting, counts */
    PoolControls pool() {
        return pool;
    }

    /** @return the accepted tasks that have not started, as getQueue() and remove() see them */
    PendingTasks pending() {
        return pending;
    }

    /** @return the run state, the policies and termination: the facade's queries go to it directly */
    Lifecycle lifecycle() {
        return lifecycle;
    }

    // -- accepting tasks (producers) --------------------------------------------------------------------------------

    /**
     * Accepts a new task: one due now, or soon enough for the dispatcher's workers to wait for it themselves
     * ({@link WorkerPool#STRAIGHT_REACH_NANOS}), goes straight to the dispatcher; one due later to the master.
     *
     * @param delayNanos how long after its deadline's clock reading the task is due
     * @return null if accepted; otherwise why not, and the task is then marked rejected
     */
    Refusal accept(ScheduledTask<?> task, long delayNanos) {
        boolean straight = delayNanos <= straightReachNanos;
        if (!lifecycle.isRunning()) {
            return refuse(task, Refusal.SHUT_DOWN);
        }
        if (!straight && !lifecycle.ensureMasterStarted()) {
            return refuse(task, lifecycle.isRunning() ? Refusal.NO_MASTER_THREAD : Refusal.SHUT_DOWN);
        }
        if (limit != null && !limit.reserve()) {
            return refuse(task, Refusal.PENDING_LIMIT);
        }
        if (!straight) {
            master.submit(task);
        } else if (!dispatcher.dispatch(task)) {
            releasePlace();
            refuse(task, Refusal.SHUT_DOWN); // closed: the executor has terminated since the check above
            // A dispatcher that closed as the task arrived may have found it there and stayed open: ask again.
            lifecycle.tryTerminate();
            return Refusal.SHUT_DOWN;
        }
        if (!lifecycle.isRunning()) { // published as the executor shut down: see Lifecycle, note 1
            boolean takenBack = false;
            if (task.isPeriodic()) {
                // It may have run and re-armed already, so it is not the producer's to reject: as a re-arm does, it
                // is cancelled unless the policy keeps it (the JDK's delayedExecute does the same)
                if (!lifecycle.mayRun(task)) {
                    task.cancelIfPending();
                }
            } else {
                takenBack = task.takeBack();
            }
            // A decision taken while this task was pending found the executor busy; with the task gone, nothing
            // else may come to ask again (a stopping worker leaves the queue alone), so ask now.
            lifecycle.tryTerminate();
            if (takenBack) {
                return Refusal.SHUT_DOWN;
            }
        }
        // The publisher's reading of the clock, which the deadline was computed from (the deadline itself for a delay
        // of zero or less; a clamped far deadline gives an earlier time, which finds nothing overdue).
        pool.publisherGivesWay(delayNanos > 0 ? task.deadline - delayNanos : task.deadline);
        pool.prestartWorkers();
        return null;
    }

    private static Refusal refuse(ScheduledTask<?> task, Refusal refusal) {
        task.markRejected();
        return refusal;
    }

    /** @return {@code command} if it is a task of this executor that was rejected (a handler hands it back), or null */
    ScheduledTask<?> rejectedTask(Runnable command) {
        return command instanceof ScheduledTask<?> task && task.host == this && task.isRejected() ? task : null;
    }

    /** Accepts again a task this executor rejected, that a handler hands back. @return as {@link #accept} */
    Refusal resubmit(ScheduledTask<?> task) {
        if (!task.reaccept()) {
            return null; // cancelled or run by now: nothing to accept
        }
        return accept(task, task.deadline - clock.now());
    }

    /**
     * Cancels the pending task due first, to make room under the pending limit for a task that
     * {@code DiscardOldestPolicy} hands back (a delay queue's {@code poll()}, which that policy calls, gives only a
     * task already due, or nothing). @return false if no task was pending
     */
    boolean discardEarliestPending() {
        for (;;) {
            ScheduledTask<?> earliest = pending.earliest();
            if (earliest == null) {
                return false;
            }
            if (earliest.cancelIfPending()) {
                return true;
            }
        }
    }

    /** @return the pending limit, or 0 if there is none */
    long maxPendingTasks() {
        return limit == null ? 0 : limit.max();
    }

    /** Counts a task given to the rejection handler, and records the event; the facade then calls the handler. */
    void rejected(ScheduledTask<?> task) {
        instrumentation.rejected(task, lifecycle.isShutdown());
    }

    private void releasePlace() {
        if (limit != null) {
            limit.release();
        }
    }

    // -- VirtualClock.Driven: what a virtual clock asks ---------------------------------------------------------------

    /**
     * Settled means: no run under way and no due task waiting in the dispatcher, and then, on the master thread,
     * the same again (the master may have handed tasks over since), the inbox drained into the wheel and nothing in
     * the wheel due by now. In that order: a run publishes what it schedules before it ends, so once no run is seen
     * the inbox holds all of it; and with nothing running and nothing due, nothing starts that could publish more.
     */
    @Override
    public VirtualClock.Settled settled(Thread advancing) {
        long runsEnded = dispatcher.idleRunsEnded(advancing); // a first look that does not wake the master
        if (runsEnded < 0) {
            return null;
        }
        if (!lifecycle.masterStarted()) {
            return new VirtualClock.Settled(TimingWheel.NONE, runsEnded); // read after the idle look: see above
        }
        VirtualClock.Settled settled = master.settled(advancing)
                .orElseGet(() -> new VirtualClock.Settled(TimingWheel.NONE, dispatcher.figures().completed())); // it left
        return settled == MasterLoop.NOT_SETTLED ? null : settled;
    }

    @Override
    public boolean stepsOnItsThreads() {
        return dispatcher instanceof WorkerPool;
    }

    @Override
    public boolean runsOn(Thread thread) {
        return dispatcher instanceof WorkerPool own && own.runsOn(thread);
    }

    /**
     * The master's step on this thread; before the master's start, only the dispatcher's look, and then the master's
     * start read again: a run that gives the master a task starts it first, and ends after, so once the look has seen
     * the runs ended, a master still not started holds nothing.
     */
    @Override
    public long stepIfIdle(boolean callerTakesOne, boolean mayWait, LongPredicate moveTimeTo) {
        if (!lifecycle.masterStarted()) {
            if (dispatcher.idleRunsEnded(null) < 0) {
                return VirtualClock.STEP_NOT_IDLE;
            }
            if (!lifecycle.masterStarted()) {
                return TimingWheel.NONE;
            }
        }
        return master.stepIfIdle(callerTakesOne, mayWait, moveTimeTo);
    }

    @Override
    public void turnForVirtualTime() {
        if (lifecycle.masterStarted()) {
            master.turnForVirtualTime();
        }
    }

    @Override
    public void stepsEnded() {
        if (lifecycle.masterStarted()) {
            master.turnAfterSteps();
        }
    }

    @Override
    public void stepsStalled() {
        if (lifecycle.masterStarted()) {
            master.wake();
        }
    }

    @Override
    public boolean hasTerminated() {
        return lifecycle.isTerminated();
    }

    @Override
    public List<String> runningTasks() {
        List<ScheduledTask<?>> running = new ArrayList<>();
        dispatcher.copyRunningTo(running);
        List<String> names = new ArrayList<>(running.size());
        for (ScheduledTask<?> task : running) {
            names.add(name + ": " + task);
        }
        return names;
    }

    // -- TaskHost: what tasks ask -----------------------------------------------------------------------------------

    @Override
    public long now() {
        return clock.now();
    }

    @Override
    public boolean mayRun(ScheduledTask<?> task) {
        return lifecycle.mayRun(task);
    }

    @Override
    public boolean skipsMissedRuns() {
        return skipMissedRuns;
    }

    @Override
    public void leftPending(ScheduledTask<?> task) {
        releasePlace();
        unlinkIfInWheel(task);
    }

    @Override
    public void cancelled(ScheduledTask<?> task, boolean wasPending) {
        instrumentation.cancelled();
        if (wasPending) {
            leftPending(task);
        }
    }

    /**
     * A task that left NEW while linked into the wheel is posted to the master, which unlinks it so that it is garbage
     * at once. One still in the inbox is dropped when drained, one queued for the workers when taken; see
     * {@code MasterLoop.link} for why reading the link is race-free.
     */
    private void unlinkIfInWheel(ScheduledTask<?> task) {
        if (task.isInWheelVolatile() && lifecycle.runState() < Lifecycle.TIDYING) {
            master.postUnlink(task);
        }
    }

    /**
     * Queues a periodic task's next run: to the master, or, when it falls due within the dispatcher's straight reach
     * (a fixed-rate task catching up, or any period that short), straight to the dispatcher, where it takes its place
     * by its deadline and the order gate keeps it behind earlier timers the master still holds; so a heartbeat costs
     * the master no wake-up per run. Published first, checked after, as every publisher does (see Lifecycle, note 1):
     * a run that ends as the executor shuts down cancels its task if the policies do not keep it.
     */
    @Override
    public void rearm(ScheduledTask<?> task) {
        if (limit != null) {
            limit.reserveAnyway(); // before NEW, so a cancel of the next run has something to release
        }
        if (!task.resetForNextRun()) {
            releasePlace(); // cancelled during the run
            return;
        }
        if (!lifecycle.mayRun(task)) {
            task.cancelIfPending();
            return;
        }
        boolean published;
        if (task.deadline - clock.now() <= straightReachNanos) {
            published = dispatcher.dispatch(task);
        } else {
            // The first run may have gone straight to the workers (zero initial delay), before any master existed.
            published = lifecycle.ensureMasterStarted();
            if (published) {
                master.submit(task);
            }
        }
        if (!published || !lifecycle.mayRun(task)) {
            task.cancelIfPending();
        }
    }

    @Override
    public void ended(ScheduledTask<?> task, Throwable failure) {
        RunnableScheduledFuture<?> userTask = decorations.userTask(task); // before forget: the handler gets it
        decorations.forget(task);
        if (failure != null && failureHandler != null) {
            try {
                failureHandler.taskFailed(userTask, failure);
            } catch (Throwable t) {
                InternalFailures.report(name, "the task failure handler threw", t);
            }
        }
    }

    // -- DispatcherHost and MasterHost: what the dispatcher and the master ask ---------------------------------------

    @Override
    public boolean keptAfterShutdown(ScheduledTask<?> task) {
        return lifecycle.keptAfterShutdown(task);
    }

    @Override
    public boolean isShutdown() {
        return lifecycle.isShutdown();
    }

    @Override
    public boolean isStopping() {
        return lifecycle.isStopping();
    }

    @Override
    public boolean timersPending() {
        return master.holdsTimers();
    }

    @Override
    public void letMasterTurnBy(long time) {
        master.turnEarlyIfPlannedBy(time);
    }

    @Override
    public boolean stepsVirtualTime() {
        return virtualClock != null && virtualClock.isSteppedBy(this);
    }

    @Override
    public void stepVirtualTime() {
        virtualClock.stepFromWorker(this);
    }

    @Override
    public boolean virtualStepsUnderWay() {
        return stepsVirtualTime();
    }

    @Override
    public boolean tryStepVirtualTime() {
        return virtualClock.tryStepFromWorker(this);
    }

    @Override
    public boolean tryTerminate() {
        return lifecycle.tryTerminate();
    }

    @Override
    public void threadsGone() {
        lifecycle.finish();
    }

    @Override
    public boolean workerDue() {
        return pool.workerDue();
    }

    @Override
    public boolean leaderOverdue(long now) {
        return pool.leaderOverdue(now);
    }

    @Override
    public boolean workersStarved() {
        return pool.workersStarved();
    }

    @Override
    public void retryWorkerStart() {
        pool.retryWorkerStart();
    }

    // -- decorations ------------------------------------------------------------------------------------------------

    /** Records what {@code decorateTask} made of a task, if it is not the task itself. */
    void decorated(ScheduledTask<?> task, RunnableScheduledFuture<?> userTask) {
        if (userTask != task) {
            decorations.remember(task, userTask);
        }
    }

    /** @return what the user sees of a task: what {@code decorateTask} made of it, or the task itself */
    RunnableScheduledFuture<?> userTask(ScheduledTask<?> task) {
        return decorations.userTask(task);
    }

    // -- threads and pool settings ----------------------------------------------------------------------------------

    ExecutorStatistics statistics() {
        Dispatcher.Figures pool = dispatcher.figures();
        return new ExecutorStatistics(pending.count(), pool.active(), pool.completed(), pool.failed(),
                instrumentation.cancelledCount(), instrumentation.rejectedCount(), pool.lateness());
    }

    /** @return the tasks as the user holds them, now the caller's (returned): the executor forgets their decoration */
    List<Runnable> handOut(List<ScheduledTask<?>> returned) {
        return decorations.handOut(returned);
    }
}
