package io.timingwheel;

/**
 * The executor side of a task, as the stress tests need it: the time stands still, every task may run, and what the
 * task reports (left pending, cancelled, ended, re-arm) is recorded for the arbiter. With a {@link PendingLimit}, a
 * task that leaves {@code NEW} releases its place, as {@link ExecutorCore} does.
 */
class StressTaskHost implements TaskHost {
    /** How the task's cancel was reported: -1 not at all, 1 as a cancel of a pending task, 0 of one that had left. */
    volatile int cancelledWasPending = -1;
    volatile int rearms;
    private final PendingLimit limit;

    StressTaskHost() {
        this(null);
    }

    StressTaskHost(PendingLimit limit) {
        this.limit = limit;
    }

    @Override
    public long now() {
        return 1_000;
    }

    @Override
    public boolean mayRun(ScheduledTask<?> task) {
        return true;
    }

    @Override
    public boolean skipsMissedRuns() {
        return false;
    }

    @Override
    public void leftPending(ScheduledTask<?> task) {
        if (limit != null) {
            limit.release();
        }
    }

    @Override
    public void cancelled(ScheduledTask<?> task, boolean wasPending) {
        cancelledWasPending = wasPending ? 1 : 0;
        if (wasPending) {
            leftPending(task);
        }
    }

    @Override
    public void rearm(ScheduledTask<?> task) {
        rearms++;
    }

    @Override
    public void ended(ScheduledTask<?> task, Throwable failure) {
    }
}
