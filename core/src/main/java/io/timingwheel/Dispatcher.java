package io.timingwheel;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.BooleanSupplier;

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
    /** The executor that owns the dispatcher: its whole channel back to the core. */
    final DispatcherHost host;

    Dispatcher(DispatcherHost host) {
        this.host = host;
    }

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

    /**
     * A snapshot of the dispatcher's figures, read together: the threads running tasks of ours now (as
     * {@code ThreadPoolExecutor.getPoolSize}), the most there were at once, those running a task now, the runs ended
     * (each run of a periodic task counts) and how many of them failed, and their lateness by bucket
     * ({@link LatenessHistogram}).
     */
    record Figures(int poolSize, int largestPoolSize, int active, long completed, long failed, long[] lateness) {
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

    /** Moves every waiting task that has not started into {@code sink}, marked as returned, for shutdownNow. */
    abstract void drainUnstartedTo(List<ScheduledTask<?>> sink);

    /** Copies the waiting tasks that have not started into {@code sink}, in deadline order. */
    abstract void copyWaitingTo(List<ScheduledTask<?>> sink);

    /** @return the waiting tasks that have not started, in deadline order (ties in the order they wait here) */
    private List<ScheduledTask<?>> waiting() {
        List<ScheduledTask<?>> waiting = new ArrayList<>();
        copyWaitingTo(waiting);
        waiting.sort(Comparator.comparingLong(task -> task.deadline)); // stable
        return waiting;
    }

    /** Cancels every waiting task that the shutdown policies do not keep. */
    final void applyShutdownPolicies() {
        for (ScheduledTask<?> task : waiting()) {
            if (!host.keptAfterShutdown(task)) {
                task.cancelIfPending();
            }
        }
    }

    /** Cancels every waiting task. */
    final void cancelWaiting() {
        for (ScheduledTask<?> task : waiting()) {
            task.cancelIfPending();
        }
    }

    /** Takes up to {@code max} of the waiting tasks that are due, those due first, into {@code sink}, marked as returned. */
    final int takeDue(int max, List<ScheduledTask<?>> sink) {
        long now = host.now();
        int taken = 0;
        for (ScheduledTask<?> task : waiting()) {
            if (taken == max || task.deadline > now) {
                break;
            }
            if (task.markReturned()) {
                sink.add(task);
                taken++;
            }
        }
        return taken;
    }

    /**
     * @return a time at or before which the first task waiting here is due ({@link TimingWheel#NONE} if none waits)
     */
    final long firstWaitingDeadline() {
        List<ScheduledTask<?>> waiting = waiting();
        return waiting.isEmpty() ? TimingWheel.NONE : waiting.get(0).deadline;
    }

    /** @return how many waiting tasks have not started */
    final int waitingCount() {
        List<ScheduledTask<?>> waiting = new ArrayList<>();
        copyWaitingTo(waiting);
        return waiting.size();
    }

    /**
     * For a virtual clock's look: whether no task runs here and none waits that has not started, read together. The
     * run of {@code advancing}, when it is one of the threads here (a run that advances the clock itself), does not
     * count; nor, then, do due tasks that wait only because no other thread is free to take them (they start late,
     * as behind a slow run in real time).
     *
     * @return the runs ended so far if so (as {@link #completedCount}); -1 if not
     */
    abstract long idleRunsEnded(Thread advancing);

    /**
     * A virtual clock's step, taken by one of this dispatcher's threads on its way to wait, gives it the one task that
     * falls due at the step's time, if nothing else waits here ({@link MasterLoop#stepIfIdle}): the step then opens no
     * gate and queues nothing. Master only (the step holds the master's lock).
     *
     * @return whether the stepping thread took it; false if it is not one of this dispatcher's threads
     */
    boolean giveToStepper(ScheduledTask<?> task) {
        return false;
    }

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

    /** @return the figures, read together */
    abstract Figures figures();
}
