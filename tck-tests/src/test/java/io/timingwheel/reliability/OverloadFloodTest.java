package io.timingwheel.reliability;

import io.timingwheel.TimingWheelExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ours only (the JDK has no pending limit: its queue grows until the heap is gone): a flood of ten million schedules
 * from two producers against {@code maxPendingTasks(100 000)}, with a {@code DiscardPolicy}-like handler that counts.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@SuppressWarnings("try") // the resource only shuts the executor down; the body uses the executor
class OverloadFloodTest {
    /** How often the flood is sampled (pending count, retained heap) while it lasts. */
    private static final long SAMPLE_EVERY_MS = 50;
    private static final long SCHEDULES = 10_000_000;
    private static final int LIMIT = 100_000;
    private static final int PRODUCERS = 2;

    /** One in this many schedules is due in an hour: those stay pending and must come back from shutdownNow. */
    private static final int LONG_EVERY = 1_000;

    /**
     * Retained heap allowed at the end of the flood: 100 000 pending tasks cost about 6 MB in ours; 10 million
     * unbounded would cost 600 MB or more.
     */
    private static final long MAX_RETAINED_BYTES = 128L << 20;

    /**
     * Memory stays bounded (pending never above the limit, retained heap under 128 MB), the excess is rejected
     * through the handler (counted), and every accepted task either runs (those due within 5 ms) or is returned by
     * {@code shutdownNow()} (those due in an hour): nothing accepted is lost.
     */
    @Test
    void floodIsBoundedRejectedThroughTheHandlerAndLosesNothing() throws Exception {
        LongAdder rejected = new LongAdder();
        RejectedExecutionHandler countingDiscard = (task, executor) -> {
            rejected.increment();
            Thread t = Thread.currentThread();
            if (t instanceof Producer) {
                ((Producer) t).lastRejected = task;
            }
        };
        TimingWheelExecutor e = TimingWheelExecutor.builder()
                .workerThreads(1)
                .maxPendingTasks(LIMIT)
                .rejectedExecutionHandler(countingDiscard)
                .build();
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long baseline = usedAfterGc(memory);
        LongAdder ranShort = new LongAdder();
        LongAdder ranLong = new LongAdder();
        try (TaskThreadFailures failures = new TaskThreadFailures(); Closing<?> c = Closing.of(e)) {
            CountDownLatch go = new CountDownLatch(1);
            Producer[] producers = new Producer[PRODUCERS];
            for (int p = 0; p < PRODUCERS; p++) {
                producers[p] = new Producer(e, go, SCHEDULES / PRODUCERS, ranShort::increment, ranLong::increment,
                        failures);
                producers[p].start();
            }
            AtomicLong maxPendingSeen = new AtomicLong();
            long retained = 0;
            int samples = 0;
            long start = System.nanoTime();
            go.countDown();
            for (Producer p : producers) {
                while (p.isAlive()) {
                    p.join(SAMPLE_EVERY_MS); // often enough for a flood that lasts half a second (JDK 25 on 2 cores)
                    if (p.isAlive()) { // a sample in mid-flood, when pending sits at the limit
                        maxPendingSeen.accumulateAndGet(e.getQueue().size(), Math::max);
                        retained = Math.max(retained, usedAfterGc(memory) - baseline);
                        samples++;
                    }
                }
            }
            long floodMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            maxPendingSeen.accumulateAndGet(e.getQueue().size(), Math::max);
            retained = Math.max(retained, usedAfterGc(memory) - baseline);

            long acceptedShort = 0;
            long acceptedLong = 0;
            long rejectedByProducers = 0;
            for (Producer p : producers) {
                acceptedShort += p.acceptedShort;
                acceptedLong += p.acceptedLong;
                rejectedByProducers += p.rejected;
            }
            long accepted = acceptedShort + acceptedLong;
            long expectShort = acceptedShort;
            // Everything due within 5 ms must run; waiting for the exact count, a lost task shows as a time-out.
            try {
                org.awaitility.Awaitility.await().atMost(30, TimeUnit.SECONDS)
                        .until(() -> ranShort.sum() >= expectShort);
            } catch (org.awaitility.core.ConditionTimeoutException ignore) {
                // reported below as lost
            }
            List<Runnable> returned = e.shutdownNow();
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS), "not terminated");
            long lost = (acceptedShort - ranShort.sum()) + (acceptedLong - returned.size());
            System.out.printf("[reliability] flood: %d schedules by %d producers in %d ms against limit %d: "
                            + "accepted=%d (ran %d, returned by shutdownNow %d) rejected=%d max pending seen=%d "
                            + "max retained heap=%d MB (%d samples in mid-flood) lost=%d%n",
                    SCHEDULES, PRODUCERS, floodMillis, LIMIT, accepted, ranShort.sum(), returned.size(),
                    rejected.sum(), maxPendingSeen.get(), retained >> 20, samples, lost);

            assertEquals(SCHEDULES, accepted + rejected.sum(), "every schedule is accepted or rejected");
            assertEquals(rejected.sum(), rejectedByProducers, "each rejection went through the handler once");
            assertTrue(rejected.sum() > 0, "the limit was never reached");
            assertTrue(maxPendingSeen.get() <= LIMIT, "pending above the limit: " + maxPendingSeen.get());
            assertTrue(samples > 0, "the flood was over before a sample could be taken");
            assertTrue(retained < MAX_RETAINED_BYTES, "retained heap " + (retained >> 20) + " MB");
            assertEquals(0, ranLong.sum(), "a task due in an hour ran");
            assertEquals(acceptedShort, ranShort.sum(), "every accepted short task runs, once");
            assertEquals(acceptedLong, returned.size(), "every accepted long task comes back from shutdownNow");
            assertEquals(0, lost);
        }
    }

    private static long usedAfterGc(MemoryMXBean memory) {
        for (int i = 0; i < 2; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }

    /** A producer thread; the handler tells it, through {@link #lastRejected}, that its last schedule was rejected. */
    private static final class Producer extends Thread {
        private final TimingWheelExecutor executor;
        private final CountDownLatch go;
        private final long schedules;
        private final Runnable shortTask;
        private final Runnable longTask;
        private final TaskThreadFailures failures;
        volatile Runnable lastRejected;
        long acceptedShort;
        long acceptedLong;
        long rejected;

        Producer(TimingWheelExecutor executor, CountDownLatch go, long schedules, Runnable shortTask,
                 Runnable longTask, TaskThreadFailures failures) {
            super("flood-producer");
            this.executor = executor;
            this.go = go;
            this.schedules = schedules;
            this.shortTask = shortTask;
            this.longTask = longTask;
            this.failures = failures;
        }

        @Override
        public void run() {
            try {
                go.await();
                for (long i = 0; i < schedules; i++) {
                    boolean isLong = i % LONG_EVERY == 0;
                    Object f = isLong
                            ? executor.schedule(longTask, 1, TimeUnit.HOURS)
                            : executor.schedule(shortTask, i % 5, TimeUnit.MILLISECONDS);
                    if (lastRejected == f) {
                        rejected++;
                    } else if (isLong) {
                        acceptedLong++;
                    } else {
                        acceptedShort++;
                    }
                }
            } catch (Throwable t) {
                failures.record(t);
            }
        }
    }
}
