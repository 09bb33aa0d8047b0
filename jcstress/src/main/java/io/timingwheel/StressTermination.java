package io.timingwheel;

import java.util.concurrent.TimeUnit;

/** The end of a sample that made a real executor: a bounded wait for its termination, an interrupt counting as none. */
final class StressTermination {
    private StressTermination() {
    }

    /** @return true if {@code executor} terminated within {@code millis} of real time */
    static boolean awaited(TimingWheelExecutor executor, long millis) {
        try {
            return executor.awaitTermination(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            return false;
        }
    }
}
