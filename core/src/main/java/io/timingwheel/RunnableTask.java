package io.timingwheel;

/**
 * A one-shot task that runs a {@link Runnable}; its result is null. A class of its own (rather than a callable
 * adapter) to save the adapter object: it keeps a pending task at 48 bytes.
 */
class RunnableTask extends ScheduledTask<Object> {
    private Runnable runnable;

    RunnableTask(TaskHost host, Runnable runnable, long deadline) {
        super(host, deadline);
        this.runnable = runnable;
    }

    @Override
    final Object compute() {
        runnable.run();
        return null;
    }

    @Override
    final Object action() {
        return runnable;
    }

    @Override
    final void releaseAction() {
        runnable = null;
    }

    @Override
    public boolean isPeriodic() {
        return false;
    }
}
