package io.timingwheel;

import java.util.concurrent.Executor;

/**
 * The executor side of a dispatcher, as the stress tests need it: running until {@code shutdown} or {@code stopping}
 * is set; once shut down, both policies keep their tasks; once stopping, nothing may run. The master holds back no
 * worker and holds no timers, and the notifications go nowhere: the tests make the decisions themselves.
 */
final class StressDispatcherHost implements DispatcherHost {
    volatile boolean shutdown;
    volatile boolean stopping;

    /** @return a real {@link ExternalDispatcher} over this host, handing its tasks to {@code executor} */
    ExternalDispatcher externalDispatcher(Executor executor) {
        Instrumentation instrumentation = new Instrumentation("stress", Clock.startingNow(), -1);
        TaskRunner runner = new TaskRunner(new StressHooks(), new Decorations(), instrumentation);
        return new ExternalDispatcher("stress", this, runner, 1, null, executor);
    }

    @Override
    public boolean mayRun(ScheduledTask<?> task) {
        return !stopping;
    }

    @Override
    public boolean keptAfterShutdown(ScheduledTask<?> task) {
        return true;
    }

    @Override
    public boolean isShutdown() {
        return shutdown || stopping;
    }

    @Override
    public boolean isStopping() {
        return stopping;
    }

    @Override
    public boolean mayTake(long deadline) {
        return true;
    }

    @Override
    public boolean timersPending() {
        return false;
    }

    @Override
    public void dispatcherIdle() {
    }

    @Override
    public void threadsGone() {
    }
}
