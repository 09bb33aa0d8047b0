package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The machinery behind a {@link TimingWheelExecutor}: the run state and termination, the pending limit, the hand-offs
 * of tasks to the master or straight to the workers, and the shutdown policies. The public class is a facade over it:
 * it checks arguments, builds tasks and answers the JDK's methods by asking this class, which never calls back into
 * the facade but through {@link ExecutorHooks}.
 *
 * <p>Who calls what:
 * <ul>
 *   <li>the facade: {@link #accept}, {@link #shutdown}, {@link #shutdownNow}, the queries;</li>
 *   <li>tasks: the {@link TaskHost} methods;</li>
 *   <li>the master and the dispatchers: the run state, {@link #canRun}, {@link #dispatcherIdle},
 *       {@link #enterTidying}, {@link #finishTermination}, and the instrumentation.</li>
 * </ul>
 *
 * <p>The run state only grows: RUNNING, SHUTDOWN, STOP, TIDYING, TERMINATED, as in {@code ThreadPoolExecutor}. The
 * master decides termination when the wheel, the inbox and the dispatcher are all empty (or the caller does, under
 * this object's monitor, when no master was ever started); {@code terminated()} then runs once the worker threads have
 * left, and TERMINATED follows it.
 */
final class ExecutorCore implements TaskHost {
    static final int RUNNING = 0;
    static final int SHUTDOWN = 1;
    static final int STOP = 2;
    static final int TIDYING = 3;
    static final int TERMINATED = 4;

    private static final VarHandle RUN_STATE;

    static {
        try {
            RUN_STATE = MethodHandles.lookup().findVarHandle(ExecutorCore.class, "runState", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Why a task was not accepted; the facade names it in the rejection. */
    enum Refusal {
        SHUT_DOWN, PENDING_LIMIT, NO_MASTER_THREAD
    }

    /** The executor's name, for thread names, reports and events. */
    final String name;

    /** The executor's hooks: {@code beforeExecute}, {@code afterExecute}, {@code terminated}. */
    final ExecutorHooks hooks;

    final Dispatcher dispatcher;

    private final long origin = System.nanoTime();
    private final MasterLoop master;
    private final ThreadFactory masterThreadFactory;
    private final CountDownLatch terminationSignal = new CountDownLatch(1);

    /** RUNNING, SHUTDOWN, STOP, TIDYING or TERMINATED; only ever increases. */
    private volatile int runState;

    private volatile boolean masterStarted;

    /** Set, under this object's monitor, once shutdownNow has drained an executor that has no master. */
    private boolean drainedWithoutMaster;

    /** Set once the pool has reached its core size; written rarely, read by every delayed schedule. */
    private volatile boolean workersStarted;

    /** Pending tasks (in state NEW), counted only when a maximum is set; null otherwise. */
    private final AtomicLong pendingCount;
    private final long maxPendingTasks;

    private final TaskFailureHandler failureHandler;
    private final boolean skipMissedRuns;

    /** Runs later than this emit a JFR event; negative when the events are off. */
    private final long lateRunEventThresholdNanos;

    private final LongAdder cancelledTasks = new LongAdder();
    private final LongAdder rejectedTasks = new LongAdder();
    private final Decorations decorations = new Decorations();

    private volatile ThreadFactory threadFactory;
    private volatile boolean continueExistingPeriodicTasksAfterShutdown;
    private volatile boolean executeExistingDelayedTasksAfterShutdown = true;

    /** The settings of a {@link TimingWheelExecutor.Builder}, checked by the facade, as the core takes them. */
    static final class Settings {
        String name;
        int corePoolSize;
        ThreadFactory threadFactory;
        ThreadFactory masterThreadFactory;
        Executor workerExecutor;
        long tickNanos;
        int wheelSize;
        long maxPendingTasks;
        TaskFailureHandler failureHandler;
        boolean skipMissedRuns;
        long lateRunEventThresholdNanos = -1;
    }

    ExecutorCore(Settings settings, ExecutorHooks hooks) {
        this.name = settings.name;
        this.hooks = hooks;
        this.threadFactory = settings.threadFactory;
        this.masterThreadFactory = settings.masterThreadFactory;
        this.maxPendingTasks = settings.maxPendingTasks;
        this.pendingCount = settings.maxPendingTasks > 0 ? new AtomicLong() : null;
        this.failureHandler = settings.failureHandler;
        this.skipMissedRuns = settings.skipMissedRuns;
        this.lateRunEventThresholdNanos = settings.lateRunEventThresholdNanos;
        this.dispatcher = settings.workerExecutor != null
                ? new ExternalDispatcher(this, settings.corePoolSize, settings.workerExecutor)
                : new WorkerPool(this, settings.corePoolSize);
        long lazyWake = Math.max(settings.tickNanos, TimeUnit.MILLISECONDS.toNanos(1));
        this.master = new MasterLoop(this, new TimingWheel<>(settings.tickNanos, settings.wheelSize), dispatcher,
                lazyWake);
    }

    // -- time and run state -----------------------------------------------------------------------------------------

    @Override
    public long now() {
        return System.nanoTime() - origin;
    }

    int runState() {
        return runState;
    }

    boolean isShutdown() {
        return runState >= SHUTDOWN;
    }

    boolean isStopped() {
        return runState >= STOP;
    }

    boolean isTerminating() {
        int rs = runState;
        return rs >= SHUTDOWN && rs < TERMINATED;
    }

    boolean isTerminated() {
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

    boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return terminationSignal.await(timeout, unit);
    }

    /** The JDK's rule for a task that is about to be queued or to run in run state {@code rs}. */
    boolean canRun(ScheduledTask<?> task, int rs) {
        return rs == RUNNING || (rs == SHUTDOWN && keptAfterShutdown(task));
    }

    /** What {@code shutdown()} keeps, by the two policies: periodic tasks, and delayed ones (always when due). */
    private boolean keptAfterShutdown(ScheduledTask<?> task) {
        return task.isPeriodic()
                ? continueExistingPeriodicTasksAfterShutdown
                : executeExistingDelayedTasksAfterShutdown || task.deadline <= now();
    }

    // -- accepting tasks (producers) --------------------------------------------------------------------------------

    /**
     * Accepts a new task: one due now goes straight to the dispatcher, one due later to the master.
     *
     * @return null if accepted, otherwise why not (the task is untouched then)
     */
    Refusal accept(ScheduledTask<?> task, boolean dueNow) {
        if (runState != RUNNING) {
            return Refusal.SHUT_DOWN;
        }
        if (!dueNow && !masterStarted && !startMaster()) {
            return runState == RUNNING ? Refusal.NO_MASTER_THREAD : Refusal.SHUT_DOWN;
        }
        if (pendingCount != null && !reservePending()) {
            return Refusal.PENDING_LIMIT;
        }
        if (dueNow) {
            dispatcher.dispatch(task);
            if (isStopped()) {
                dispatcherIdle(); // raced with shutdownNow: the master cancels it unless shutdownNow returned it
            }
            return null;
        }
        master.submit(task);
        if (!workersStarted) {
            prestartWorkers();
        }
        if (runState >= TIDYING) {
            task.cancelIfPending(); // the master terminated while the task was on its way: nobody else will
        }
        return null;
    }

    /** Accepts again a task this executor rejected, that a handler hands back. @return as {@link #accept} */
    Refusal resubmit(ScheduledTask<?> task) {
        if (!task.unmarkRejected()) {
            return null; // cancelled or run by now: nothing to accept
        }
        Refusal refusal = accept(task, task.deadline <= now());
        if (refusal != null) {
            task.markRejected();
        }
        return refusal;
    }

    /** Takes a place under the limit; a CAS loop rather than add-then-undo, so the count never shows more. */
    private boolean reservePending() {
        for (long count; (count = pendingCount.get()) < maxPendingTasks; ) {
            if (pendingCount.compareAndSet(count, count + 1)) {
                return true;
            }
        }
        return false;
    }

    private void releasePending() {
        if (pendingCount != null) {
            pendingCount.decrementAndGet();
        }
    }

    /** @return the pending limit, or 0 if there is none */
    long maxPendingTasks() {
        return maxPendingTasks;
    }

    /** Counts a rejected task and records the event; the facade then calls the handler. */
    void rejected(ScheduledTask<?> task) {
        rejectedTasks.increment();
        if (lateRunEventThresholdNanos >= 0) {
            try {
                FlightRecorderEvents.rejection(name, task, isShutdown());
            } catch (Throwable t) {
                reportInternalFailure("cannot record a rejection event", t);
            }
        }
    }

    // -- TaskHost: what tasks ask ------------------------------------------------------------------------------------

    @Override
    public boolean mayRun(ScheduledTask<?> task) {
        return canRun(task, runState);
    }

    @Override
    public boolean skipsMissedRuns() {
        return skipMissedRuns;
    }

    @Override
    public void leftPending(ScheduledTask<?> task) {
        releasePending();
        unlinkIfInWheel(task);
    }

    @Override
    public void cancelled(ScheduledTask<?> task, boolean wasPending) {
        cancelledTasks.increment();
        if (wasPending) {
            releasePending();
            unlinkIfInWheel(task);
        }
    }

    /**
     * A task that left NEW while linked into the wheel is posted to the master, which unlinks it so that it is garbage
     * at once. One still in the inbox is dropped when drained, one queued for the workers when taken; see
     * {@code MasterLoop.link} for why reading the link is race-free.
     */
    private void unlinkIfInWheel(ScheduledTask<?> task) {
        if (task.isInWheelVolatile() && runState < TIDYING) {
            master.postUnlink(task);
        }
    }

    @Override
    public void rearm(ScheduledTask<?> task) {
        if (pendingCount != null) {
            pendingCount.incrementAndGet(); // before NEW, so a cancel of the next run has something to release
        }
        if (!task.resetForNextRun()) {
            releasePending(); // cancelled during the run
            return;
        }
        // The first run may have gone straight to the workers (zero initial delay), before any master existed.
        if (!mayRun(task) || (!masterStarted && !startMaster())) {
            task.cancelIfPending();
            return;
        }
        master.submit(task);
        if (runState >= TIDYING) {
            task.cancelIfPending();
        }
    }

    @Override
    public void ended(ScheduledTask<?> task, Throwable failure) {
        decorations.forget(task);
        if (failure != null && failureHandler != null) {
            try {
                failureHandler.taskFailed(userTask(task), failure);
            } catch (Throwable t) {
                reportInternalFailure("the task failure handler threw", t);
            }
        }
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

    /** Removes (cancels) a pending task, given as the user holds it. @return true if it was pending here */
    boolean removePending(Object userTask) {
        ScheduledTask<?> task = taskBehind(userTask);
        return task != null && task.cancelIfPending();
    }

    /** @return our task behind what the user holds, or null if it is none of ours or no longer pending */
    ScheduledTask<?> taskBehind(Object userTask) {
        if (userTask instanceof ScheduledTask && ((ScheduledTask<?>) userTask).host == this) {
            return (ScheduledTask<?>) userTask;
        }
        return decorations.taskBehind(userTask);
    }

    // -- threads ----------------------------------------------------------------------------------------------------

    /**
     * Starts the master thread once. Not once shutdownNow has begun: its drain may already have happened without a
     * master (under this monitor), and a master started later would keep the task that asked for it in the wheel for
     * a drain that never comes.
     *
     * @return false if no thread could be created, or the executor is stopping
     */
    private synchronized boolean startMaster() {
        if (masterStarted) {
            return true;
        }
        if (runState >= STOP) {
            return false;
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

    /** Sets the core pool size; workers start or retire as the JDK's do, and the flag above must be earned again. */
    void setCorePoolSize(int corePoolSize) {
        int previous = dispatcher.corePoolSize;
        dispatcher.corePoolSize = corePoolSize;
        workersStarted = false;
        dispatcher.poolSettingsChanged(previous);
    }

    ThreadFactory threadFactory() {
        return threadFactory;
    }

    void setThreadFactory(ThreadFactory threadFactory) {
        this.threadFactory = threadFactory;
    }

    Thread newWorkerThread(Runnable worker) {
        return threadFactory.newThread(worker);
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

    // -- instrumentation --------------------------------------------------------------------------------------------

    /** Records how late a run starts, just before it starts; never throws (it must not keep a task from ending). */
    void recordStart(ScheduledTask<?> task, LatenessHistogram histogram) {
        try {
            long lateness = now() - task.deadline;
            histogram.record(lateness);
            if (lateRunEventThresholdNanos >= 0 && lateness > lateRunEventThresholdNanos) {
                FlightRecorderEvents.lateRun(name, task, lateness);
            }
        } catch (Throwable t) {
            reportInternalFailure("cannot record a run's lateness", t);
        }
    }

    ExecutorStatistics statistics() {
        ExecutorStatistics.Builder stats = new ExecutorStatistics.Builder();
        dispatcher.addTo(stats);
        return stats.pending(pendingTaskCount())
                .cancelled(cancelledTasks.sum())
                .rejected(rejectedTasks.sum())
                .build();
    }

    // -- pending tasks ----------------------------------------------------------------------------------------------

    /** @return true if the master's wheel held tasks at its last turn: a cheap hint, for a worker deciding to retire */
    boolean hasPendingTasks() {
        return master.hadPendingTasks();
    }

    /**
     * @return the tasks accepted and not started: exact at some moment during the call (with a pending limit, the
     *     limit's own count; otherwise counted by the master, with the dispatcher's, while nothing moves between them)
     */
    long pendingTaskCount() {
        if (pendingCount != null) {
            return Math.max(0, pendingCount.get());
        }
        long[] count = new long[1];
        if (!masterStarted || !master.runCommand(m -> count[0] = m.pendingCount() + dispatcher.pendingCount())) {
            count[0] = dispatcher.pendingCount();
        }
        return count[0];
    }

    /** @return the tasks accepted and not started, as the master and the dispatcher hold them now */
    List<ScheduledTask<?>> pendingTasks() {
        List<ScheduledTask<?>> tasks = new ArrayList<>();
        if (!masterStarted || !master.runCommand(m -> {
            m.snapshotPending(tasks);
            dispatcher.snapshotTo(tasks);
        })) {
            tasks.clear();
            dispatcher.snapshotTo(tasks);
        }
        return tasks;
    }

    /** Waits until the master has processed the cancellations posted so far. */
    void purge() {
        if (masterStarted) {
            master.runCommand(MasterLoop::purge);
        }
    }

    // -- shutdown ---------------------------------------------------------------------------------------------------

    boolean getContinueExistingPeriodicTasksAfterShutdownPolicy() {
        return continueExistingPeriodicTasksAfterShutdown;
    }

    void setContinueExistingPeriodicTasksAfterShutdownPolicy(boolean value) {
        continueExistingPeriodicTasksAfterShutdown = value;
        policyChanged(value);
    }

    boolean getExecuteExistingDelayedTasksAfterShutdownPolicy() {
        return executeExistingDelayedTasksAfterShutdown;
    }

    void setExecuteExistingDelayedTasksAfterShutdownPolicy(boolean value) {
        executeExistingDelayedTasksAfterShutdown = value;
        policyChanged(value);
    }

    /** A policy that no longer keeps tasks, set after shutdown, cancels them at once, as the JDK's setters do. */
    private void policyChanged(boolean keeps) {
        if (!keeps && isShutdown()) {
            onShutdown();
        }
    }

    /** No new tasks; the shutdown policies cancel at once what they do not keep, wherever it waits. */
    void shutdown() {
        if (runState >= TIDYING) {
            return;
        }
        advanceRunState(SHUTDOWN);
        onShutdown();
    }

    /**
     * Applies the shutdown policies to every accepted task that has not started, then lets termination happen if
     * nothing is left. The SHUTDOWN rule applies even if shutdownNow has been called since: what the policies keep,
     * its drain returns.
     */
    private void onShutdown() {
        if (runState >= TIDYING) {
            return;
        }
        if (masterStarted) {
            master.runCommand(m -> m.cancelUnless(this::keptAfterShutdown));
        }
        dispatcher.cancelUnless(this::keptAfterShutdown);
        if (dispatcher.isStarved()) {
            // Tasks wait for a worker that the thread factory could not make so far. No new task will come to ask
            // again, so ask now, and leave the retries to the master.
            dispatcher.prestart();
            if (dispatcher.isStarved()) {
                startMaster();
            }
        }
        tryTerminate();
    }

    /**
     * Stops: no new tasks, running tasks interrupted, and the tasks that never started returned (left uncancelled).
     *
     * @return the accepted tasks that never started, as the user holds them
     */
    List<Runnable> shutdownNow() {
        List<ScheduledTask<?>> unstarted = new ArrayList<>();
        if (runState < TIDYING) {
            advanceRunState(STOP);
            drainForShutdownNow(unstarted);
            dispatcher.interruptWorkers();
            tryTerminate();
        }
        List<Runnable> userTasks = new ArrayList<>(unstarted.size());
        for (ScheduledTask<?> task : unstarted) {
            userTasks.add(userTask(task));
            decorations.forget(task); // it is the caller's now
        }
        return userTasks;
    }

    /**
     * Takes every task that has not started out of the inbox, the wheel and the dispatcher, in one step that nothing
     * moves tasks across: on the master, or under this object's monitor when there is no master (which then can no
     * longer start). Only after it may the termination decision cancel stragglers.
     */
    private void drainForShutdownNow(List<ScheduledTask<?>> sink) {
        synchronized (this) {
            if (!masterStarted) {
                dispatcher.drainUnstartedTo(sink);
                drainedWithoutMaster = true;
                return;
            }
        }
        master.runCommand(m -> {
            m.drainPending(sink);
            dispatcher.drainUnstartedTo(sink);
        });
    }

    /** Decides on termination now, on the master or here: an idle executor without threads terminates at once. */
    private void tryTerminate() {
        if (masterStarted) {
            master.runCommand(MasterLoop::tryTerminate);
        } else {
            terminateWithoutMaster();
        }
    }

    /** The dispatcher may have become idle after shutdown: let the master decide on termination. */
    void dispatcherIdle() {
        if (masterStarted) {
            master.wake();
        } else {
            terminateWithoutMaster();
        }
    }

    /**
     * No master thread was started, so only tasks due at once were accepted: the dispatcher alone decides.
     * Synchronized with {@link #startMaster} and {@link #drainForShutdownNow}.
     */
    private synchronized void terminateWithoutMaster() {
        if (masterStarted) {
            master.wake();
            return;
        }
        int rs = runState;
        if (rs < SHUTDOWN || rs >= TIDYING) {
            return;
        }
        if (drainedWithoutMaster) {
            dispatcher.cancelUnstarted(); // stragglers that came after shutdownNow's drain
        }
        dispatcher.tryTerminate(this::finishTermination);
    }

    /** The master has decided to terminate: producers that raced with it cancel their own tasks from now on. */
    void enterTidying() {
        advanceRunState(TIDYING);
    }

    /** Runs once, when the executor has terminated and its threads have left: the terminated() hook, then TERMINATED. */
    void finishTermination() {
        enterTidying();
        try {
            hooks.terminated();
        } catch (Throwable t) {
            reportInternalFailure("terminated() threw", t);
        } finally {
            runState = TERMINATED;
            terminationSignal.countDown();
        }
    }
}
