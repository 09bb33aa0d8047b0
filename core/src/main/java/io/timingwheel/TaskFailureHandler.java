package io.timingwheel;

import java.util.concurrent.Future;

/**
 * Called whenever a task's run ends with an exception, including a periodic task's run (which ends its series):
 * the answer to "my periodic task stopped and nobody noticed". Set it with
 * {@link TimingWheelExecutor.Builder#taskFailureHandler}; without one, the executor behaves as the JDK's does and the
 * exception is only held in the future.
 *
 * <p>It runs on the thread that ran the task, after the future has completed, so {@code future.get()} already
 * throws. An exception it throws is reported to that thread's uncaught-exception handler and otherwise ignored.
 */
@FunctionalInterface
public interface TaskFailureHandler {
    /**
     * Hears of a run that ended with an exception.
     *
     * @param future the future of the task that failed, as returned when it was scheduled
     * @param failure what the task threw
     */
    void taskFailed(Future<?> future, Throwable failure);
}
