package io.timingwheel;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where the two actors of one sample meet before they race, for the tests whose actors take unequal time per sample
 * (a {@link VirtualClock}'s advance waits on the executor's threads, a schedule or a release does not): jcstress runs
 * each actor over a stride of samples in turn, so without it the quicker actor runs ahead and the two seldom act on
 * one sample at once. Each actor arrives, then waits for the other (bounded, so a mutation that strands a sample
 * does not hang the run); after that, either may act first.
 */
final class StressMeeting {
    private final AtomicInteger arrived = new AtomicInteger();

    /** Arrives, then waits until the other actor has arrived too, or {@code limitNanos} of real time has passed. */
    void arriveAndWait(long limitNanos) {
        arrived.incrementAndGet();
        long start = System.nanoTime();
        while (arrived.get() < 2 && System.nanoTime() - start < limitNanos) {
            Thread.yield(); // the executor's threads share the test's CPUs
        }
    }
}
