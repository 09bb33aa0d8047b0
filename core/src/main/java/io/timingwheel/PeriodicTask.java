package io.timingwheel;

/**
 * A task that runs a {@link Runnable} repeatedly until it is cancelled or a run throws.
 *
 * <p>As in the JDK, a positive {@code period} means fixed rate (the next deadline is the previous deadline plus the
 * period, so a late run does not shift later ones) and a negative one means fixed delay (the next deadline is the end
 * of the previous run plus the delay).
 */
final class PeriodicTask extends ScheduledTask<Object> {
    private Runnable runnable;
    private final long period;

    PeriodicTask(TimingWheelExecutor owner, Runnable runnable, long firstDeadline, long period) {
        super(owner, firstDeadline);
        this.runnable = runnable;
        this.period = period;
    }

    @Override
    Object compute() {
        runnable.run();
        return null;
    }

    @Override
    void advanceDeadline() {
        if (period < 0) {
            deadline = TimingWheelExecutor.deadlineAfter(owner.now(), -period);
            return;
        }
        long next = TimingWheelExecutor.deadlineAfter(deadline, period);
        if (owner.skipsMissedRuns()) {
            long now = owner.now();
            if (next <= now) {
                // the first deadline + n * period after now: missed runs are skipped, the phase is kept
                long missed = (now - next) / period + 1;
                next = missed > (TimingWheel.MAX_DEADLINE - next) / period
                        ? TimingWheel.MAX_DEADLINE : next + missed * period;
            }
        }
        deadline = next;
    }

    @Override
    Object action() {
        return runnable;
    }

    @Override
    void releaseAction() {
        runnable = null;
    }

    @Override
    public boolean isPeriodic() {
        return true;
    }
}
