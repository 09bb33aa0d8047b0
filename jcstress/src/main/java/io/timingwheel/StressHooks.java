package io.timingwheel;

/** An executor's hooks as a plain {@code TimingWheelExecutor} has them: none to run, and an empty terminated(). */
final class StressHooks implements ExecutorHooks {
    @Override
    public boolean hasRunHooks() {
        return false;
    }

    @Override
    public void beforeExecute(Thread thread, Runnable task) {
    }

    @Override
    public void afterExecute(Runnable task, Throwable thrown) {
    }

    @Override
    public void terminated() {
    }
}
