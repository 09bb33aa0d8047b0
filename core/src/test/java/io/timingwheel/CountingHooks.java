package io.timingwheel;

/** Executor hooks for tests of the core's parts alone: no run hooks, and a count of {@code terminated()} calls. */
final class CountingHooks implements ExecutorHooks {
    int terminated;

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
        terminated++;
    }
}
