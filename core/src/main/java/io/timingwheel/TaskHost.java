package io.timingwheel;

/**
 * What a {@link ScheduledTask} asks of the executor that accepted it: the whole channel from a task back to its
 * executor, implemented by {@link ExecutorCore}. A task that fires calls {@link #leftPending} and {@link #ended}; a cancel
 * calls {@link #cancelled} and {@link #ended}.
 */
interface TaskHost {
    /** @return nanoseconds since the executor's origin, the time base of every deadline */
    long now();

    /** @return whether the executor's run state lets the task run now (for a run that no worker of ours started) */
    boolean mayRun(ScheduledTask<?> task);

    /** @return true if fixed-rate tasks skip missed runs ({@link FixedRatePolicy#SKIP_MISSED}) */
    boolean skipsMissedRuns();

    /**
     * The task left {@code NEW} other than by a cancel: a run was claimed, shutdownNow returned it, or it failed
     * before starting. It is no longer pending.
     */
    void leftPending(ScheduledTask<?> task);

    /**
     * The task was cancelled.
     *
     * @param wasPending whether it was {@code NEW}: counted as pending, and possibly linked into the wheel
     */
    void cancelled(ScheduledTask<?> task, boolean wasPending);

    /** A periodic task's run ended normally; the task is {@code NEW} again with its next deadline: queue it. */
    void rearm(ScheduledTask<?> task);

    /**
     * The task is done, for good.
     *
     * @param failure what its run threw, or null if it completed normally or was cancelled
     */
    void ended(ScheduledTask<?> task, Throwable failure);
}
