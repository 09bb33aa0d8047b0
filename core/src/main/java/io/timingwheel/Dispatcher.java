package io.timingwheel;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Where due tasks go to run: the executor's own {@link WorkerPool}, or an {@link ExternalDispatcher}. It also keeps the
 * pool settings of {@link java.util.concurrent.ThreadPoolExecutor} (core size, keep-alive...), which only the own pool
 * acts on, and runs each claimed task between the executor's hooks.
 *
 * <p>Every task here is a due task that has left the wheel: one that fell due, or one scheduled with no delay.
 */
abstract class Dispatcher {
    /** STPE's keep-alive: how long a thread beyond the core size (or any, with core timeout) may stay idle. */
    static final long DEFAULT_KEEP_ALIVE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    final ExecutorCore core;

    /** The core pool size, as set; 0 still runs one worker, as in the JDK. */
    volatile int corePoolSize;

    /** The maximum pool size, as set: kept for the JDK's checks and getters only, as STPE ignores it too. */
    volatile int maximumPoolSize = Integer.MAX_VALUE;

    volatile long keepAliveNanos = DEFAULT_KEEP_ALIVE_NANOS;

    volatile boolean allowCoreThreadTimeOut;

    Dispatcher(ExecutorCore core, int corePoolSize) {
        this.core = core;
        this.corePoolSize = corePoolSize;
    }

    // -- hand-offs --------------------------------------------------------------------------------------------------

    /** Hands over one due task (a producer's task with no delay). */
    abstract void dispatch(ScheduledTask<?> task);

    /** Hands over the first {@code count} tasks of {@code batch}, due now (master only). */
    abstract void dispatchAll(ScheduledTask<?>[] batch, int count);

    /** @return true if nothing runs between a claim of this task and its action: no hooks to call, no decoration */
    final boolean runsDirectly(ScheduledTask<?> task) {
        return !core.hooks.hasRunHooks() && core.userTask(task) == task;
    }

    /** Claims a due task for the current thread, the way it will run. @return false if it was not pending */
    static boolean claim(ScheduledTask<?> task, boolean direct) {
        return direct ? task.claimAndStart() : task.claim();
    }

    /** Runs a task that the current thread claimed with {@link #claim}; see {@link #runBetweenHooks}. */
    final void runClaimed(ScheduledTask<?> task, boolean direct, Thread thread, LatenessHistogram lateness) {
        if (direct) {
            core.recordStart(task, lateness);
            task.runStarted();
        } else {
            runBetweenHooks(task, thread, lateness);
        }
    }

    /**
     * Runs a task that the current thread has claimed, between the executor's hooks, as
     * {@code ThreadPoolExecutor.runWorker} does: {@code beforeExecute}, the task (its decorated form, if
     * {@code decorateTask} made one), {@code afterExecute}. Whatever happens, the task ends: if a hook or a decoration
     * kept its action from starting, it fails with that exception, or is cancelled if nothing was thrown.
     *
     * @throws Throwable what a hook, or a decorated task's {@code run}, threw: the thread dies of it, as in the JDK
     */
    private void runBetweenHooks(ScheduledTask<?> task, Thread thread, LatenessHistogram lateness) {
        core.recordStart(task, lateness);
        Runnable runnable = core.userTask(task);
        ExecutorHooks hooks = core.hooks;
        Throwable thrown = null;
        try {
            if (hooks.hasRunHooks()) {
                hooks.beforeExecute(thread, runnable);
                try {
                    runnable.run();
                    hooks.afterExecute(runnable, null);
                } catch (Throwable t) {
                    // As the JDK: what escaped the run, or a throwing afterExecute itself, goes to afterExecute
                    // (again, in the latter case) before the thread dies of it.
                    hooks.afterExecute(runnable, t);
                    throw t;
                }
            } else {
                runnable.run();
            }
        } catch (Throwable t) {
            thrown = t;
            throw t;
        } finally {
            task.endIfNeverStarted(thrown);
        }
    }

    // -- pool management --------------------------------------------------------------------------------------------

    /** Starts a worker if fewer than the core size run (at least one), as the JDK does on every delayed schedule. */
    abstract void prestart();

    /** @return true once as many workers run as the core size asks for (always, for an external executor) */
    abstract boolean isFullyStarted();

    /** The core size or the keep-alive settings changed: workers may have to start or to retire. */
    abstract void poolSettingsChanged(int previousCorePoolSize);

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

    /** Adds the pool's figures (one consistent snapshot) into {@code stats}. */
    abstract void addTo(ExecutorStatistics.Builder stats);

    /** @return true if the current thread is one this dispatcher runs tasks on now */
    abstract boolean isOwnThread();

    // -- shutdown ---------------------------------------------------------------------------------------------------

    /** @return true if tasks wait here but no worker exists to run them (thread creation has been failing) */
    abstract boolean isStarved();

    /** @return true if no task waits here and none runs */
    abstract boolean isQuiescent();

    /** Cancels every waiting task that {@code keep} rejects (the shutdown policies, applied at shutdown). */
    abstract void cancelUnless(Predicate<ScheduledTask<?>> keep);

    /** Moves every waiting task that has not started into {@code sink}, as returned by {@code shutdownNow}. */
    abstract void drainUnstartedTo(List<ScheduledTask<?>> sink);

    /** Cancels every waiting task that has not started: stragglers that came after shutdownNow's drain. */
    final void cancelUnstarted() {
        List<ScheduledTask<?>> unstarted = new ArrayList<>();
        drainUnstartedTo(unstarted);
        for (ScheduledTask<?> task : unstarted) {
            task.cancel(false);
        }
    }

    /** Copies the waiting tasks that have not started into {@code sink}. */
    abstract void snapshotTo(List<ScheduledTask<?>> sink);

    /** @return how many waiting tasks have not started */
    abstract int pendingCount();

    /** Interrupts every thread running a task (for {@code shutdownNow}). */
    abstract void interruptWorkers();

    /**
     * Stops for good if {@link #isQuiescent()}: later tasks are cancelled, workers leave.
     *
     * @param whenThreadsGone run once the last thread has left, at once if none is left (by the caller, or by the
     *     last thread to leave)
     * @return true if stopped
     */
    abstract boolean tryTerminate(Runnable whenThreadsGone);
}
