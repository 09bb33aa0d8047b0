package io.timingwheel;

/** A task that runs a {@link Runnable} once; its result is null. A class of its own to save the adapter object. */
final class OneShotRunnableTask extends ScheduledTask<Object> {
    private Runnable runnable;

    OneShotRunnableTask(TimingWheelExecutor owner, Runnable runnable, long deadline) {
        super(owner, deadline);
        this.runnable = runnable;
    }

    @Override
    Object compute() {
        runnable.run();
        return null;
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
        return false;
    }
}
