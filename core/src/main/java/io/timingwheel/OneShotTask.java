package io.timingwheel;

import java.util.concurrent.Callable;

/** A task that runs a {@link Callable} once. */
final class OneShotTask<V> extends ScheduledTask<V> {
    private Callable<V> callable;

    OneShotTask(TimingWheelExecutor owner, Callable<V> callable, long deadline) {
        super(owner, deadline);
        this.callable = callable;
    }

    @Override
    V compute() throws Exception {
        return callable.call();
    }

    @Override
    Object action() {
        return callable;
    }

    @Override
    void releaseAction() {
        callable = null;
    }

    @Override
    public boolean isPeriodic() {
        return false;
    }
}
