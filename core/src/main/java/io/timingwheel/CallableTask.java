package io.timingwheel;

import java.util.concurrent.Callable;

/** A one-shot task that runs a {@link Callable}. */
final class CallableTask<V> extends ScheduledTask<V> {
    private Callable<V> callable;

    CallableTask(TaskHost host, Callable<V> callable, long deadline) {
        super(host, deadline);
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
