package io.timingwheel;

/**
 * What the {@link MasterLoop} asks of the executor that owns it: the whole channel from the master back to the core.
 * Implemented by {@link ExecutorCore}.
 */
interface MasterHost {
    /** @return nanoseconds since the executor's origin, the time base of every deadline */
    long now();

    /** @return true once shut down */
    boolean isShutdown();

    /** @return true once shutdownNow has begun: nothing fires any more, shutdownNow's drain takes what is held */
    boolean isStopping();

    /** @return whether the run state (and, once shut down, the policies) let this task stay */
    boolean mayRun(ScheduledTask<?> task);

    /** @return whether the shutdown policies keep this task */
    boolean keptAfterShutdown(ScheduledTask<?> task);

    /**
     * The master, shut down, found its inbox and wheel empty at the end of a turn: the termination decision
     * ({@link Lifecycle#tryTerminate}), which asks the master again whether it holds nothing once the dispatcher is
     * seen idle (a run may have re-armed its task since).
     *
     * @return true if the executor terminates: the master leaves its loop
     */
    boolean tryTerminate();

    /**
     * @return whether a worker of the executor's own pool is due to run now (every worker busy, or the leader's wait
     *     ended): the master's turn would take a core from it (false with an external executor, whose threads are not
     *     ours to weigh)
     */
    boolean workerDue();

    /**
     * @return whether the leader of the executor's own pool is overdue at {@code now}: its wait for a deadline ended a
     *     while ago and it has not come back, a thread on its core keeps it from the due tasks (false with an external
     *     executor)
     */
    boolean leaderOverdue(long now);

    /** @return true if tasks wait for a worker that the thread factory failed to start (the own pool only) */
    boolean workersStarved();

    /** Tries again to start a worker for the tasks that wait (the master retries while the pool is starved). */
    void retryWorkerStart();

    /**
     * @return whether the executor's workers step an advance of its virtual clock now: their steps do the master's
     *     work, and the clock wakes the master once the advance is over (false in real time)
     */
    default boolean virtualStepsUnderWay() {
        return false;
    }
}
