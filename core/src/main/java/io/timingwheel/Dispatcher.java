package io.timingwheel;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Where due tasks go to run: the executor's own {@link WorkerPool}, or an {@link ExternalDispatcher}. It also keeps the
 * pool settings of {@link java.util.concurrent.ThreadPoolExecutor} (core size, keep-alive...), which only the own pool
 * acts on. It reaches the executor only through its {@link DispatcherHost} and runs claimed tasks with its
 * {@link TaskRunner}.
 *
 * <p>A task comes here from the master, when it falls due or up to {@link #handOverAheadNanos()} before, or straight
 * from its producer or its last run, when it is due within {@link #straightReachNanos()}. The external dispatcher
 * takes only due tasks (both times are zero there).
 */
abstract class Dispatcher {
    /** STPE's keep-alive: how long a thread beyond the core size (or any, with core timeout) may stay idle. */
    static final long DEFAULT_KEEP_ALIVE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /** What {@link #close} found. */
    enum Closing {
        /** Tasks wait or run: not closed. */
        BUSY,
        /** Closed before. */
        ALREADY_CLOSED,
        /** Closed now; threads are leaving, and the last to leave calls {@link DispatcherHost#threadsGone()}. */
        THREADS_LEAVING,
        /** Closed now, and no thread of ours is left: the caller finishes the termination. */
        NO_THREADS_LEFT
    }

    /** A snapshot of the pool's figures for {@code statistics()}, read together. */
    record Figures(int running, long completedRuns, long failedRuns, long[] lateness) {
    }

    final String executor;
    final DispatcherHost host;
    final TaskRunner runner;

    /** The order gate, which the master opens when it hands tasks over (see {@link #dispatchAll}). */
    final OrderGate gate;

    /** The core pool size, as set; 0 still runs one worker, as in the JDK. */
    volatile int corePoolSize;

    /** The maximum pool size, as set: kept for the JDK's checks and getters only, as STPE ignores it too. */
    volatile int maximumPoolSize = Integer.MAX_VALUE;

    volatile long keepAliveNanos = DEFAULT_KEEP_ALIVE_NANOS;

    volatile boolean allowCoreThreadTimeOut;

    /** The factory for worker threads started from now on (only remembered for an external executor). */
    volatile ThreadFactory threadFactory;

    Dispatcher(String executor, DispatcherHost host, TaskRunner runner, OrderGate gate, int corePoolSize,
               ThreadFactory threads) {
        this.executor = executor;
        this.host = host;
        this.runner = runner;
        this.gate = gate;
        this.corePoolSize = corePoolSize;
        this.threadFactory = threads;
    }

    // -- hand-offs --------------------------------------------------------------------------------------------------

    /**
     * How far ahead of their deadlines the master hands tasks to this dispatcher: its workers wait for a task's
     * deadline themselves, so the master hands over what falls due within this time in one turn and need not wake
     * for each deadline. Zero: only due tasks (an external executor runs what it is given at once).
     */
    abstract long handOverAheadNanos();

    /**
     * How far ahead of its deadline a publisher hands a task straight to this dispatcher, past the master: a task
     * scheduled with at most this delay, or a periodic task whose next run is this close. Zero: only tasks due now.
     */
    abstract long straightReachNanos();

    /**
     * Takes a task that came straight from its producer or from its last run: due now, or due within
     * {@link #straightReachNanos()}.
     *
     * @return false if closed, also if it closed as the task arrived (then the task is refused here): the caller
     *     takes the task back and asks for the termination decision again
     */
    abstract boolean dispatch(ScheduledTask<?> task);

    /**
     * Takes the master's hand-over: its tasks, in deadline order, due within {@link #handOverAheadNanos()}; then opens
     * the gate as the hand-over says, before any worker is told of the tasks, so a worker woken for one finds the gate
     * open for it too. The master only; the hand-over holds at least one task.
     */
    abstract void dispatchAll(HandOver handOver);

    /**
     * The master opened the gate: workers waiting for it look again.
     *
     * @return whether any worker was waiting for it (and was woken)
     */
    abstract boolean gateOpened();

    // -- pool management --------------------------------------------------------------------------------------------

    /** Starts a worker if fewer than the core size run (at least one), as the JDK does on every delayed schedule. */
    abstract void prestart();

    /** @return true once as many workers run as the core size asks for (always, for an external executor) */
    abstract boolean isFullyStarted();

    /**
     * Sets the core size; workers start or retire as the JDK's do: a larger size starts workers for the tasks that
     * wait, up to {@code waiting} of them.
     */
    abstract void setCorePoolSize(int size, long waiting);

    /** The keep-alive settings changed: idle workers look again whether they may stay, and for how long. */
    abstract void keepAliveChanged();

    /** @return true if a core thread was started, as {@code ThreadPoolExecutor.prestartCoreThread} */
    abstract boolean prestartCoreThread();

    /** @return the threads of the pool now, as {@code ThreadPoolExecutor.getPoolSize} */
    abstract int poolSize();

    /** @return the most threads the pool has had at once */
    abstract int largestPoolSize();

    /** @return the threads running a task now */
    abstract int activeCount();

    /** @return the runs that have ended (each run of a periodic task counts) */
    abstract long completedCount();

    /** @return the figures for {@code statistics()}, read together */
    abstract Figures figures();

    // -- queries and shutdown ---------------------------------------------------------------------------------------

    /** @return true if tasks wait here but no worker exists to run them (thread creation has been failing) */
    abstract boolean isStarved();

    /** Cancels every waiting task that the shutdown policies do not keep. */
    abstract void applyShutdownPolicies();

    /** Moves every waiting task that has not started into {@code sink}, marked as returned, for shutdownNow. */
    abstract void drainUnstartedTo(List<ScheduledTask<?>> sink);

    /** Takes up to {@code max} of the waiting tasks, those due first, into {@code sink}, marked as returned. */
    abstract int takeDue(int max, List<ScheduledTask<?>> sink);

    /** Cancels every waiting task. */
    final void cancelWaiting() {
        List<ScheduledTask<?>> waiting = new ArrayList<>();
        copyWaitingTo(waiting);
        for (ScheduledTask<?> task : waiting) {
            task.cancelIfPending();
        }
    }

    /** Copies the waiting tasks that have not started into {@code sink}. */
    abstract void copyWaitingTo(List<ScheduledTask<?>> sink);

    /**
     * @return a time at or before which the first task waiting here is due ({@link TimingWheel#NONE} if none waits)
     */
    abstract long firstWaitingDeadline();

    /** @return how many waiting tasks have not started */
    abstract int waitingCount();

    /** Interrupts every thread running a task (for {@code shutdownNow}). */
    abstract void interruptWorkers();

    /**
     * The dispatcher's part of the termination decision, made under the {@link Lifecycle}'s monitor: if no task
     * waits here that has not started and none runs, and then {@code masterStillEmpty} holds, closes, so that nothing
     * is taken or started any more and the threads leave.
     *
     * <p>Why the master's emptiness is read here, under the dispatcher's own lock, after its idleness: a run that
     * re-arms its periodic task publishes it to the master's inbox and only then ends, under this lock. Read before,
     * the inbox could be empty, the run still going; read after the run was seen ended, it holds the re-armed task.
     * The check runs on the thread that decides, so only the master may pass one that reads its inbox.
     */
    abstract Closing close(BooleanSupplier masterStillEmpty);
}
