package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link ScheduledExecutorService} that replaces {@link ScheduledThreadPoolExecutor}: change
 * {@code new ScheduledThreadPoolExecutor(n)} into {@code new TimingWheelExecutor(n)} and nothing else changes, except
 * that scheduling, cancelling and holding many timers become much cheaper.
 *
 * <pre>{@code
 * TimingWheelExecutor timers = new TimingWheelExecutor(4);
 * ScheduledFuture<?> timeout = timers.schedule(() -> request.fail("timeout"), 30, TimeUnit.SECONDS);
 * response.whenComplete((r, e) -> timeout.cancel(false));   // O(1), and the task is garbage at once
 * timers.scheduleAtFixedRate(this::heartbeat, 0, 1, TimeUnit.SECONDS);
 * }</pre>
 *
 * <h2>Contract</h2>
 * The contract is {@link ScheduledThreadPoolExecutor}'s, method by method:
 * <ul>
 *   <li>A task never runs before its delay has elapsed; zero and negative delays mean "now"; delays up to
 *       {@code Long.MAX_VALUE} of any unit are accepted and simply never come (the horizon is about 146 years).</li>
 *   <li>Fixed-rate tasks run at {@code initialDelay + n * period}; a late run does not shift later ones, runs of one
 *       task never overlap, and missed runs are caught up back to back. Fixed-delay tasks start {@code delay} after
 *       the previous run ended. A run that throws ends the series and {@code get()} reports its cause.</li>
 *   <li>The returned futures are {@link java.util.concurrent.RunnableScheduledFuture}s; {@code submit} and
 *       {@code execute} schedule with zero delay, so their futures are scheduled futures too.</li>
 *   <li>{@link #shutdown()} rejects new tasks through the {@link RejectedExecutionHandler} (by default, throw
 *       {@link RejectedExecutionException}), lets delayed one-shot tasks run and cancels periodic ones, as set by
 *       {@link #setExecuteExistingDelayedTasksAfterShutdownPolicy} and
 *       {@link #setContinueExistingPeriodicTasksAfterShutdownPolicy}. {@link #shutdownNow()} interrupts running tasks
 *       and returns the very futures that never started.</li>
 *   <li>Null arguments throw {@link NullPointerException} before anything else happens.</li>
 * </ul>
 *
 * <h2>Where it is deliberately better</h2>
 * <ul>
 *   <li>Cancelled tasks leave the executor at once, whatever {@link #setRemoveOnCancelPolicy} says: no memory is
 *       held until a cancelled task's deadline.</li>
 *   <li>{@link #remove(Runnable)} cancels the task it removes, so its future completes instead of waiting forever.</li>
 *   <li>The number of pending tasks can be bounded ({@link Builder#maxPendingTasks}); beyond it, tasks are rejected
 *       through the handler, never silently dropped.</li>
 *   <li>{@link #getQueue()} is a read-only view: it lists the pending futures but does not accept new ones.</li>
 * </ul>
 *
 * <h2>Precision and cost</h2>
 * One master thread keeps the pending tasks in a hierarchical timing wheel (see the package documentation) and hands
 * due tasks to the worker threads. Scheduling and cancelling are O(1) and lock-free; the master sleeps until the next
 * deadline and fires each task as close to its own deadline as its sleep allows, not at tick granularity. The tick
 * ({@link Builder#tick}, 1 ms by default) only groups deadlines.
 */
public final class TimingWheelExecutor extends AbstractExecutorService implements ScheduledExecutorService,
        AutoCloseable {
    /*
     * Implementation notes.
     *
     * 1. Two layers. TimingWheel is a single-threaded data structure owned by the master thread (MasterLoop). All
     *    other threads talk to the master through one lock-free MPSC queue (the inbox): new tasks, periodic tasks
     *    due again, cancelled tasks to unlink and commands (shutdown policies, shutdownNow, snapshots) travel
     *    through it.
     * 2. A task is one object: the future, the inbox message and the wheel node (ScheduledTask). Its state is one int;
     *    the race between cancel and firing is decided by a single CAS on NEW.
     * 3. Zero and negative delays skip the master: the task goes straight to the workers.
     * 4. The run state (RUNNING, SHUTDOWN, STOP, TERMINATED) is one volatile int. A producer checks it before it
     *    publishes a task; the master applies the shutdown policies to what it drains afterwards, and terminates
     *    when the wheel, the inbox and the workers are all empty. A producer that raced with termination and finds
     *    TERMINATED after publishing cancels its own task (unless shutdownNow returned it), so nothing accepted is
     *    ever lost.
     * 5. Threads start lazily: the master with the first delayed task, workers one per accepted task up to the core
     *    size, as the JDK does.
     * 6. Times are nanoseconds since this executor's origin, read from a clock seam, so they never wrap in practice
     *    and compare with '<'.
     */

    private static final int RUNNING = 0;
    private static final int SHUTDOWN = 1;
    private static final int STOP = 2;
    private static final int TERMINATED = 3;

    private static final VarHandle RUN_STATE;
    private static final AtomicInteger EXECUTOR_IDS = new AtomicInteger();
    private static final RejectedExecutionHandler DEFAULT_HANDLER = new ThreadPoolExecutor.AbortPolicy();
    private static final long DEFAULT_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final int DEFAULT_WHEEL_SIZE = 512;

    /** Marks, in {@code next}, a task that shutdownNow returned, so that no racing producer cancels it. */
    private static final TimerNode RETURNED_BY_SHUTDOWN_NOW = new TimerNode() { };

    /** Marks, in {@code next}, a task given to the rejection handler: it never entered the pending count. */
    private static final TimerNode REJECTED = new TimerNode() { };

    static {
        try {
            RUN_STATE = MethodHandles.lookup().findVarHandle(TimingWheelExecutor.class, "runState", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** RUNNING, SHUTDOWN, STOP or TERMINATED; only ever increases. */
    private volatile int runState;

    private final int corePoolSize;
    private final NanoClock clock;
    private final long origin;
    private final String name;
    private final Dispatcher dispatcher;
    private final MasterLoop master;
    private final ThreadFactory masterThreadFactory;
    private final CountDownLatch terminated = new CountDownLatch(1);

    /** Pending tasks (accepted, not started), counted only when a maximum is set; null otherwise. */
    private final AtomicLong pendingCount;
    private final long maxPendingTasks;

    private final TaskFailureHandler failureHandler;
    private final boolean skipMissedRuns;

    /** Runs later than this emit a JFR event; negative when the events are off. */
    private final long lateRunEventThresholdNanos;

    private final LongAdder cancelledTasks = new LongAdder();
    private final LongAdder rejectedTasks = new LongAdder();

    private volatile ThreadFactory threadFactory;
    private volatile RejectedExecutionHandler handler;
    private volatile boolean continueExistingPeriodicTasksAfterShutdown;
    private volatile boolean executeExistingDelayedTasksAfterShutdown = true;
    private volatile boolean removeOnCancel;
    private volatile boolean masterStarted;

    /** Set once the pool has reached its core size; written rarely, read by every delayed schedule. */
    private volatile boolean workersStarted;

    /** The {@link ScheduledThreadPoolExecutor} face shown to rejection handlers; created on first rejection. */
    private volatile ExecutorView view;

    /**
     * Creates an executor with the given number of worker threads and the default thread factory and rejection
     * handler ({@link ThreadPoolExecutor.AbortPolicy}).
     *
     * @param corePoolSize the number of worker threads; 0 is accepted and, as in the JDK, one worker still runs tasks
     * @throws IllegalArgumentException if {@code corePoolSize < 0}
     */
    public TimingWheelExecutor(int corePoolSize) {
        this(builder().workerThreads(corePoolSize));
    }

    /**
     * Creates an executor with the given number of worker threads, made by the given factory.
     *
     * @param corePoolSize the number of worker threads; 0 is accepted and one worker still runs tasks
     * @param threadFactory the factory for worker threads
     * @throws IllegalArgumentException if {@code corePoolSize < 0}
     * @throws NullPointerException if {@code threadFactory} is null
     */
    public TimingWheelExecutor(int corePoolSize, ThreadFactory threadFactory) {
        this(builder().workerThreads(corePoolSize).threadFactory(threadFactory));
    }

    /**
     * Creates an executor with the given number of worker threads and rejection handler.
     *
     * @param corePoolSize the number of worker threads; 0 is accepted and one worker still runs tasks
     * @param handler the handler for rejected tasks
     * @throws IllegalArgumentException if {@code corePoolSize < 0}
     * @throws NullPointerException if {@code handler} is null
     */
    public TimingWheelExecutor(int corePoolSize, RejectedExecutionHandler handler) {
        this(builder().workerThreads(corePoolSize).rejectedExecutionHandler(handler));
    }

    /**
     * Creates an executor with the given number of worker threads, thread factory and rejection handler.
     *
     * @param corePoolSize the number of worker threads; 0 is accepted and one worker still runs tasks
     * @param threadFactory the factory for worker threads
     * @param handler the handler for rejected tasks
     * @throws IllegalArgumentException if {@code corePoolSize < 0}
     * @throws NullPointerException if {@code threadFactory} or {@code handler} is null
     */
    public TimingWheelExecutor(int corePoolSize, ThreadFactory threadFactory, RejectedExecutionHandler handler) {
        this(builder().workerThreads(corePoolSize).threadFactory(threadFactory).rejectedExecutionHandler(handler));
    }

    private TimingWheelExecutor(Builder builder) {
        int id = EXECUTOR_IDS.incrementAndGet();
        this.name = "timingwheel-" + id;
        this.corePoolSize = builder.workerThreads;
        this.clock = builder.clock;
        this.origin = clock.nanoTime();
        this.threadFactory = builder.threadFactory != null
                ? builder.threadFactory : new NamedThreadFactory(name + "-worker-", false, true);
        this.masterThreadFactory = builder.masterThreadFactory;
        this.handler = builder.handler;
        this.maxPendingTasks = builder.maxPendingTasks;
        this.failureHandler = builder.failureHandler;
        this.skipMissedRuns = builder.fixedRatePolicy == FixedRatePolicy.SKIP_MISSED;
        this.lateRunEventThresholdNanos = builder.lateRunEventThresholdNanos;
        this.pendingCount = builder.maxPendingTasks > 0 ? new AtomicLong() : null;
        this.dispatcher = builder.workerExecutor != null
                ? new ExternalDispatcher(this, builder.workerExecutor) : new WorkerPool(this, corePoolSize);
        long lazyWake = Math.max(builder.tickNanos, DEFAULT_TICK_NANOS);
        this.master = new MasterLoop(this, new TimingWheel(builder.tickNanos, builder.wheelSize), dispatcher,
                lazyWake);
    }

    /** @return a builder for an executor with settings beyond the constructors' */
    public static Builder builder() {
        return new Builder();
    }

    // -- time -------------------------------------------------------------------------------------------------------

    /** @return nanoseconds since this executor's origin */
    long now() {
        return clock.nanoTime() - origin;
    }

    /** @return {@code time + delay}, clamped to the wheel's horizon; {@code delay} must be positive */
    static long deadlineAfter(long time, long delay) {
        return delay >= TimingWheel.MAX_DEADLINE - time ? TimingWheel.MAX_DEADLINE : time + delay;
    }

    // -- run state --------------------------------------------------------------------------------------------------

    @Override
    public boolean isShutdown() {
        return runState >= SHUTDOWN;
    }

    boolean isStopped() {
        return runState >= STOP;
    }

    /**
     * @return true if {@link #shutdown()} or {@link #shutdownNow()} was called but tasks may still run
     */
    public boolean isTerminating() {
        int rs = runState;
        return rs >= SHUTDOWN && rs < TERMINATED;
    }

    @Override
    public boolean isTerminated() {
        return runState == TERMINATED;
    }

    private void advanceRunState(int target) {
        for (;;) {
            int rs = runState;
            if (rs >= target || RUN_STATE.compareAndSet(this, rs, target)) {
                return;
            }
        }
    }

    /**
     * Called once nothing can run any more, before the last stragglers are cancelled: from now on a producer that
     * raced with termination cancels its own task before {@code schedule} returns.
     */
    void enterTerminatedState() {
        runState = TERMINATED;
    }

    /** Called last, when every accepted task has ended: releases {@code awaitTermination}. */
    void signalTerminated() {
        terminated.countDown();
    }

    /** The JDK's rule for a task that is about to be queued or to run while the executor shuts down. */
    boolean canRunInCurrentState(ScheduledTask<?> task) {
        int rs = runState;
        return rs == RUNNING || (rs == SHUTDOWN && keptAfterShutdown(task));
    }

    /** What {@code shutdown()} keeps, by the two policies: periodic tasks, and delayed ones (always when due). */
    boolean keptAfterShutdown(ScheduledTask<?> task) {
        return task.isPeriodic()
                ? continueExistingPeriodicTasksAfterShutdown
                : executeExistingDelayedTasksAfterShutdown || task.deadline <= now();
    }

    // -- scheduling -------------------------------------------------------------------------------------------------

    @Override
    public TimerFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        if (command == null || unit == null) {
            throw new NullPointerException();
        }
        long nanos = unit.toNanos(delay);
        long now = now();
        if (nanos <= 0) {
            OneShotRunnableTask task = new OneShotRunnableTask(this, command, now);
            executeNow(task);
            return task;
        }
        OneShotRunnableTask task = new OneShotRunnableTask(this, command, deadlineAfter(now, nanos));
        executeLater(task);
        return task;
    }

    @Override
    public <V> TimerFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        if (callable == null || unit == null) {
            throw new NullPointerException();
        }
        long nanos = unit.toNanos(delay);
        long now = now();
        OneShotTask<V> task = new OneShotTask<>(this, callable, nanos <= 0 ? now : deadlineAfter(now, nanos));
        if (nanos <= 0) {
            executeNow(task);
        } else {
            executeLater(task);
        }
        return task;
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if {@code period <= 0}
     */
    @Override
    public TimerFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        if (command == null || unit == null) {
            throw new NullPointerException();
        }
        if (period <= 0) {
            throw new IllegalArgumentException("period must be positive: " + period);
        }
        return schedulePeriodic(command, initialDelay, unit.toNanos(period), unit);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if {@code delay <= 0}
     */
    @Override
    public TimerFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        if (command == null || unit == null) {
            throw new NullPointerException();
        }
        if (delay <= 0) {
            throw new IllegalArgumentException("delay must be positive: " + delay);
        }
        return schedulePeriodic(command, initialDelay, -unit.toNanos(delay), unit);
    }

    private TimerFuture<?> schedulePeriodic(Runnable command, long initialDelay, long signedPeriod,
                                                TimeUnit unit) {
        long nanos = unit.toNanos(initialDelay);
        long now = now();
        PeriodicTask task = new PeriodicTask(this, command, nanos <= 0 ? now : deadlineAfter(now, nanos),
                signedPeriod);
        if (nanos <= 0) {
            executeNow(task);
        } else {
            executeLater(task);
        }
        return task;
    }

    /** Executes the command with zero delay, as {@link ScheduledThreadPoolExecutor#execute} does. */
    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public TimerFuture<?> submit(Runnable task) {
        return schedule(task, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public <T> TimerFuture<T> submit(Runnable task, T result) {
        if (task == null) {
            throw new NullPointerException();
        }
        return schedule(Executors.callable(task, result), 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public <T> TimerFuture<T> submit(Callable<T> task) {
        return schedule(task, 0, TimeUnit.NANOSECONDS);
    }

    /** Accepts a task that is due now: it goes straight to the workers. */
    private void executeNow(ScheduledTask<?> task) {
        if (runState != RUNNING || !reservePending()) {
            reject(task);
            return;
        }
        dispatcher.dispatch(task);
        if (isStopped()) {
            wakeMaster(); // raced with shutdownNow: the master cancels it unless shutdownNow returned it
        }
    }

    /** Accepts a task with a future deadline: it goes to the master. */
    private void executeLater(ScheduledTask<?> task) {
        if (runState != RUNNING) {
            reject(task);
            return;
        }
        if (!masterStarted && !startMaster()) {
            reject(task);
            return;
        }
        if (!reservePending()) {
            reject(task);
            return;
        }
        master.submit(task);
        if (!workersStarted) {
            prestartWorkers();
        }
        if (runState == TERMINATED) {
            cancelIfStranded(task);
        }
    }

    /** Sends a periodic task that just ran back to the master for its next run (called by the worker that ran it). */
    void reschedulePeriodic(ScheduledTask<?> task) {
        // The first run may have gone straight to the workers (zero initial delay), before any master existed.
        if (!canRunInCurrentState(task) || (!masterStarted && !startMaster())) {
            task.cancel(false);
            return;
        }
        master.submit(task);
        if (runState == TERMINATED) {
            cancelIfStranded(task);
        }
    }

    /** The master terminated while this task was on its way to it: nobody else will ever run or return it. */
    private void cancelIfStranded(ScheduledTask<?> task) {
        if (task.next != RETURNED_BY_SHUTDOWN_NOW) {
            task.cancel(false);
        }
    }

    private boolean reservePending() {
        if (pendingCount == null) {
            return true;
        }
        if (pendingCount.incrementAndGet() > maxPendingTasks) {
            pendingCount.decrementAndGet();
            return false;
        }
        return true;
    }

    /**
     * Called when a pending task stops being pending: it starts a run, is cancelled, or fails without running. The
     * count follows the task's state machine, so a cancel frees its place at once. A rejected task was never
     * counted: if its handler runs or cancels it anyway, it is not uncounted either.
     */
    void releasePending(ScheduledTask<?> task) {
        if (pendingCount != null && task.next != REJECTED) {
            pendingCount.decrementAndGet();
        }
    }

    /** A periodic task that just ran is pending again until its next run; its limit was checked when accepted. */
    void reservePendingForNextRun() {
        if (pendingCount != null) {
            pendingCount.incrementAndGet();
        }
    }

    /** Called when a pending task was cancelled: the master unlinks it from the wheel so it is garbage at once. */
    void onCancelledPending(ScheduledTask<?> task) {
        // Only a task linked into the wheel needs the master's help: one still in the inbox is dropped when drained,
        // one queued for the workers when taken (see MasterLoop.link for why reading the link is race-free).
        if (task.isInWheelVolatile() && !isTerminated()) {
            master.postCancelled(task);
        }
    }

    /**
     * Accepts again, with its own deadline, a task this executor rejected and a handler hands back to
     * {@code execute} ({@code DiscardOldestPolicy} does, after making room). @return false if it is no such task
     */
    boolean resubmitRejected(Runnable command) {
        if (!(command instanceof ScheduledTask)) {
            return false;
        }
        ScheduledTask<?> task = (ScheduledTask<?>) command;
        if (task.owner != this || task.next != REJECTED || !task.isPending()) {
            return false;
        }
        task.next = null;
        if (task.deadline <= now()) {
            executeNow(task);
        } else {
            executeLater(task);
        }
        return true;
    }

    /**
     * A rejected task that a handler runs itself ({@code CallerRunsPolicy}) still never runs before its delay: the
     * calling thread waits for the deadline, which is the back-pressure that policy is chosen for.
     *
     * @return false if the wait was interrupted (the task is then cancelled and the interrupt status kept)
     */
    boolean awaitDeadlineIfRejected(ScheduledTask<?> task) {
        if (task.next != REJECTED) {
            return true;
        }
        for (long wait; (wait = task.deadline - now()) > 0 && task.isPending(); ) {
            LockSupport.parkNanos(task, wait);
            if (Thread.interrupted()) {
                task.cancel(false);
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    private void reject(ScheduledTask<?> task) {
        task.next = REJECTED;
        rejectedTasks.increment();
        if (lateRunEventThresholdNanos >= 0) {
            FlightRecorderEvents.rejection(name, task, isShutdown());
        }
        handler.rejectedExecution(task, view());
    }

    // -- observations -----------------------------------------------------------------------------------------------

    /** Counts a successful cancel (any thread, once per task). */
    void onCancelled() {
        cancelledTasks.increment();
    }

    /** Tells the failure handler, if any, that a run ended with an exception (on the thread that ran it). */
    void onTaskFailed(ScheduledTask<?> task, Throwable failure) {
        if (failureHandler != null) {
            try {
                failureHandler.taskFailed(task, failure);
            } catch (Throwable t) {
                reportInternalFailure("the task failure handler threw", t);
            }
        }
    }

    /** Records how late a run starts, just before it starts (on the worker's thread). */
    void recordLateness(LatenessHistogram histogram, ScheduledTask<?> task) {
        long lateness = now() - task.deadline;
        histogram.record(lateness);
        if (lateRunEventThresholdNanos >= 0 && lateness > lateRunEventThresholdNanos) {
            FlightRecorderEvents.lateRun(name, task, lateness);
        }
    }

    /** @return true if fixed-rate tasks skip missed runs ({@link FixedRatePolicy#SKIP_MISSED}) */
    boolean skipsMissedRuns() {
        return skipMissedRuns;
    }

    /**
     * Takes a snapshot of this executor's activity: pending, running, completed, failed, cancelled and rejected
     * tasks, and a histogram of how late runs started. Lock-free for the producers and the master; it costs nothing
     * on the scheduling path (the counts are kept where the work happens anyway).
     *
     * @return the statistics as of now
     */
    public ExecutorStatistics statistics() {
        long[] lateness = new long[LatenessHistogram.BUCKETS];
        dispatcher.addLatenessTo(lateness);
        long pending = (long) master.wheelSizeApprox() + dispatcher.queuedCount();
        return new ExecutorStatistics(pending, dispatcher.activeCount(), dispatcher.completedCount(),
                dispatcher.failedCount(), cancelledTasks.sum(), rejectedTasks.sum(), lateness);
    }

    private ExecutorView view() {
        ExecutorView v = view;
        if (v == null) {
            synchronized (this) {
                v = view;
                if (v == null) {
                    view = v = new ExecutorView(this);
                }
            }
        }
        return v;
    }

    // -- threads ----------------------------------------------------------------------------------------------------

    /** Starts the master thread once. @return false if no thread could be created */
    private synchronized boolean startMaster() {
        if (masterStarted) {
            return true;
        }
        // The user's factory first, if any; whatever goes wrong with its thread (null, a throw from newThread or
        // from start), the default factory next: the master must run.
        if (masterThreadFactory != null && tryStartMaster(masterThreadFactory, "the master thread factory failed")) {
            return true;
        }
        return tryStartMaster(new NamedThreadFactory(name + "-master", true, false), "cannot start the master thread");
    }

    private boolean tryStartMaster(ThreadFactory factory, String failure) {
        try {
            Thread thread = factory.newThread(master);
            if (thread == null) {
                reportInternalFailure(failure, new NullPointerException("the factory returned null"));
                return false;
            }
            master.setThread(thread);
            thread.start();
            masterStarted = true;
            return true;
        } catch (Throwable t) {
            reportInternalFailure(failure, t);
            return false;
        }
    }

    /**
     * Starts a worker per delayed task until the core size is reached, as the JDK does. Once it is, the flag spares
     * every later schedule a read of the pool's counters, whose cache line the workers write. (A worker that dies
     * later is replaced by the pool itself, or by the master's retry.)
     */
    private void prestartWorkers() {
        dispatcher.prestart();
        if (dispatcher.isFullyStarted()) {
            workersStarted = true;
        }
    }

    Thread newWorkerThread(Runnable worker) {
        return threadFactory.newThread(worker);
    }

    /** Wakes the master so that it reconsiders termination. */
    void wakeMaster() {
        if (masterStarted) {
            master.wake();
        } else if (isShutdown()) {
            terminateWithoutMaster();
        }
    }

    /** Reports a failure inside the executor's machinery (never a task's own) to the thread's handler. */
    void reportInternalFailure(String what, Throwable failure) {
        try {
            Thread me = Thread.currentThread();
            Thread.UncaughtExceptionHandler h = me.getUncaughtExceptionHandler();
            h.uncaughtException(me, new IllegalStateException(name + ": " + what, failure));
        } catch (Throwable ignore) {
            // reporting must not make things worse
        }
    }

    // -- shutdown ---------------------------------------------------------------------------------------------------

    /**
     * Initiates an orderly shutdown: no new task is accepted; delayed one-shot tasks still run and periodic tasks are
     * cancelled, unless the two shutdown policies say otherwise. Idempotent.
     */
    @Override
    public void shutdown() {
        if (isTerminated()) {
            return;
        }
        advanceRunState(SHUTDOWN);
        onShutdown();
    }

    private void onShutdown() {
        dispatcher.prestart(); // tasks still to run need a worker, even if thread creation failed before
        if (!masterStarted && !startMaster()) {
            terminateWithoutMaster();
            return;
        }
        master.runCommand(new MasterLoop.Command() {
            @Override
            void execute(MasterLoop m) {
                m.applyShutdownPolicy();
            }
        });
        master.wake();
    }

    /**
     * Stops: no new task is accepted, running tasks are interrupted, and the tasks that never started are returned,
     * the very futures that {@code schedule} returned, left uncancelled as the JDK leaves them. A periodic task that
     * is running when this is called is not returned; it ends after its current run.
     *
     * @return the accepted tasks that never started
     */
    @Override
    public List<Runnable> shutdownNow() {
        if (isTerminated()) {
            return new ArrayList<>();
        }
        advanceRunState(STOP);
        List<ScheduledTask<?>> unstarted = new ArrayList<>();
        if (!masterStarted && !startMaster()) {
            dispatcher.drainUnstartedTo(unstarted);
            terminateWithoutMaster();
        } else {
            master.runCommand(new MasterLoop.Command() {
                @Override
                void execute(MasterLoop m) {
                    m.drainPending(unstarted);
                    dispatcher.drainUnstartedTo(unstarted);
                    for (ScheduledTask<?> task : unstarted) {
                        task.next = RETURNED_BY_SHUTDOWN_NOW;
                    }
                }
            });
        }
        dispatcher.interruptWorkers();
        wakeMaster();
        List<Runnable> result = new ArrayList<>(unstarted.size());
        for (ScheduledTask<?> task : unstarted) {
            if (task.isPending()) {
                result.add(task);
            }
        }
        return result;
    }

    /**
     * No master thread was started, so only tasks due at once were accepted: terminate here once they are done (the
     * workers call {@link #wakeMaster()}, which comes back here, possibly on a worker thread: so no waiting for the
     * threads to leave).
     */
    private void terminateWithoutMaster() {
        synchronized (this) {
            if (!masterStarted && isShutdown() && !isTerminated() && dispatcher.tryTerminate(false)) {
                enterTerminatedState();
                signalTerminated();
            }
        }
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return terminated.await(timeout, unit);
    }

    /**
     * Shuts down and waits until all tasks have completed, as {@code ExecutorService.close()} does on Java 19 and
     * later: if interrupted while waiting, calls {@link #shutdownNow()} once, keeps waiting, and restores the
     * interrupt status before returning.
     */
    @Override
    public void close() {
        boolean done = isTerminated();
        if (done) {
            return;
        }
        shutdown();
        boolean interrupted = false;
        while (!done) {
            try {
                done = awaitTermination(1L, TimeUnit.DAYS);
            } catch (InterruptedException e) {
                if (!interrupted) {
                    shutdownNow();
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    // -- policies ---------------------------------------------------------------------------------------------------

    /**
     * Sets whether periodic tasks continue after {@link #shutdown()}; default false. Setting it to false after
     * shutdown cancels them at once.
     *
     * @param value true to let periodic tasks run on after shutdown
     */
    public void setContinueExistingPeriodicTasksAfterShutdownPolicy(boolean value) {
        continueExistingPeriodicTasksAfterShutdown = value;
        if (!value && isShutdown()) {
            onShutdown();
        }
    }

    /** @return whether periodic tasks continue after {@link #shutdown()}; default false */
    public boolean getContinueExistingPeriodicTasksAfterShutdownPolicy() {
        return continueExistingPeriodicTasksAfterShutdown;
    }

    /**
     * Sets whether delayed one-shot tasks still run after {@link #shutdown()}; default true. Setting it to false
     * after shutdown cancels them at once.
     *
     * @param value false to cancel delayed one-shot tasks at shutdown
     */
    public void setExecuteExistingDelayedTasksAfterShutdownPolicy(boolean value) {
        executeExistingDelayedTasksAfterShutdown = value;
        if (!value && isShutdown()) {
            onShutdown();
        }
    }

    /** @return whether delayed one-shot tasks still run after {@link #shutdown()}; default true */
    public boolean getExecuteExistingDelayedTasksAfterShutdownPolicy() {
        return executeExistingDelayedTasksAfterShutdown;
    }

    /**
     * Kept for source compatibility with {@link ScheduledThreadPoolExecutor}: this executor always releases cancelled
     * tasks at once, whatever the value. The value is only remembered.
     *
     * @param value remembered for {@link #getRemoveOnCancelPolicy()}
     */
    public void setRemoveOnCancelPolicy(boolean value) {
        removeOnCancel = value;
    }

    /** @return the value last given to {@link #setRemoveOnCancelPolicy}; cancelled tasks are released either way */
    public boolean getRemoveOnCancelPolicy() {
        return removeOnCancel;
    }

    // -- management -------------------------------------------------------------------------------------------------

    /** @return the number of worker threads given at construction (0 is kept as given) */
    public int getCorePoolSize() {
        return corePoolSize;
    }

    /** @return the number of worker threads alive now (0 when tasks run on an external executor) */
    public int getPoolSize() {
        return dispatcher.poolSize();
    }

    /** @return the approximate number of threads running a task now */
    public int getActiveCount() {
        return dispatcher.activeCount();
    }

    /**
     * @return the approximate number of runs ever scheduled: completed runs, running tasks and pending tasks, as
     *     {@link ThreadPoolExecutor#getTaskCount()} counts them
     */
    public long getTaskCount() {
        return dispatcher.completedCount() + dispatcher.activeCount() + pendingTasks().size();
    }

    /** @return the approximate number of runs that have completed (each run of a periodic task counts) */
    public long getCompletedTaskCount() {
        return dispatcher.completedCount();
    }

    /**
     * A read-only view of the tasks that are accepted and have not started: each query sees them as they are then.
     * Its elements are the futures that {@code schedule} returned; cancelled tasks are never in it. Adding throws
     * {@link UnsupportedOperationException}; {@code poll()} cancels and returns the task that is due first.
     *
     * @return the pending tasks
     */
    public BlockingQueue<Runnable> getQueue() {
        return new PendingTasksView(this);
    }

    /**
     * Removes a task that has not started, cancelling it (the JDK leaves a removed task's future incomplete forever).
     *
     * @param task a future returned by this executor
     * @return true if the task was pending here and is now cancelled
     */
    public boolean remove(Runnable task) {
        return task instanceof ScheduledTask
                && ((ScheduledTask<?>) task).owner == this
                && ((ScheduledTask<?>) task).cancelIfPending();
    }

    /** Releases cancelled tasks now. They are released promptly anyway; this only waits until it has happened. */
    public void purge() {
        if (masterStarted) {
            master.runCommand(new MasterLoop.Command() {
                @Override
                void execute(MasterLoop m) {
                    m.purge();
                }
            });
        }
    }

    /** @return the tasks accepted and not started, as the master and the workers hold them now */
    List<ScheduledTask<?>> pendingTasks() {
        List<ScheduledTask<?>> tasks = new ArrayList<>();
        if (masterStarted) {
            boolean ran = master.runCommand(new MasterLoop.Command() {
                @Override
                void execute(MasterLoop m) {
                    m.snapshotPending(tasks);
                    dispatcher.snapshotTo(tasks);
                }
            });
            if (ran) {
                return tasks;
            }
            tasks.clear();
        }
        dispatcher.snapshotTo(tasks);
        return tasks;
    }

    /** @return the factory that makes worker threads */
    public ThreadFactory getThreadFactory() {
        return threadFactory;
    }

    /**
     * Sets the factory for worker threads started from now on.
     *
     * @param threadFactory the new factory
     * @throws NullPointerException if it is null
     */
    public void setThreadFactory(ThreadFactory threadFactory) {
        this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
    }

    /** @return the handler called for rejected tasks */
    public RejectedExecutionHandler getRejectedExecutionHandler() {
        return handler;
    }

    /**
     * Sets the handler called for rejected tasks. It receives the rejected task and a
     * {@link ScheduledThreadPoolExecutor} view of this executor, so the JDK's four policies work unchanged.
     *
     * @param handler the new handler
     * @throws NullPointerException if it is null
     */
    public void setRejectedExecutionHandler(RejectedExecutionHandler handler) {
        this.handler = Objects.requireNonNull(handler, "handler");
    }

    /** @return the state and counts, in the form of {@link ThreadPoolExecutor#toString()} */
    @Override
    public String toString() {
        int rs = runState;
        String state = rs == RUNNING ? "Running" : rs == TERMINATED ? "Terminated" : "Shutting down";
        long queued = (long) master.wheelSizeApprox() + dispatcher.queuedCount();
        return super.toString() + "[" + state
                + ", pool size = " + getPoolSize()
                + ", active threads = " + getActiveCount()
                + ", queued tasks = " + queued
                + ", completed tasks = " + getCompletedTaskCount() + "]";
    }

    // -- builder ----------------------------------------------------------------------------------------------------

    /**
     * Settings beyond the constructors'. Every setter checks its argument at once: {@link NullPointerException} for
     * null, {@link IllegalArgumentException} for a value out of range.
     *
     * <pre>{@code
     * TimingWheelExecutor timers = TimingWheelExecutor.builder()
     *         .workerThreads(4)
     *         .tick(1, TimeUnit.MILLISECONDS)
     *         .maxPendingTasks(1_000_000)
     *         .build();
     * }</pre>
     */
    public static final class Builder {
        private long tickNanos = DEFAULT_TICK_NANOS;
        private int wheelSize = DEFAULT_WHEEL_SIZE;
        private int workerThreads = 1;
        private ThreadFactory threadFactory;
        private ThreadFactory masterThreadFactory;
        private RejectedExecutionHandler handler = DEFAULT_HANDLER;
        private long maxPendingTasks;
        private Executor workerExecutor;
        private TaskFailureHandler failureHandler;
        private FixedRatePolicy fixedRatePolicy = FixedRatePolicy.CATCH_UP;
        private long lateRunEventThresholdNanos = -1;
        private NanoClock clock = NanoClock.SYSTEM;

        private Builder() {
        }

        /**
         * Sets the wheel's tick: the width of a level-0 slot (default 1 ms). Tasks still fire at their own deadline,
         * not at a tick boundary; a coarser tick makes the wheel cheaper to turn for very long delays.
         *
         * @param duration the tick, in {@code unit}
         * @param unit the unit of {@code duration}
         * @return this builder
         * @throws IllegalArgumentException unless 1 microsecond &lt;= tick &lt;= 1 hour
         */
        public Builder tick(long duration, TimeUnit unit) {
            Objects.requireNonNull(unit, "unit");
            long nanos = unit.toNanos(duration);
            if (nanos < TimeUnit.MICROSECONDS.toNanos(1) || nanos > TimeUnit.HOURS.toNanos(1)) {
                throw new IllegalArgumentException("tick must be between 1 microsecond and 1 hour: "
                        + duration + " " + unit);
            }
            this.tickNanos = nanos;
            return this;
        }

        /**
         * Sets the number of slots per wheel level (default 512).
         *
         * @param slots slots per level
         * @return this builder
         * @throws IllegalArgumentException unless a power of two between 16 and 65536
         */
        public Builder wheelSize(int slots) {
            if (slots < 16 || slots > 65536 || Integer.bitCount(slots) != 1) {
                throw new IllegalArgumentException("wheelSize must be a power of two between 16 and 65536: " + slots);
            }
            this.wheelSize = slots;
            return this;
        }

        /**
         * Sets the number of worker threads (default 1); 0 is accepted as the JDK accepts it: one worker still runs.
         *
         * @param count the number of worker threads
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder workerThreads(int count) {
            if (count < 0) {
                throw new IllegalArgumentException("workerThreads must not be negative: " + count);
            }
            this.workerThreads = count;
            return this;
        }

        /**
         * Sets the factory for worker threads (default: non-daemon threads named {@code timingwheel-N-worker-M}).
         *
         * @param factory the factory
         * @return this builder
         */
        public Builder threadFactory(ThreadFactory factory) {
            this.threadFactory = Objects.requireNonNull(factory, "threadFactory");
            return this;
        }

        /**
         * Sets the factory for the master thread (default: a daemon thread named {@code timingwheel-N-master}; the
         * workers keep the JVM alive as the JDK's do). If it fails, the default is used: the master always runs.
         *
         * @param factory the factory
         * @return this builder
         */
        public Builder masterThreadFactory(ThreadFactory factory) {
            this.masterThreadFactory = Objects.requireNonNull(factory, "masterThreadFactory");
            return this;
        }

        /**
         * Sets the handler for rejected tasks (default {@link ThreadPoolExecutor.AbortPolicy}).
         *
         * @param handler the handler
         * @return this builder
         */
        public Builder rejectedExecutionHandler(RejectedExecutionHandler handler) {
            this.handler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /**
         * Bounds the number of pending tasks (accepted and not yet started). A task beyond it goes to the rejection
         * handler. Default: unbounded, as in the JDK.
         *
         * @param max the most pending tasks
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder maxPendingTasks(long max) {
            if (max <= 0) {
                throw new IllegalArgumentException("maxPendingTasks must be positive: " + max);
            }
            this.maxPendingTasks = max;
            return this;
        }

        /**
         * Runs tasks on the given executor instead of the executor's own worker threads, for example
         * {@code Executors.newVirtualThreadPerTaskExecutor()} on Java 21 and later. The master stays one platform
         * thread. Tasks already handed to it cannot be returned by {@code shutdownNow()}; if they start after it, they
         * cancel themselves. Shutting down the given executor is the caller's business.
         *
         * @param executor where tasks run
         * @return this builder
         */
        public Builder workerExecutor(Executor executor) {
            this.workerExecutor = Objects.requireNonNull(executor, "workerExecutor");
            return this;
        }

        /**
         * Sets a handler called whenever a run ends with an exception, periodic tasks included, so that no failure
         * is silent. Default: none, as in the JDK, where the exception is only held in the future.
         *
         * @param handler the handler
         * @return this builder
         */
        public Builder taskFailureHandler(TaskFailureHandler handler) {
            this.failureHandler = Objects.requireNonNull(handler, "taskFailureHandler");
            return this;
        }

        /**
         * Sets what fixed-rate tasks do after missed runs (default {@link FixedRatePolicy#CATCH_UP}, the JDK's).
         *
         * @param policy the policy
         * @return this builder
         */
        public Builder fixedRatePolicy(FixedRatePolicy policy) {
            this.fixedRatePolicy = Objects.requireNonNull(policy, "fixedRatePolicy");
            return this;
        }

        /**
         * Turns on JDK Flight Recorder events (off by default): {@code io.timingwheel.LateRun} for each run that
         * starts later than {@code lateRunThreshold} after its deadline, and {@code io.timingwheel.Rejection} for
         * each rejected task. They are recorded only while a recording has them enabled.
         *
         * @param lateRunThreshold how late a run must start to be recorded
         * @param unit the unit of {@code lateRunThreshold}
         * @return this builder
         * @throws IllegalArgumentException if the threshold is negative
         */
        public Builder flightRecorderEvents(long lateRunThreshold, TimeUnit unit) {
            Objects.requireNonNull(unit, "unit");
            if (lateRunThreshold < 0) {
                throw new IllegalArgumentException("lateRunThreshold must not be negative: " + lateRunThreshold);
            }
            this.lateRunEventThresholdNanos = unit.toNanos(lateRunThreshold);
            return this;
        }

        /** Replaces the clock (tests only). */
        Builder clock(NanoClock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** @return a new executor with these settings */
        public TimingWheelExecutor build() {
            return new TimingWheelExecutor(this);
        }
    }
}
