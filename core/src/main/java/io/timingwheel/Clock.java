package io.timingwheel;

/**
 * An executor's time base: nanoseconds of {@link System#nanoTime()} since the executor was made, so that every
 * deadline is a non-negative number that cannot overflow for about 146 years. Never wall-clock time.
 *
 * @param origin the {@code System.nanoTime()} reading that is time 0
 */
record Clock(long origin) {
    /** @return a clock whose time 0 is now */
    static Clock startingNow() {
        return new Clock(System.nanoTime());
    }

    /** @return nanoseconds since the origin */
    long now() {
        return System.nanoTime() - origin;
    }
}
