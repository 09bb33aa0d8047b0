package io.timingwheel;

/**
 * A dispatcher host for tests of the worker pool alone: a real clock's time, an executor that runs every task and is
 * never shut down, no termination to decide. Tests that play a shutdown override what they need.
 */
class PlainDispatcherHost implements DispatcherHost {
    final Clock clock = Clock.startingNow();

    @Override
    public boolean mayRun(ScheduledTask<?> task) {
        return true;
    }

    @Override
    public boolean keptAfterShutdown(ScheduledTask<?> task) {
        return true;
    }

    @Override
    public boolean isShutdown() {
        return false;
    }

    @Override
    public boolean isStopping() {
        return false;
    }

    @Override
    public long now() {
        return clock.now();
    }

    @Override
    public boolean timersPending() {
        return false;
    }

    @Override
    public boolean tryTerminate() {
        return false;
    }

    @Override
    public void threadsGone() {
    }
}
