package io.timingwheel;

/** A task host for tests of the core's parts alone: a real clock's time, every task may run, events go nowhere. */
final class PlainTaskHost implements TaskHost {
    final Clock clock = Clock.startingNow();

    @Override
    public long now() {
        return clock.now();
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
    }

    @Override
    public void cancelled(ScheduledTask<?> task, boolean wasPending) {
    }

    @Override
    public void rearm(ScheduledTask<?> task) {
    }

    @Override
    public void ended(ScheduledTask<?> task, Throwable failure) {
    }
}
