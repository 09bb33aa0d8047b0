package io.timingwheel;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link ScheduledThreadPoolExecutor} built on a hierarchical timing wheel: change
 * {@code new ScheduledThreadPoolExecutor(n)} into {@code new TimingWheelExecutor(n)} and nothing else changes, except
 * that scheduling, cancelling and holding many timers become much cheaper. It <em>is</em> a
 * {@code ScheduledThreadPoolExecutor}, so declared types, subclasses and their hooks, the pool-management methods and
 * libraries that look for a {@link ThreadPoolExecutor} keep working.
 *
 * <pre>{@code
 * ScheduledThreadPoolExecutor timers = new TimingWheelExecutor(4);
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
 *   <li>The returned futures are {@link RunnableScheduledFuture}s (those of {@link #decorateTask} if a subclass
 *       decorates them); {@code submit} and {@code execute} schedule with zero delay, as the JDK's do.</li>
 *   <li>{@link #shutdown()} rejects new tasks through the {@link RejectedExecutionHandler} (by default, throw
 *       {@link RejectedExecutionException}), lets delayed one-shot tasks run and cancels periodic ones, as set by
 *       {@link #setExecuteExistingDelayedTasksAfterShutdownPolicy} and
 *       {@link #setContinueExistingPeriodicTasksAfterShutdownPolicy}. {@link #shutdownNow()} interrupts running tasks
 *       and returns the very futures that never started.</li>
 *   <li>Due tasks are taken in deadline order, and tasks with equal deadlines in the order one thread submitted
 *       them, whether the workers keep up or not; a periodic task's next run takes its place by its own deadline.
 *       With one worker they run in that order, as the JDK's heap runs them: a one-thread executor is a serial
 *       timer.</li>
 *   <li>A task scheduled while {@link #shutdown()} runs is either rejected through the handler or accepted, and then
 *       ends as the policies say; once {@link #awaitTermination} returns true (or {@link #isTerminated()} is true),
 *       every accepted task has ended.</li>
 *   <li>The hooks {@link #beforeExecute}, {@link #afterExecute}, {@link #terminated} and {@link #decorateTask} are
 *       called where and as the JDK calls them.</li>
 *   <li>Null arguments throw {@link NullPointerException} before anything else happens.</li>
 * </ul>
 * None of the machinery inherited from {@link ThreadPoolExecutor} (its queue, its workers, its run state) is used:
 * every method that would touch it is overridden.
 *
 * <h2>Where it is deliberately better</h2>
 * Each difference below changes only what code written for the JDK could not rely on: a future that would never
 * complete, memory held for nothing, or a setting the JDK does not have.
 * <ul>
 *   <li>Cancelled tasks leave the executor at once, whatever {@link #setRemoveOnCancelPolicy} says: no memory is
 *       held until a cancelled task's deadline, and {@link #getQueue()} no longer counts them.</li>
 *   <li>{@link #remove(Runnable)}, and the removing methods of {@link #getQueue()}, cancel the task they remove, so
 *       its future completes instead of waiting forever.</li>
 *   <li>{@link #shutdownNow()} returns exactly the accepted tasks that never started: a task is either started or
 *       returned, also when tasks run on a {@link Builder#workerExecutor}; none that was cancelled before.</li>
 *   <li>The number of pending tasks can be bounded ({@link Builder#maxPendingTasks}); beyond it, tasks are rejected
 *       through the handler, never silently dropped, and a rejected delayed task that a handler runs itself still
 *       never runs before its deadline.</li>
 *   <li>No accepted task is lost to a failing hook: if {@link #beforeExecute} throws, the task does not run and
 *       fails with that exception (the JDK's leaves its future incomplete forever); the worker thread dies of it and is
 *       replaced, as in the JDK.</li>
 * </ul>
 *
 * <h2>Precision and cost</h2>
 * One master thread keeps the pending tasks in a hierarchical timing wheel (see the package documentation) and hands
 * due tasks to the worker threads. Scheduling and cancelling are O(1) and lock-free; the master sleeps until the next
 * deadline and fires each task as close to its own deadline as its sleep allows, not at tick granularity. The tick
 * ({@link Builder#tick}, 1 ms by default) only groups deadlines.
 */
public class TimingWheelExecutor extends ScheduledThreadPoolExecutor implements AutoCloseable {
    /*
     * Implementation notes.
     *
     * 1. This class is a facade: it checks arguments, builds the task objects, calls decorateTask and the rejection
     *    handler, and answers the JDK's methods; ExecutorCore accepts the tasks and hands them on, and hands out the
     *    parts that answer the rest (PoolControls: the pool methods; PendingTasks: getQueue(); Shutdowns; Lifecycle:
     *    the run state and termination). The core reaches back only through ExecutorHooks, for the three protected
     *    hooks.
     * 2. The superclass's constructor only stores settings and allocates an empty queue; nothing here ever calls a
     *    method of ThreadPoolExecutor that would start its threads or touch its queue or run state.
     * 3. decorateTask is always called; what it returns is remembered only if it is something else than the task
     *    (ExecutorCore.decorated), so undecorated tasks cost nothing more.
     */

    private static final AtomicInteger EXECUTOR_IDS = new AtomicInteger();
    private static final long DEFAULT_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final int DEFAULT_WHEEL_SIZE = 512;

    private final ExecutorCore core;
    private final PendingTaskQueue queue;

    /**
     * Creates an executor with the given core pool size, a default thread factory and the default rejection handler
     * ({@link ThreadPoolExecutor.AbortPolicy}), as {@link ScheduledThreadPoolExecutor#ScheduledThreadPoolExecutor(int)}.
     *
     * @param corePoolSize the number of worker threads to keep; 0 is accepted and, as in the JDK, one worker still runs
     *     tasks
     * @throws IllegalArgumentException if {@code corePoolSize < 0}
     */
    public TimingWheelExecutor(int corePoolSize) {
        this(builder().workerThreads(corePoolSize));
    }

    /**
     * Creates an executor with the given core pool size whose worker threads the given factory makes.
     *
     * @param corePoolSize the number of worker threads to keep; 0 is accepted and one worker still runs tasks
     * @param threadFactory the factory for worker threads
     * @throws IllegalArgumentException if {@code corePoolSize < 0}
     * @throws NullPointerException if {@code threadFactory} is null
     */
    public TimingWheelExecutor(int corePoolSize, ThreadFactory threadFactory) {
        this(builder().workerThreads(corePoolSize).threadFactory(threadFactory));
    }

    /**
     * Creates an executor with the given core pool size and rejection handler.
     *
     * @param corePoolSize the number of worker threads to keep; 0 is accepted and one worker still runs tasks
     * @param handler the handler for rejected tasks
     * @throws IllegalArgumentException if {@code corePoolSize < 0}
     * @throws NullPointerException if {@code handler} is null
     */
    public TimingWheelExecutor(int corePoolSize, RejectedExecutionHandler handler) {
        this(builder().workerThreads(corePoolSize).rejectedExecutionHandler(handler));
    }

    /**
     * Creates an executor with the given core pool size, thread factory and rejection handler.
     *
     * @param corePoolSize the number of worker threads to keep; 0 is accepted and one worker still runs tasks
     * @param threadFactory the factory for worker threads
     * @param handler the handler for rejected tasks
     * @throws IllegalArgumentException if {@code corePoolSize < 0}
     * @throws NullPointerException if {@code threadFactory} or {@code handler} is null
     */
    public TimingWheelExecutor(int corePoolSize, ThreadFactory threadFactory, RejectedExecutionHandler handler) {
        this(builder().workerThreads(corePoolSize).threadFactory(threadFactory).rejectedExecutionHandler(handler));
    }

    /**
     * Creates an executor with the builder's settings; for subclasses that want settings beyond the constructors'
     * ({@code new MyExecutor(TimingWheelExecutor.builder().maxPendingTasks(1000))}).
     *
     * @param builder the settings
     * @throws NullPointerException if {@code builder} is null
     * @throws IllegalStateException if the settings cannot work on this runtime (see {@link Builder#build()})
     */
    protected TimingWheelExecutor(Builder builder) {
        this(builder.checked(), "timingwheel-" + EXECUTOR_IDS.incrementAndGet());
    }

    private TimingWheelExecutor(Builder b, String name) {
        this(b, name, b.threadFactory != null ? b.threadFactory
                : new NamedThreadFactory(name + "-worker-", false, true));
    }

    // The core keeps the hooks adapter, which refers to this executor; it calls the hooks only when tasks run, as the
    // JDK's executor does (a subclass whose constructor schedules tasks before its own fields are set sees the hooks
    // called early there too).
    @SuppressWarnings("this-escape")
    private TimingWheelExecutor(Builder b, String name, ThreadFactory workerThreads) {
        super(b.workerThreads, workerThreads, b.handler);
        this.core = new ExecutorCore(b.settings(name, workerThreads), new Hooks());
        this.queue = new PendingTaskQueue(core);
        if (b.clock != null) {
            b.clock.drive(core); // once the core is built: the clock's advance may look at it from another thread
        }
    }

    /**
     * Returns a builder for an executor with settings beyond the constructors': tick, wheel size, master thread
     * factory, pending limit, an external executor for the tasks, a failure handler, the fixed-rate policy, JDK
     * Flight Recorder events and a {@link VirtualClock} for tests.
     *
     * @return a new builder with the defaults of {@code new TimingWheelExecutor(1)}
     */
    public static Builder builder() {
        return new Builder();
    }

    // -- scheduling -------------------------------------------------------------------------------------------------

    /**
     * Schedules a one-shot action to run after the given delay, as the JDK does.
     *
     * @return the future of the task (what {@link #decorateTask(Runnable, RunnableScheduledFuture)} made of it); its
     *     {@code get()} returns null once the action has run
     * @throws RejectedExecutionException if the handler rejects it (the executor is shut down, or a pending-task limit
     *     is reached)
     * @throws NullPointerException if {@code command} or {@code unit} is null
     */
    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        if (command == null || unit == null) {
            throw new NullPointerException();
        }
        long nanos = unit.toNanos(delay);
        RunnableTask task = new RunnableTask(core, command, deadlineAfter(nanos));
        return submitOrReject(task, decorateTask(command, task), nanos);
    }

    /**
     * Schedules a one-shot value-returning task to run after the given delay, as the JDK does.
     *
     * @return the future of the task (what {@link #decorateTask(Callable, RunnableScheduledFuture)} made of it)
     * @throws RejectedExecutionException if the handler rejects it
     * @throws NullPointerException if {@code callable} or {@code unit} is null
     */
    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        if (callable == null || unit == null) {
            throw new NullPointerException();
        }
        long nanos = unit.toNanos(delay);
        CallableTask<V> task = new CallableTask<>(core, callable, deadlineAfter(nanos));
        return submitOrReject(task, decorateTask(callable, task), nanos);
    }

    /**
     * Schedules a periodic action at a fixed rate, as the JDK does: runs at {@code initialDelay + n * period}, never
     * overlapping; late runs are caught up (or skipped, with {@link FixedRatePolicy#SKIP_MISSED}); a run that throws
     * ends the series.
     *
     * @return the future of the series; it completes only by cancellation or by a run's exception
     * @throws RejectedExecutionException if the handler rejects it
     * @throws NullPointerException if {@code command} or {@code unit} is null
     * @throws IllegalArgumentException if {@code period <= 0}
     */
    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        if (command == null || unit == null) {
            throw new NullPointerException();
        }
        if (period <= 0) {
            throw new IllegalArgumentException("period must be positive: " + period);
        }
        return schedulePeriodic(command, initialDelay, unit.toNanos(period), unit);
    }

    /**
     * Schedules a periodic action with a fixed delay between the end of one run and the start of the next, as the
     * JDK does; a run that throws ends the series.
     *
     * @return the future of the series; it completes only by cancellation or by a run's exception
     * @throws RejectedExecutionException if the handler rejects it
     * @throws NullPointerException if {@code command} or {@code unit} is null
     * @throws IllegalArgumentException if {@code delay <= 0}
     */
    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        if (command == null || unit == null) {
            throw new NullPointerException();
        }
        if (delay <= 0) {
            throw new IllegalArgumentException("delay must be positive: " + delay);
        }
        return schedulePeriodic(command, initialDelay, -unit.toNanos(delay), unit);
    }

    /** @param signedPeriod positive for fixed rate, negative for fixed delay, as the JDK encodes it */
    private ScheduledFuture<?> schedulePeriodic(Runnable command, long initialDelay, long signedPeriod,
                                                TimeUnit unit) {
        long nanos = unit.toNanos(initialDelay);
        PeriodicTask task = new PeriodicTask(core, command, deadlineAfter(nanos), signedPeriod);
        return submitOrReject(task, decorateTask(command, task), nanos);
    }

    /**
     * Executes the command with zero delay, as {@link ScheduledThreadPoolExecutor#execute} does. A task that this
     * executor rejected and that a handler hands back ({@code DiscardOldestPolicy} does, after making room) is
     * accepted again with its own deadline.
     *
     * @throws RejectedExecutionException if the handler rejects it
     * @throws NullPointerException if {@code command} is null
     */
    @Override
    public void execute(Runnable command) {
        if (command == null) {
            throw new NullPointerException();
        }
        ScheduledTask<?> task = core.rejectedTask(command);
        if (task != null) {
            ExecutorCore.Refusal refusal = core.resubmit(task);
            if (refusal != null) {
                reject(task, task, refusal);
            }
            return;
        }
        schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    /**
     * Submits the task to run now, as {@link ScheduledThreadPoolExecutor#submit(Runnable)}: a scheduled future with
     * zero delay.
     *
     * @throws RejectedExecutionException if the handler rejects it
     * @throws NullPointerException if {@code task} is null
     */
    @Override
    public Future<?> submit(Runnable task) {
        return schedule(task, 0, TimeUnit.NANOSECONDS);
    }

    /**
     * Submits the task to run now; its future returns {@code result}.
     *
     * @throws RejectedExecutionException if the handler rejects it
     * @throws NullPointerException if {@code task} is null
     */
    @Override
    public <T> Future<T> submit(Runnable task, T result) {
        return schedule(Executors.callable(task, result), 0, TimeUnit.NANOSECONDS);
    }

    /**
     * Submits the value-returning task to run now.
     *
     * @throws RejectedExecutionException if the handler rejects it
     * @throws NullPointerException if {@code task} is null
     */
    @Override
    public <T> Future<T> submit(Callable<T> task) {
        return schedule(task, 0, TimeUnit.NANOSECONDS);
    }

    /**
     * Returns the task to be run and to be returned to the caller: the task itself, as in the JDK. A subclass may
     * return a wrapper that delegates to {@code task} (its {@code run}, {@code cancel}, {@code get}...): the executor
     * then runs the wrapper (periodic runs too), returns it from {@code schedule}, and shows it in {@link #getQueue()}
     * and {@link #shutdownNow()}. If the wrapper's {@code run} does not call {@code task.run()}, the task is cancelled
     * when the wrapper's {@code run} returns, so that it still ends.
     *
     * @param runnable the submitted action
     * @param task the task created to run it
     * @return the task to run and return, never null
     */
    @Override
    protected <V> RunnableScheduledFuture<V> decorateTask(Runnable runnable, RunnableScheduledFuture<V> task) {
        return task;
    }

    /**
     * Returns the task to be run and to be returned to the caller: the task itself, as in the JDK. See
     * {@link #decorateTask(Runnable, RunnableScheduledFuture)}.
     *
     * @param callable the submitted task
     * @param task the task created to run it
     * @return the task to run and return, never null
     */
    @Override
    protected <V> RunnableScheduledFuture<V> decorateTask(Callable<V> callable, RunnableScheduledFuture<V> task) {
        return task;
    }

    /** @return the deadline of a task scheduled now with a delay of {@code nanos} ("now" for zero and less) */
    private long deadlineAfter(long nanos) {
        long now = core.now();
        return nanos <= 0 ? now : Deadlines.after(now, nanos);
    }

    /** Accepts a task built by this class, or hands what the user holds of it to the rejection handler. */
    private <F extends RunnableScheduledFuture<?>> F submitOrReject(ScheduledTask<?> task, F userTask,
                                                                     long delayNanos) {
        if (userTask == null) {
            throw new NullPointerException("decorateTask returned null");
        }
        core.decorated(task, userTask);
        ExecutorCore.Refusal refusal = core.accept(task, delayNanos);
        if (refusal != null) {
            reject(task, userTask, refusal);
        }
        return userTask;
    }

    /**
     * Hands a task that was not accepted to the rejection handler, as the JDK does. Two cases are ours alone, since
     * the JDK has no pending limit: the default {@code AbortPolicy} names the limit when it is the cause, and
     * {@code DiscardOldestPolicy} discards the task due first to make room (its own {@code getQueue().poll()} takes
     * only a task already due, and retrying without room would recurse until the stack overflows).
     */
    private void reject(ScheduledTask<?> task, Runnable userTask, ExecutorCore.Refusal refusal) {
        RejectedExecutionHandler handler = getRejectedExecutionHandler();
        if (refusal == ExecutorCore.Refusal.PENDING_LIMIT
                && handler.getClass() == ThreadPoolExecutor.DiscardOldestPolicy.class) {
            while (refusal == ExecutorCore.Refusal.PENDING_LIMIT && core.discardEarliestPending()) {
                refusal = core.resubmit(task);
            }
            if (refusal == null) {
                return;
            }
        }
        core.rejected(task);
        if (refusal != ExecutorCore.Refusal.SHUT_DOWN && handler.getClass() == ThreadPoolExecutor.AbortPolicy.class) {
            // The JDK's default policy, with the cause an operator needs to tell overload from shutdown.
            throw new RejectedExecutionException("Task " + userTask + " rejected from " + this + ": "
                    + (refusal == ExecutorCore.Refusal.PENDING_LIMIT
                    ? "the pending-task limit of " + core.maxPendingTasks() + " is reached"
                    : "no master thread could be started"));
        }
        handler.rejectedExecution(userTask, this);
    }

    // -- hooks ------------------------------------------------------------------------------------------------------

    /**
     * Called on the thread that is about to run {@code task}, as the JDK calls it; empty here. If it throws, the task
     * does not run and fails with that exception (its future's {@code get()} throws {@code ExecutionException}), and
     * the thread dies of it and is replaced, as in the JDK.
     *
     * @param thread the thread that will run the task
     * @param task the task, as the user holds it (decorated, if {@link #decorateTask} decorated it)
     */
    @Override
    protected void beforeExecute(Thread thread, Runnable task) {
    }

    /**
     * Called on the thread that ran {@code task}, after it ran, as the JDK calls it; empty here. The task's future has
     * completed by then, except a periodic task's, which waits for its next run. If it throws, it is called once more
     * with what it threw, and the thread dies of that and is replaced, as in the JDK; the task has ended already.
     *
     * @param task the task, as the user holds it
     * @param thrown what escaped the task's {@code run}: null for the executor's own futures, which keep a failure in
     *     the future, as the JDK's do
     */
    @Override
    protected void afterExecute(Runnable task, Throwable thrown) {
    }

    /**
     * Called once, when the executor has terminated and its threads have left, before {@link #isTerminated()} becomes
     * true and {@link #awaitTermination} returns; empty here. An exception it throws is reported to the thread's
     * uncaught-exception handler; the executor terminates anyway.
     */
    @Override
    protected void terminated() {
    }

    /** The core's way to the protected hooks, which a subclass may override. */
    private final class Hooks implements ExecutorHooks {
        private final boolean runHooks = overrides("beforeExecute", Thread.class, Runnable.class)
                || overrides("afterExecute", Runnable.class, Throwable.class);

        /** @return whether a subclass between this executor's class and this one declares the method */
        private boolean overrides(String name, Class<?>... parameterTypes) {
            for (Class<?> c = TimingWheelExecutor.this.getClass(); c != TimingWheelExecutor.class;
                    c = c.getSuperclass()) {
                try {
                    c.getDeclaredMethod(name, parameterTypes);
                    return true;
                } catch (NoSuchMethodException e) {
                    // not declared here: look further up
                } catch (SecurityException e) {
                    return true; // cannot tell: call it, as the JDK does
                }
            }
            return false;
        }

        @Override
        public boolean hasRunHooks() {
            return runHooks;
        }

        @Override
        public void beforeExecute(Thread thread, Runnable task) {
            TimingWheelExecutor.this.beforeExecute(thread, task);
        }

        @Override
        public void afterExecute(Runnable task, Throwable thrown) {
            TimingWheelExecutor.this.afterExecute(task, thrown);
        }

        @Override
        public void terminated() {
            TimingWheelExecutor.this.terminated();
        }
    }

    // -- shutdown ---------------------------------------------------------------------------------------------------

    /**
     * Initiates an orderly shutdown, as the JDK's: no new task is accepted; delayed one-shot tasks still run and
     * periodic tasks are cancelled, unless the two shutdown policies say otherwise. The policies are applied at once
     * to every task that has not started, wherever it waits. An executor with nothing left to run and no thread
     * terminates before this method returns. Idempotent.
     */
    @Override
    public void shutdown() {
        core.shutdowns().shutdown();
    }

    /**
     * Stops, as the JDK's: no new task is accepted, running tasks are interrupted, and the tasks that never started
     * are returned, the very futures that {@code schedule} returned (decorated, if {@link #decorateTask} decorated
     * them), left uncancelled as the JDK leaves them. Exactly the accepted tasks that never started are returned. A
     * periodic task that is running is not returned; it ends after its current run.
     *
     * @return the accepted tasks that never started
     */
    @Override
    public List<Runnable> shutdownNow() {
        return core.shutdowns().shutdownNow();
    }

    /**
     * Returns whether {@link #shutdown()} or {@link #shutdownNow()} has been called.
     *
     * @return true once shut down
     */
    @Override
    public boolean isShutdown() {
        return core.isShutdown();
    }

    /**
     * Returns whether the executor is shutting down but has not terminated yet, as the JDK's.
     *
     * @return true between shutdown and termination
     */
    @Override
    public boolean isTerminating() {
        return core.lifecycle().isTerminating();
    }

    /**
     * Returns whether the executor has terminated: every accepted task has ended (run, cancelled or returned by
     * {@link #shutdownNow()}) and its threads have left.
     *
     * @return true once terminated
     */
    @Override
    public boolean isTerminated() {
        return core.lifecycle().isTerminated();
    }

    /**
     * Blocks until the executor has terminated, the timeout elapses, or the current thread is interrupted.
     *
     * @return true if it terminated, false if the timeout elapsed first
     * @throws InterruptedException if interrupted while waiting
     */
    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return core.lifecycle().awaitTermination(timeout, unit);
    }

    /**
     * Shuts down and waits until all tasks have completed, as {@code ExecutorService.close()} does on Java 19 and
     * later (and here on Java 17 too): if interrupted while waiting, calls {@link #shutdownNow()} once, keeps waiting,
     * and restores the interrupt status before returning. Does nothing on an executor that has terminated.
     */
    @Override
    public void close() {
        if (isTerminated()) {
            return;
        }
        shutdown();
        // the first interrupt stops the running tasks; later ones change nothing
        Uninterruptibly.await(core.lifecycle()::awaitTermination, this::shutdownNow);
    }

    // -- policies ---------------------------------------------------------------------------------------------------

    /**
     * Sets whether periodic tasks continue after {@link #shutdown()}; default false. Setting it to false after
     * shutdown cancels them at once.
     *
     * @param value true to let periodic tasks run on after shutdown
     */
    @Override
    public void setContinueExistingPeriodicTasksAfterShutdownPolicy(boolean value) {
        core.shutdowns().setContinueExistingPeriodicTasks(value);
    }

    /**
     * Returns whether periodic tasks continue after {@link #shutdown()}; default false, as in the JDK.
     *
     * @return the policy
     */
    @Override
    public boolean getContinueExistingPeriodicTasksAfterShutdownPolicy() {
        return core.lifecycle().continuesExistingPeriodicTasks();
    }

    /**
     * Sets whether delayed one-shot tasks still run after {@link #shutdown()}; default true. Setting it to false
     * after shutdown cancels them at once (but those already due, as in the JDK).
     *
     * @param value false to cancel delayed one-shot tasks at shutdown
     */
    @Override
    public void setExecuteExistingDelayedTasksAfterShutdownPolicy(boolean value) {
        core.shutdowns().setExecuteExistingDelayedTasks(value);
    }

    /**
     * Returns whether delayed one-shot tasks still run after {@link #shutdown()}; default true, as in the JDK.
     *
     * @return the policy
     */
    @Override
    public boolean getExecuteExistingDelayedTasksAfterShutdownPolicy() {
        return core.lifecycle().executesExistingDelayedTasks();
    }

    /**
     * Kept for source compatibility: unlike the JDK's, this executor always releases cancelled tasks at once,
     * whatever the value, which is only remembered.
     *
     * @param value remembered for {@link #getRemoveOnCancelPolicy()}
     */
    @Override
    public void setRemoveOnCancelPolicy(boolean value) {
        super.setRemoveOnCancelPolicy(value);
    }

    /**
     * Returns the value last given to {@link #setRemoveOnCancelPolicy}. Unlike the JDK's, this executor releases
     * cancelled tasks at once either way.
     *
     * @return the remembered value; default false
     */
    @Override
    public boolean getRemoveOnCancelPolicy() {
        return super.getRemoveOnCancelPolicy();
    }

    // -- pool management --------------------------------------------------------------------------------------------

    /**
     * Returns the core pool size: the number of worker threads kept, as set (0 is kept as given; one worker still
     * runs tasks, as in the JDK).
     *
     * @return the core pool size
     */
    @Override
    public int getCorePoolSize() {
        return core.pool().corePoolSize();
    }

    /**
     * Sets the core pool size, as the JDK's: a larger size starts workers for the tasks already waiting, a smaller one
     * lets the excess workers leave once idle for the keep-alive time. With a {@link Builder#workerExecutor} it is
     * only remembered.
     *
     * @param corePoolSize the new core size
     * @throws IllegalArgumentException if negative or greater than {@link #getMaximumPoolSize()}
     */
    @Override
    public void setCorePoolSize(int corePoolSize) {
        if (corePoolSize < 0) {
            throw new IllegalArgumentException("corePoolSize must be non-negative: " + corePoolSize);
        }
        if (corePoolSize > getMaximumPoolSize()) {
            throw new IllegalArgumentException("corePoolSize must not exceed maximumPoolSize: " + corePoolSize);
        }
        core.pool().setCorePoolSize(corePoolSize);
    }

    /**
     * Starts a core thread if fewer than the core size run, as the JDK's.
     *
     * @return true if a thread was started
     */
    @Override
    public boolean prestartCoreThread() {
        return core.pool().prestartCoreThread();
    }

    /**
     * Starts every missing core thread, as the JDK's.
     *
     * @return the number of threads started
     */
    @Override
    public int prestartAllCoreThreads() {
        int started = 0;
        while (prestartCoreThread()) {
            started++;
        }
        return started;
    }

    /**
     * Returns the maximum pool size, as set; it has no effect, as in {@link ScheduledThreadPoolExecutor}.
     *
     * @return the maximum pool size; {@code Integer.MAX_VALUE} by default
     */
    @Override
    public int getMaximumPoolSize() {
        return core.pool().maximumPoolSize();
    }

    /**
     * Sets the maximum pool size, which has no effect, as in {@link ScheduledThreadPoolExecutor}.
     *
     * @param maximumPoolSize the new maximum
     * @throws IllegalArgumentException if not positive or less than the core pool size
     */
    @Override
    public void setMaximumPoolSize(int maximumPoolSize) {
        if (maximumPoolSize <= 0 || maximumPoolSize < getCorePoolSize()) {
            throw new IllegalArgumentException("maximumPoolSize must be positive and not less than corePoolSize: "
                    + maximumPoolSize);
        }
        core.pool().setMaximumPoolSize(maximumPoolSize);
    }

    /**
     * Returns how long a worker beyond the core size (or any worker, with core thread time-out) may stay idle before
     * it leaves; 10 ms by default, as in {@link ScheduledThreadPoolExecutor}.
     *
     * @param unit the unit of the result
     * @return the keep-alive time in {@code unit}
     */
    @Override
    public long getKeepAliveTime(TimeUnit unit) {
        return unit.convert(core.pool().keepAliveNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Sets how long a worker beyond the core size (or any, with core thread time-out) may stay idle, as the JDK's.
     *
     * @param time the time; 0 lets such workers leave as soon as they are idle
     * @param unit its unit
     * @throws IllegalArgumentException if {@code time < 0}, or {@code time == 0} while core threads may time out
     * @throws NullPointerException if {@code unit} is null
     */
    @Override
    public void setKeepAliveTime(long time, TimeUnit unit) {
        if (time < 0) {
            throw new IllegalArgumentException("time must be non-negative: " + time);
        }
        if (time == 0 && allowsCoreThreadTimeOut()) {
            throw new IllegalArgumentException("Core threads must have nonzero keep alive times");
        }
        core.pool().setKeepAliveNanos(unit.toNanos(time));
    }

    /**
     * Returns whether core threads leave after the keep-alive time without work; default false.
     *
     * @return the policy
     */
    @Override
    public boolean allowsCoreThreadTimeOut() {
        return core.pool().allowsCoreThreadTimeOut();
    }

    /**
     * Sets whether core threads leave after the keep-alive time without work, as the JDK's.
     *
     * @param value true to let core threads time out
     * @throws IllegalArgumentException if {@code value} is true and the keep-alive time is not positive
     */
    @Override
    public void allowCoreThreadTimeOut(boolean value) {
        if (value && core.pool().keepAliveNanos() <= 0) {
            throw new IllegalArgumentException("Core threads must have nonzero keep alive times");
        }
        core.pool().allowCoreThreadTimeOut(value);
    }

    /**
     * Returns the number of worker threads alive now; with a {@link Builder#workerExecutor}, the threads of that
     * executor running a task of ours.
     *
     * @return the pool size
     */
    @Override
    public int getPoolSize() {
        return core.pool().poolSize();
    }

    /**
     * Returns the largest number of worker threads that have been alive at once.
     *
     * @return the largest pool size
     */
    @Override
    public int getLargestPoolSize() {
        return core.pool().largestPoolSize();
    }

    /**
     * Returns the approximate number of threads running a task now.
     *
     * @return the active threads
     */
    @Override
    public int getActiveCount() {
        return core.pool().activeCount();
    }

    /**
     * Returns the approximate number of runs ever scheduled: completed runs, running tasks and pending tasks, as
     * {@link ThreadPoolExecutor#getTaskCount()} counts them.
     *
     * @return the task count
     */
    @Override
    public long getTaskCount() {
        Dispatcher.Figures runs = core.pool().figures(); // the runs ended and under way, read together, then the rest
        return runs.completed() + runs.active() + core.pending().count();
    }

    /**
     * Returns the approximate number of runs that have completed (each run of a periodic task counts), as the JDK
     * counts them.
     *
     * @return the completed runs
     */
    @Override
    public long getCompletedTaskCount() {
        return core.pool().completedCount();
    }

    /**
     * Returns the queue of the tasks that are accepted and have not started, as the JDK's executor does, and the same
     * queue on every call. Its elements are what {@code schedule} returned (decorated, if {@link #decorateTask}
     * decorated them); each call sees the executor as it is then, and the iterator walks a snapshot. It does what code
     * written for the JDK's queue does with it:
     * <ul>
     *   <li>{@code poll}, {@code take}, the timed {@code poll} and {@code drainTo} take out only due tasks, those due
     *       first, as a delay queue does; a task taken out is the caller's, uncancelled, as one that
     *       {@link #shutdownNow()} returns: the executor never runs it, the caller may run it, cancel it or add it
     *       back. {@code peek} shows the task due first, due or not.</li>
     *   <li>{@code remove}, {@code clear}, {@code removeIf}, {@code removeAll}, {@code retainAll} and the iterator's
     *       {@code remove} cancel what they remove, so its future completes (the JDK's never completes).</li>
     *   <li>{@code add}, {@code offer} and {@code put} take a {@link RunnableScheduledFuture} (anything else is a
     *       {@link ClassCastException}, as in the JDK), which runs after its delay, also after {@link #shutdown()} if
     *       the policies keep it; after {@link #shutdownNow()} it could never run, and is cancelled. Under a
     *       {@link Builder#maxPendingTasks pending limit}, {@code offer} returns false once the limit is reached,
     *       {@code add} throws {@link IllegalStateException} and {@code put} waits.</li>
     * </ul>
     *
     * @return the pending tasks
     */
    @Override
    public BlockingQueue<Runnable> getQueue() {
        return queue;
    }

    /**
     * Removes a task that has not started, cancelling it (the JDK leaves a removed task's future incomplete forever).
     *
     * @param task a task as {@code schedule} returned it
     * @return true if the task was pending here and is now cancelled
     */
    @Override
    public boolean remove(Runnable task) {
        return core.pending().remove(task);
    }

    /** Releases cancelled tasks now. They are released promptly anyway; this only waits until it has happened. */
    @Override
    public void purge() {
        core.pending().purge();
    }

    /**
     * Returns the factory that makes worker threads.
     *
     * @return the thread factory
     */
    @Override
    public ThreadFactory getThreadFactory() {
        return core.pool().threadFactory();
    }

    /**
     * Sets the factory for worker threads started from now on.
     *
     * @param threadFactory the new factory
     * @throws NullPointerException if it is null
     */
    @Override
    public void setThreadFactory(ThreadFactory threadFactory) {
        core.pool().setThreadFactory(Objects.requireNonNull(threadFactory, "threadFactory"));
    }

    /**
     * Returns the handler called for rejected tasks.
     *
     * @return the rejection handler
     */
    @Override
    public RejectedExecutionHandler getRejectedExecutionHandler() {
        return super.getRejectedExecutionHandler();
    }

    /**
     * Sets the handler called for rejected tasks. It receives the rejected task (as {@code schedule} would have
     * returned it) and this executor, so the JDK's four policies work unchanged. With the default
     * {@link ThreadPoolExecutor.AbortPolicy}, a task rejected because the pending-task limit is reached gets a message
     * that says so.
     *
     * @param handler the new handler
     * @throws NullPointerException if it is null
     */
    @Override
    public void setRejectedExecutionHandler(RejectedExecutionHandler handler) {
        super.setRejectedExecutionHandler(handler);
    }

    /**
     * Takes a snapshot of this executor's activity: pending, running, completed, failed, cancelled and rejected
     * tasks, and a histogram of how late runs started. Nothing is counted on the scheduling path for it: the counts
     * are kept where the work happens anyway.
     *
     * @return the statistics as of now
     */
    public ExecutorStatistics statistics() {
        return core.statistics();
    }

    /**
     * Returns the run state and the counts, in the form of {@link ThreadPoolExecutor#toString()}: state, pool size,
     * active threads, queued (pending) tasks, completed tasks.
     *
     * @return the state and counts
     */
    @Override
    public String toString() {
        String state = core.lifecycle().isTerminated() ? "Terminated" : core.isShutdown() ? "Shutting down" : "Running";
        return getClass().getName() + "@" + Integer.toHexString(hashCode()) + "[" + state
                + ", pool size = " + core.pool().poolSize()
                + ", active threads = " + core.pool().activeCount()
                + ", queued tasks = " + core.pending().count()
                + ", completed tasks = " + core.pool().completedCount() + "]";
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
        private RejectedExecutionHandler handler = new ThreadPoolExecutor.AbortPolicy();
        private long maxPendingTasks;
        private Executor workerExecutor;
        private TaskFailureHandler failureHandler;
        private FixedRatePolicy fixedRatePolicy = FixedRatePolicy.CATCH_UP;
        private long lateRunEventThresholdNanos = -1;
        private VirtualClock clock;

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
         * Sets the core pool size (default 1); 0 is accepted as the JDK accepts it: one worker still runs.
         *
         * @param count the number of worker threads to keep
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
         * thread. A task handed over starts when a thread of that executor claims it; {@code shutdownNow()} returns
         * those not yet claimed. Shutting down the given executor is the caller's business.
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
         * each rejected task. They are recorded only while a recording has them enabled. The runtime must have the
         * {@code jdk.jfr} module ({@link #build()} checks).
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

        /**
         * Takes time from {@code clock}, which a test moves, instead of {@link System#nanoTime()} (the default): the
         * executor is the same, with its own threads and every guarantee, but nothing falls due until the test calls
         * {@link VirtualClock#advance}, which runs what falls due and returns once those runs have ended. See
         * {@link VirtualClock}.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(VirtualClock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Creates an executor with these settings.
         *
         * @return a new executor
         * @throws IllegalStateException if Flight Recorder events are on but this runtime lacks the {@code jdk.jfr}
         *     module (a {@code jlink} image without it, or {@code --limit-modules})
         */
        public TimingWheelExecutor build() {
            return new TimingWheelExecutor(this);
        }

        /** @return the settings as the core takes them, for an executor of the given name and worker threads */
        private ExecutorSettings settings(String name, ThreadFactory workers) {
            return new ExecutorSettings(name, workerThreads, workers, masterThreadFactory, workerExecutor,
                    tickNanos, wheelSize, maxPendingTasks, failureHandler,
                    fixedRatePolicy == FixedRatePolicy.SKIP_MISSED, lateRunEventThresholdNanos, clock);
        }

        /** @return this builder, once it is known to work on this runtime */
        private Builder checked() {
            if (lateRunEventThresholdNanos >= 0 && !flightRecorderAvailable()) {
                throw new IllegalStateException("flightRecorderEvents needs the jdk.jfr module, which this runtime "
                        + "does not have (or does not let io.timingwheel read): add it, e.g. with "
                        + "--add-modules jdk.jfr, or leave the events off");
            }
            return this;
        }

        private static boolean flightRecorderAvailable() {
            Optional<Module> jfr = ModuleLayer.boot().findModule("jdk.jfr");
            return jfr.isPresent() && Builder.class.getModule().canRead(jfr.get());
        }
    }
}
