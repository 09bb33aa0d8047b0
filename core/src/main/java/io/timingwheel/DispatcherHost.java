package io.timingwheel;

/**
 * What a {@link Dispatcher} asks of the executor that owns it: the whole channel from a dispatcher back to the core,
 * as {@link TaskHost} is a task's. Implemented by {@link ExecutorCore}.
 */
interface DispatcherHost {
    /** @return whether the run state (and, once shut down, the policies) let this task run */
    boolean mayRun(ScheduledTask<?> task);

    /** @return whether the shutdown policies keep this task: applied to what waits, at shutdown */
    boolean keptAfterShutdown(ScheduledTask<?> task);

    /** @return true once shut down: an idle dispatcher may then let the executor terminate */
    boolean isShutdown();

    /** @return true once shutdownNow has begun: no waiting task starts any more, shutdownNow returns them */
    boolean isStopping();

    /**
     * The order gate: whether a worker may take a due task with this deadline now, that is, whether the master has
     * handed over every task it holds that is due before it (see {@link MasterLoop#hasHandedThrough}).
     */
    boolean mayTake(long deadline);

    /** @return whether the master's wheel holds tasks: a hint, for the last worker deciding whether to retire */
    boolean timersPending();

    /** Nothing waits and nothing runs here any more, after shutdown: the executor may terminate. */
    void dispatcherIdle();

    /** This dispatcher was closed by the termination decision, and its last thread has now left. */
    void threadsGone();
}
