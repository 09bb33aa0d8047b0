package io.timingwheel;

/**
 * An executor's time base, in nanoseconds, never wall-clock time: by default {@link System#nanoTime()} since the
 * executor was made, so that every deadline is a non-negative number that cannot overflow for about 146 years; or the
 * time of a {@link VirtualClock} that a test moves, which starts at 0 and only grows.
 */
abstract sealed class Clock permits Clock.SinceStart, Clock.Virtual {
    /** @return a clock of {@code System.nanoTime()} whose time 0 is now */
    static Clock startingNow() {
        return new SinceStart(System.nanoTime());
    }

    /** @return a clock that reads {@code source}'s time */
    static Clock of(VirtualClock source) {
        return new Virtual(source);
    }

    /** @return nanoseconds since the origin */
    abstract long now();

    /**
     * @return true if time moves only when a test moves it: a thread that waits for a deadline then waits until it is
     *     woken, for no amount of real time brings the deadline nearer
     */
    abstract boolean isVirtual();

    /** Real time: {@code System.nanoTime()} less the reading that is time 0. */
    static final class SinceStart extends Clock {
        private final long origin;

        SinceStart(long origin) {
            this.origin = origin;
        }

        @Override
        long now() {
            return System.nanoTime() - origin;
        }

        @Override
        boolean isVirtual() {
            return false;
        }
    }

    /** A virtual clock's time, as it is. */
    static final class Virtual extends Clock {
        private final VirtualClock source;

        Virtual(VirtualClock source) {
            this.source = source;
        }

        @Override
        long now() {
            return source.nanoTime();
        }

        @Override
        boolean isVirtual() {
            return true;
        }
    }
}
