package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code scheduleWithFixedDelay}: the next run starts {@code delay} after the previous run ended; a run that throws
 * ends the task.
 */
class FixedDelayTest extends TckTestCase {

    /** The first run of a fixed-delay task waits for the initial delay. */
    @ForEachExecutor
    void firstRunWaitsForInitialDelay(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            CountDownLatch ran = new CountDownLatch(1);
            long t0 = System.nanoTime();
            ScheduledFuture<?> future = s.executor().scheduleWithFixedDelay(task(() -> {
                assertNotEarly(t0, SHORT_DELAY_MS, MILLISECONDS);
                ran.countDown();
            }), SHORT_DELAY_MS, HOUR_MS, MILLISECONDS);
            await(ran);
            assertFalse(future.isDone());
            assertTrue(future.cancel(false));
        }
    }

    /** Each run starts at least {@code delay} after the previous run ended, also when runs take time. */
    @ForEachExecutor
    void nextRunStartsDelayAfterPreviousEnded(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            long delay = 10;
            AtomicLong previousEnd = new AtomicLong();
            AtomicInteger n = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(5);
            ScheduledFuture<?> future = s.executor().scheduleWithFixedDelay(task(() -> {
                if (n.getAndIncrement() > 0) {
                    assertNotEarly(previousEnd.get(), delay, MILLISECONDS);
                }
                spin(n.get() % 2 == 0 ? 3 : 0); // some runs take time
                previousEnd.set(System.nanoTime());
                done.countDown();
            }), 0, delay, MILLISECONDS);
            await(done);
            assertTrue(future.cancel(false));
        }
    }

    /** A run that throws cancels all later runs; get() throws ExecutionException with that cause. */
    @ForEachExecutor
    void throwingRunEndsTheTask(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            IllegalStateException failure = new IllegalStateException("expected by the test");
            AtomicInteger runs = new AtomicInteger();
            ScheduledFuture<?> future = s.executor().scheduleWithFixedDelay(() -> {
                if (runs.incrementAndGet() == 2) {
                    throw failure;
                }
            }, 0, 1, MILLISECONDS);
            ExecutionException e = assertThrows(ExecutionException.class, () -> get(future));
            assertSame(failure, e.getCause());
            assertTrue(future.isDone());
            assertFalse(future.isCancelled());
            get(s.executor().schedule(NOOP, 10, MILLISECONDS));
            assertEquals(2, runs.get());
        }
    }

    /** Cancelling a fixed-delay task stops its runs; get() then throws CancellationException. */
    @ForEachExecutor
    void cancelStopsLaterRuns(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            AtomicInteger runs = new AtomicInteger();
            CountDownLatch twice = new CountDownLatch(2);
            ScheduledFuture<?> future = s.executor().scheduleWithFixedDelay(() -> {
                runs.incrementAndGet();
                twice.countDown();
            }, 0, 1, MILLISECONDS);
            await(twice);
            assertTrue(future.cancel(false));
            assertTrue(future.isCancelled());
            assertThrows(CancellationException.class, () -> get(future));
            eventually().until(() -> {
                int before = runs.get();
                get(s.executor().schedule(NOOP, 5, MILLISECONDS));
                return runs.get() == before;
            });
        }
    }

    /** A delay of zero or less is an IllegalArgumentException; nothing is scheduled. */
    @ForEachExecutor
    void nonPositiveDelayIsIllegal(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            assertThrows(IllegalArgumentException.class, () -> e.scheduleWithFixedDelay(NOOP, 0, 0, MILLISECONDS));
            assertThrows(IllegalArgumentException.class, () -> e.scheduleWithFixedDelay(NOOP, 1, -1, MILLISECONDS));
            assertThrows(IllegalArgumentException.class,
                    () -> e.scheduleWithFixedDelay(NOOP, 1, Long.MIN_VALUE, NANOSECONDS));
            assertEquals(0, s.getTaskCount());
        }
    }

    /** Runs of one fixed-delay task never overlap, whatever the number of workers. */
    @ForEachExecutor
    void runsNeverOverlap(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create(4)) {
            AtomicInteger inside = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(5);
            ScheduledFuture<?> future = s.executor().scheduleWithFixedDelay(task(() -> {
                assertEquals(1, inside.incrementAndGet(), "two runs of one periodic task overlapped");
                spin(2);
                inside.decrementAndGet();
                done.countDown();
            }), 0, 1, NANOSECONDS);
            await(done);
            assertTrue(future.cancel(false));
        }
    }

    /** A fixed-delay future is a periodic RunnableScheduledFuture and is not done while it keeps running. */
    @ForEachExecutor
    void futureIsPeriodic(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            CountDownLatch runs = new CountDownLatch(2);
            ScheduledFuture<?> future = s.executor().scheduleWithFixedDelay(countDowner(runs), 0, 1, MILLISECONDS);
            assertTrue(assertInstanceOf(RunnableScheduledFuture.class, future).isPeriodic());
            await(runs);
            assertFalse(future.isDone());
            assertTrue(future.cancel(true));
            assertTrue(future.isDone());
        }
    }
}
