package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;

/** Extreme pool sizes: 0 workers still runs every kind of task (as STPE does), 100 workers run 100 tasks at once. */
class PoolSizeTest extends TckTestCase {

    /** With pool size 0 a delayed Callable still runs, not early (the JDK's ZeroCorePoolSize test). */
    @ForEachExecutor
    void zeroPoolSizeRunsDelayedTask(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create(0)) {
            assertEquals(0, s.getCorePoolSize());
            long t0 = System.nanoTime();
            ScheduledFuture<String> future = s.executor().schedule(() -> "ran", SHORT_DELAY_MS, MILLISECONDS);
            assertEquals("ran", get(future));
            assertNotEarly(t0, SHORT_DELAY_MS, MILLISECONDS);
        }
    }

    /** With pool size 0 periodic tasks of both kinds keep running. */
    @ForEachExecutor
    void zeroPoolSizeRunsPeriodicTasks(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create(0)) {
            CountDownLatch runs = new CountDownLatch(6);
            ScheduledFuture<?> rate = s.executor().scheduleAtFixedRate(countDowner(runs), 0, 1, MILLISECONDS);
            ScheduledFuture<?> delay = s.executor().scheduleWithFixedDelay(countDowner(runs), 0, 1, MILLISECONDS);
            await(runs);
            assertTrue(rate.cancel(false));
            assertTrue(delay.cancel(false));
        }
    }

    /** With pool size 0 executed and submitted tasks all run, and shutdown still terminates. */
    @ForEachExecutor
    void zeroPoolSizeRunsImmediateTasksAndTerminates(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create(0)) {
            CountDownLatch ran = new CountDownLatch(20);
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                s.executor().execute(countDowner(ran));
                futures.add(s.executor().submit(countDowner(ran)));
            }
            await(ran);
            for (Future<?> future : futures) {
                get(future);
            }
            s.executor().shutdown();
            assertTrue(s.executor().awaitTermination(LONG_DELAY_MS, MILLISECONDS));
        }
    }

    /** With 100 workers, 100 tasks that each wait for all the others all run at the same time. */
    @ForEachExecutor
    void hundredWorkersRunHundredTasksAtOnce(SchedulerFactory f) throws Exception {
        int n = 100;
        try (ManagedScheduler s = f.create(n)) {
            assertEquals(n, s.getCorePoolSize());
            CountDownLatch arrived = new CountDownLatch(n);
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                futures.add(s.executor().schedule(task(() -> {
                    arrived.countDown();
                    await(arrived);
                }), i % 3, MILLISECONDS));
            }
            for (Future<?> future : futures) {
                get(future);
            }
            assertTrue(s.getActiveCount() <= n);
        }
    }

    /** A negative pool size is an IllegalArgumentException. */
    @ForEachExecutor
    void negativePoolSizeIsIllegal(SchedulerFactory f) {
        assertThrows(IllegalArgumentException.class, () -> f.create(-1).close());
    }
}
