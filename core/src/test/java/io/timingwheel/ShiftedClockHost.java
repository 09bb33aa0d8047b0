package io.timingwheel;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A dispatcher host whose clock a test moves ahead of real time ({@link #shift}), as when the kernel lets a timed wait
 * overrun or another thread holds the core: the pool then sees a deadline pass that real time has not reached.
 */
class ShiftedClockHost extends PlainDispatcherHost {
    /** Nanoseconds the host's clock runs ahead of real time. */
    final AtomicLong shift = new AtomicLong();

    @Override
    public long now() {
        return super.now() + shift.get();
    }
}
