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

    /** @return nanoseconds since the executor's origin, the time base of every deadline */
    long now();

    /**
     * A worker is about to wait for a deadline: the master may take a turn it planned by {@code time} now, while the
     * worker sleeps ({@link MasterLoop#turnEarlyIfPlannedBy}).
     */
    default void letMasterTurnBy(long time) {
    }

    /**
     * @return whether a worker about to wait should first try to step the virtual clock ({@link #stepVirtualTime}):
     *     the executor runs on one, and an advance is under way that its threads step; false in real time (any thread)
     */
    default boolean stepsVirtualTime() {
        return false;
    }

    /**
     * A worker with nothing to take steps the virtual clock, if the executor is settled (see {@link VirtualClock}):
     * to the next deadline within the advance under way, handing over what falls due there. Called without the pool's
     * lock. Tasks it hands over wake one worker fewer than they would: the caller looks again, and takes one itself.
     */
    default void stepVirtualTime() {
    }

    /**
     * The same, called with the pool's lock held: taken only if the locks the step takes before that one are free.
     * @return false if they were not (the caller lets go of its lock and calls {@link #stepVirtualTime})
     */
    default boolean tryStepVirtualTime() {
        return false;
    }

    /**
     * A worker finds a due task held at the gate while the workers step a virtual clock: the master's full turn, at
     * the clock's time, on the calling thread (see {@link MasterLoop#turnForVirtualTime}). Called without the pool's
     * lock.
     */
    default void turnForVirtualTime() {
    }

    /** @return whether the master's wheel holds tasks: a hint, for the last worker deciding whether to retire */
    boolean timersPending();

    /**
     * Nothing waits and nothing runs here any more, after shutdown: the executor may terminate
     * ({@link Lifecycle#tryTerminate}). @return whether it has decided to
     */
    boolean tryTerminate();

    /** This dispatcher was closed by the termination decision, and its last thread has now left. */
    void threadsGone();
}
