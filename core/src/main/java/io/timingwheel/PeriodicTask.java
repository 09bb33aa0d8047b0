package io.timingwheel;

/**
 * A task that runs a {@link Runnable} repeatedly until it is cancelled or a run throws.
 *
 * <p>As in the JDK, a positive {@code period} means fixed rate (the next deadline is the previous deadline plus the
 * period, so a late run does not shift later ones) and a negative one means fixed delay (the next deadline is the end
 * of the previous run plus the delay).
 */
final class PeriodicTask extends RunnableTask {
    private final long period;

    PeriodicTask(TaskHost host, Runnable runnable, long firstDeadline, long period) {
        super(host, runnable, firstDeadline);
        this.period = period;
    }

    @Override
    long nextDeadline() {
        if (period < 0) {
            return Deadlines.after(host.now(), -period);
        }
        long next = Deadlines.after(deadline, period);
        if (host.skipsMissedRuns()) {
            long now = host.now();
            if (next <= now) {
                // the first deadline + n * period after now: missed runs are skipped, the phase is kept
                long missed = (now - next) / period + 1;
                next = missed > (Deadlines.MAX - next) / period ? Deadlines.MAX : next + missed * period;
            }
        }
        return next;
    }

    @Override
    public boolean isPeriodic() {
        return true;
    }
}
