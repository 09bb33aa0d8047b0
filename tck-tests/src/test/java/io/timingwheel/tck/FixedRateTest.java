package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.MICROSECONDS;
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
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * {@code scheduleAtFixedRate}: runs at {@code initialDelay + n * period} from the schedule call, never early, never
 * overlapping; a late run does not shift later ones; a run that throws ends the task.
 */
class FixedRateTest extends TckTestCase {

    /** The first run of a fixed-rate task waits for the initial delay. */
    @ForEachExecutor
    void firstRunWaitsForInitialDelay(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            CountDownLatch ran = new CountDownLatch(1);
            long t0 = System.nanoTime();
            ScheduledFuture<?> future = s.executor().scheduleAtFixedRate(task(() -> {
                assertNotEarly(t0, SHORT_DELAY_MS, MILLISECONDS);
                ran.countDown();
            }), SHORT_DELAY_MS, HOUR_MS, MILLISECONDS);
            await(ran);
            assertFalse(future.isDone());
            assertTrue(future.cancel(false));
        }
    }

    /** Run n starts no earlier than initialDelay + n * period after the schedule call. */
    @ForEachExecutor
    void runsFollowInitialDelayPlusMultiplesOfPeriod(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            long initial = 5;
            long period = 10;
            int runs = 6;
            CountDownLatch done = new CountDownLatch(runs);
            AtomicInteger n = new AtomicInteger();
            long t0 = System.nanoTime();
            ScheduledFuture<?> future = s.executor().scheduleAtFixedRate(task(() -> {
                int i = n.getAndIncrement();
                assertNotEarly(t0, initial + i * period, MILLISECONDS);
                done.countDown();
            }), initial, period, MILLISECONDS);
            await(done);
            assertTrue(future.cancel(false));
            assertTrue(millisElapsedSince(t0) >= initial + (runs - 1) * period);
        }
    }

    /**
     * After a slow run, the overdue runs follow at once (catch-up), because the schedule is fixed at
     * {@code t0 + n * period}, not at the end of the previous run.
     */
    @ForEachExecutor
    void lateRunDoesNotShiftLaterRuns(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            long period = 40;
            int runs = 11;
            long slowRun = 12 * period; // makes runs 1..10 overdue when run 0 ends
            AtomicLongArray starts = new AtomicLongArray(runs);
            AtomicLong endOfFirstRun = new AtomicLong();
            AtomicInteger n = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(runs);
            long t0 = System.nanoTime();
            ScheduledFuture<?> future = s.executor().scheduleAtFixedRate(task(() -> {
                int i = n.getAndIncrement();
                if (i >= runs) {
                    return;
                }
                starts.set(i, System.nanoTime());
                assertNotEarly(t0, i * period, MILLISECONDS);
                if (i == 0) {
                    Thread.sleep(slowRun); // the load under test, not a synchronisation
                    endOfFirstRun.set(System.nanoTime());
                }
                done.countDown();
            }), 0, period, MILLISECONDS);
            await(done);
            assertTrue(future.cancel(false));
            // With catch-up, runs 1..10 start back to back after run 0. Shifting each run to a period after the
            // previous one would start run 10 at least 10 periods (400 ms) after the end of run 0: the bound below is
            // that exact limit, so only a stall of the whole machine that long could fail a correct executor.
            long gapMs = NANOSECONDS.toMillis(starts.get(runs - 1) - endOfFirstRun.get());
            assertTrue(gapMs < (runs - 1) * period,
                    "run " + (runs - 1) + " started " + gapMs + " ms after the slow run 0 ended");
        }
    }

    /** Runs of one fixed-rate task never overlap, even when a run takes longer than the period. */
    @ForEachExecutor
    void runsNeverOverlap(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create(4)) {
            AtomicInteger inside = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(4);
            ScheduledFuture<?> future = s.executor().scheduleAtFixedRate(task(() -> {
                assertEquals(1, inside.incrementAndGet(), "two runs of one periodic task overlapped");
                spin(5); // longer than the period
                inside.decrementAndGet();
                done.countDown();
            }), 0, 1, MILLISECONDS);
            await(done);
            assertTrue(future.cancel(false));
        }
    }

    /** A run that throws cancels all later runs; get() throws ExecutionException with that cause. */
    @ForEachExecutor
    void throwingRunEndsTheTask(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            RuntimeException failure = new RuntimeException("expected by the test");
            AtomicInteger runs = new AtomicInteger();
            ScheduledFuture<?> future = s.executor().scheduleAtFixedRate(() -> {
                if (runs.incrementAndGet() == 3) {
                    throw failure;
                }
            }, 0, 1, MILLISECONDS);
            ExecutionException e = assertThrows(ExecutionException.class, () -> get(future));
            assertSame(failure, e.getCause());
            assertTrue(future.isDone());
            assertFalse(future.isCancelled());
            assertFalse(future.cancel(false));
            long t0 = System.nanoTime();
            get(s.executor().schedule(NOOP, 10, MILLISECONDS)); // 10 periods later
            assertTrue(millisElapsedSince(t0) >= 10);
            assertEquals(3, runs.get());
        }
    }

    /** Cancelling a fixed-rate task stops its runs; get() then throws CancellationException. */
    @ForEachExecutor
    void cancelStopsLaterRuns(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            AtomicInteger runs = new AtomicInteger();
            CountDownLatch twice = new CountDownLatch(2);
            ScheduledFuture<?> future = s.executor().scheduleAtFixedRate(() -> {
                runs.incrementAndGet();
                twice.countDown();
            }, 0, 1, MILLISECONDS);
            await(twice);
            assertTrue(future.cancel(false));
            assertTrue(future.isCancelled());
            assertTrue(future.isDone());
            assertThrows(CancellationException.class, () -> future.get());
            // A run in progress at cancel time may finish; after that, none starts.
            eventually().until(() -> {
                int before = runs.get();
                get(s.executor().schedule(NOOP, 5, MILLISECONDS));
                return runs.get() == before;
            });
        }
    }

    /** A period of zero or less is an IllegalArgumentException; nothing is scheduled. */
    @ForEachExecutor
    void nonPositivePeriodIsIllegal(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            assertThrows(IllegalArgumentException.class, () -> e.scheduleAtFixedRate(NOOP, 0, 0, MILLISECONDS));
            assertThrows(IllegalArgumentException.class, () -> e.scheduleAtFixedRate(NOOP, 1, -1, MILLISECONDS));
            assertThrows(IllegalArgumentException.class,
                    () -> e.scheduleAtFixedRate(NOOP, 1, Long.MIN_VALUE, NANOSECONDS));
            assertEquals(0, s.getTaskCount());
        }
    }

    /** A fixed-rate future is a periodic RunnableScheduledFuture that is not done while it keeps running. */
    @ForEachExecutor
    void futureIsPeriodicAndNeverDoneWhileRunning(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            CountDownLatch runs = new CountDownLatch(3);
            ScheduledFuture<?> future = s.executor().scheduleAtFixedRate(countDowner(runs), 0, 1, MILLISECONDS);
            assertTrue(assertInstanceOf(RunnableScheduledFuture.class, future).isPeriodic());
            await(runs);
            assertFalse(future.isDone());
            assertThrows(TimeoutException.class, () -> future.get(1, MILLISECONDS));
            assertTrue(future.cancel(false));
        }
    }

    /** The period is honoured when given in microseconds. */
    @ForEachExecutor
    void periodInMicrosecondsIsHonoured(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            AtomicInteger n = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(4);
            long t0 = System.nanoTime();
            ScheduledFuture<?> future = s.executor().scheduleAtFixedRate(task(() -> {
                assertNotEarly(t0, n.getAndIncrement() * 7_500L, MICROSECONDS);
                done.countDown();
            }), 0, 7_500, MICROSECONDS);
            await(done);
            assertTrue(future.cancel(false));
        }
    }
}
