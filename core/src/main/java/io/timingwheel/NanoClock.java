package io.timingwheel;

/** The executor's source of time: {@link System#nanoTime()} in production, a fake in tests. */
@FunctionalInterface
interface NanoClock {
    NanoClock SYSTEM = System::nanoTime;

    /** @return the current value of a monotonic nanosecond counter */
    long nanoTime();
}
