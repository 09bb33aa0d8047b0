package io.timingwheel;

/** Deadline arithmetic: times are nanoseconds since an executor's origin, clamped to the wheel's horizon. */
final class Deadlines {
    /** The latest deadline (about 146 years after the origin): later ones are clamped to it and never come. */
    static final long MAX = TimingWheel.MAX_DEADLINE;

    private Deadlines() {
    }

    /** @return {@code time + delay}, clamped to {@link #MAX}; {@code delay} must be positive */
    static long after(long time, long delay) {
        return delay >= MAX - time ? MAX : time + delay;
    }
}
