package io.timingwheel.jmh;

import io.timingwheel.TimingWheelExecutor;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The {@code first} part of {@link OnTimeHarness}: what the first calls cost in a fresh JVM, the first thing it does,
 * as a service's start meets them. Four times, in µs: making the executor ({@code constructUs}); the first
 * {@code schedule} with no delay ({@code firstCallUs}, the caller's wait: classes loaded, call sites linked, threads
 * started on its way); from that call's return to the task's start ({@code firstStartUs}, negative when the task
 * started before the call returned); and the first {@code schedule} with a delay of a second once the first task
 * has run ({@code farCallUs}: TimingWheelExecutor's route through its master thread, STPE's heap again). The
 * executors are made as a user makes them, {@code new ScheduledThreadPoolExecutor(1)} ({@code jdk1}) and
 * {@code new TimingWheelExecutor(1)} ({@code tw}), not through {@link Subject}, whose own classes would load first.
 *
 * <p>Run: {@code java -cp jmh/target/benchmarks.jar io.timingwheel.jmh.OnTimeHarness first tw}
 */
final class FirstCalls {
    private static final long FAR_DELAY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private FirstCalls() {
    }

    /** Records when it started and lets the caller go on. */
    private static final class Started implements Runnable {
        final CountDownLatch ran = new CountDownLatch(1);
        volatile long startedAt;

        @Override
        public void run() {
            startedAt = System.nanoTime();
            ran.countDown();
        }
    }

    static void run(String impl) throws InterruptedException {
        Started first = new Started();
        Started far = new Started();
        long beforeConstruction = System.nanoTime();
        ScheduledThreadPoolExecutor executor = create(impl);
        try {
            long constructed = System.nanoTime();
            executor.schedule(first, 0, TimeUnit.NANOSECONDS);
            long firstReturned = System.nanoTime();
            if (!first.ran.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(impl + ": the first task never ran");
            }
            long farCalled = System.nanoTime();
            executor.schedule(far, FAR_DELAY_NANOS, TimeUnit.NANOSECONDS);
            long farReturned = System.nanoTime();
            System.out.printf("RESULT first %s constructUs=%.1f firstCallUs=%.1f firstStartUs=%.1f farCallUs=%.1f%n",
                    impl, micros(constructed - beforeConstruction), micros(firstReturned - constructed),
                    micros(first.startedAt - firstReturned), micros(farReturned - farCalled));
        } finally {
            executor.shutdownNow();
        }
    }

    private static ScheduledThreadPoolExecutor create(String impl) {
        switch (impl) {
            case "jdk1": return new ScheduledThreadPoolExecutor(1);
            case "tw": return new TimingWheelExecutor(1);
            default: throw new IllegalArgumentException("the first part runs tw and jdk1, not " + impl);
        }
    }

    private static double micros(long nanos) {
        return nanos / 1e3;
    }
}
