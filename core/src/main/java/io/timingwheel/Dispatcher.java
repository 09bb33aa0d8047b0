package io.timingwheel;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Where due tasks go to run, and nothing else: a hand-off. Its two cases are the executor's own {@link WorkerPool}
 * and the {@link ExternalDispatcher} over a user's {@link java.util.concurrent.Executor}. The pool settings of the
 * JDK's API live in {@link PoolSettings}, and what only the own pool does with them (starting, retiring, prestarting
 * threads) is asked of the {@link WorkerPool} itself.
 *
 * <p>A task comes here from the master, when it falls due or a little before ({@link WorkerPool#HAND_OVER_AHEAD_NANOS}
 * for the own pool), or straight from its producer or its last run, when it is due within the straight reach
 * ({@link WorkerPool#STRAIGHT_REACH_NANOS}). The external dispatcher takes only due tasks: both times are zero there.
 */
abstract sealed class Dispatcher permits WorkerPool, ExternalDispatcher {

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

    /** A snapshot of the dispatcher's figures for {@code statistics()}, read together. */
    record Figures(int running, long completedRuns, long failedRuns, long[] lateness) {
    }

    // -- hand-offs --------------------------------------------------------------------------------------------------

    /**
     * Takes a task that came straight from its producer or from its last run: due now, or due within the straight
     * reach.
     *
     * @return false if closed, also if it closed as the task arrived (then the task is refused here): the caller
     *     takes the task back and asks for the termination decision again
     */
    abstract boolean dispatch(ScheduledTask<?> task);

    /**
     * Takes the master's hand-over: its tasks, in deadline order, due within the hand-over time; then opens the gate
     * as the hand-over says, before any worker is told of the tasks, so a worker woken for one finds the gate open for
     * it too. The master only; the hand-over holds at least one task.
     */
    abstract void dispatchAll(HandOver handOver);

    // -- what waits here --------------------------------------------------------------------------------------------

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

    /**
     * Whether a worker's wait for a deadline should have ended more than {@code toleranceNanos} before the time
     * {@code clock} gives and has not: the worker is not running when its task falls due (on a machine with few
     * cores, most often because another thread holds its core). A hint for the master, read without a lock; the
     * clock is read only while a worker leads such a wait.
     */
    abstract boolean deadlineWaitOverdue(LongSupplier clock, long toleranceNanos);

    /**
     * A publisher's look at the same, after it published a task: if a worker's wait for a deadline is overdue, the
     * publisher lets another thread have its core. On a machine with as few cores as busy threads, the kernel wakes a
     * waiting worker on its last core even when a publisher scheduling at full speed holds it, and lets the
     * publisher finish its time slice first (a few milliseconds), even while the other core idles: the worker's
     * timers wait for that thread, not for a free core. The publisher's yield hands the core over at once; where the
     * worker waits elsewhere, it returns at once. And if the workers are held off their cores in the pool's own code
     * (no run started between two looks, a moment apart, and a worker not in a run: see {@link StallWatch}), the
     * publisher pauses a little, so that a core frees. Read without a lock, and without the clock: {@code now} is the
     * publisher's own reading, the one its task's deadline was computed from.
     *
     * @return whether the publisher yielded or paused
     */
    abstract boolean publisherGivesWay(long now);

    /** @return how many waiting tasks have not started */
    abstract int waitingCount();

    /**
     * For a virtual clock's look: whether no task runs here and none waits that has not started, read together. The
     * run of {@code advancing}, when it is one of the threads here (a run that advances the clock itself), does not
     * count; nor, then, do due tasks that wait only because no other thread is free to take them (they start late,
     * as behind a slow run in real time).
     *
     * @return the runs ended so far if so (as {@link #completedCount}); -1 if not
     */
    abstract long idleRunsEnded(Thread advancing);

    /** Copies the tasks running now into {@code sink} (for the message of a virtual clock that gives up). */
    abstract void copyRunningTo(List<ScheduledTask<?>> sink);

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

    // -- figures ----------------------------------------------------------------------------------------------------

    /** @return the threads running tasks of ours now, as {@code ThreadPoolExecutor.getPoolSize} */
    abstract int poolSize();

    /** @return the most threads that have run tasks of ours at once */
    abstract int largestPoolSize();

    /** @return the threads running a task now */
    abstract int activeCount();

    /** @return the runs that have ended (each run of a periodic task counts) */
    abstract long completedCount();

    /** @return the figures for {@code statistics()}, read together */
    abstract Figures figures();
}
