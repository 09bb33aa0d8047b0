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

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
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
 * overlapping; a late run does not shift later ones; a run that throws ends the task. The timing tests run also on a
 * virtual clock ({@link ForEachTimeline}), where they take no real delay and where the times are exact.
 */
class FixedRateTest extends TckTestCase {

    /**
     * The first run of a fixed-rate task waits for the initial delay. On the virtual kinds, exactly: not a nanosecond
     * before it, and the run sees its deadline.
     */
    @ForEachTimeline
    void firstRunWaitsForInitialDelay(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            Timeline time = s.timeline();
            CountDownLatch ran = new CountDownLatch(1);
            AtomicLong seen = new AtomicLong();
            long t0 = time.nanoTime();
            ScheduledFuture<?> future = s.executor().scheduleAtFixedRate(task(() -> {
                seen.set(time.nanoTime());
                assertNotEarly(time, t0, SHORT_DELAY_MS, MILLISECONDS);
                ran.countDown();
            }), SHORT_DELAY_MS, HOUR_MS, MILLISECONDS);
            passCheckingNothingRanEarly(time, SHORT_DELAY_MS, MILLISECONDS, ran);
            await(ran);
            if (time.isVirtual()) { // the virtual kinds' exactness
                assertEquals(t0 + MILLISECONDS.toNanos(SHORT_DELAY_MS), seen.get(), "the run saw another time");
            }
            assertFalse(future.isDone());
            assertTrue(future.cancel(false));
        }
    }

    /**
     * Run n starts no earlier than initialDelay + n * period after the schedule call; on the virtual kinds, exactly
     * then, and no run comes before its time.
     */
    @ForEachTimeline
    void runsFollowInitialDelayPlusMultiplesOfPeriod(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            Timeline time = s.timeline();
            long initial = 5;
            long period = 10;
            int runs = 6;
            CountDownLatch done = new CountDownLatch(runs);
            AtomicLongArray starts = new AtomicLongArray(runs);
            AtomicInteger n = new AtomicInteger();
            long t0 = time.nanoTime();
            ScheduledFuture<?> future = s.executor().scheduleAtFixedRate(task(() -> {
                int i = n.getAndIncrement();
                assertNotEarly(time, t0, initial + i * period, MILLISECONDS);
                if (i < runs) {
                    starts.set(i, time.nanoTime());
                    done.countDown();
                }
            }), initial, period, MILLISECONDS);
            time.pass(initial + (runs - 1) * period, MILLISECONDS); // the last counted run's time
            await(done);
            assertTrue(future.cancel(false));
            assertNotEarly(time, t0, initial + (runs - 1) * period, MILLISECONDS);
            if (time.isVirtual()) { // the virtual kinds' exactness
                for (int i = 0; i < runs; i++) {
                    assertEquals(t0 + MILLISECONDS.toNanos(initial + i * period), starts.get(i), "run " + i);
                }
                assertEquals(runs, n.get(), "a run came before its time");
            }
        }
    }

    /**
     * After a slow run, the overdue runs follow at once (catch-up), because the schedule is fixed at
     * {@code t0 + n * period}, not at the end of the previous run. On the virtual kinds, exactly: every overdue run
     * starts at the time the slow run ended.
     */
    @ForEachTimeline
    void lateRunDoesNotShiftLaterRuns(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            Timeline time = s.timeline();
            long period = 40;
            int runs = 11;
            long slowRun = 12 * period; // makes runs 1..10 overdue when run 0 ends
            AtomicLongArray starts = new AtomicLongArray(runs);
            AtomicLong endOfFirstRun = new AtomicLong();
            AtomicInteger n = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(runs);
            long t0 = time.nanoTime();
            ScheduledFuture<?> future = s.executor().scheduleAtFixedRate(task(() -> {
                int i = n.getAndIncrement();
                if (i >= runs) {
                    return;
                }
                starts.set(i, time.nanoTime());
                assertNotEarly(time, t0, i * period, MILLISECONDS);
                if (i == 0) {
                    time.spend(slowRun, MILLISECONDS); // the load under test, not a synchronisation
                    endOfFirstRun.set(time.nanoTime());
                }
                done.countDown();
            }), 0, period, MILLISECONDS);
            await(done); // run 0 lets the time pass itself: nothing for the test to move
            assertTrue(future.cancel(false));
            // With catch-up, runs 1..10 start back to back after run 0. Shifting each run to a period after the
            // previous one would start run 10 at least 10 periods (400 ms) after the end of run 0: the bound below is
            // that exact limit, so only a stall of the whole machine that long could fail a correct executor.
            long gapMs = NANOSECONDS.toMillis(starts.get(runs - 1) - endOfFirstRun.get());
            assertTrue(gapMs < (runs - 1) * period,
                    "run " + (runs - 1) + " started " + gapMs + " ms after the slow run 0 ended");
            if (time.isVirtual()) { // the virtual kinds' exactness
                assertEquals(t0, starts.get(0), "run 0");
                assertEquals(t0 + MILLISECONDS.toNanos(slowRun), endOfFirstRun.get(), "the end of run 0");
                for (int i = 1; i < runs; i++) {
                    assertEquals(endOfFirstRun.get(), starts.get(i), "run " + i + " did not start as run 0 ended");
                }
            }
        }
    }

    /**
     * Runs of one fixed-rate task never overlap, even when a run takes longer than the period; on the virtual kinds
     * each run starts exactly as the previous one ends.
     */
    @ForEachTimeline
    void runsNeverOverlap(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create(4)) {
            Timeline time = s.timeline();
            int runs = 4;
            long runTime = 5; // longer than the period
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger n = new AtomicInteger();
            AtomicLongArray starts = new AtomicLongArray(runs);
            CountDownLatch done = new CountDownLatch(runs);
            long t0 = time.nanoTime();
            ScheduledFuture<?> future = s.executor().scheduleAtFixedRate(task(() -> {
                assertEquals(1, inside.incrementAndGet(), "two runs of one periodic task overlapped");
                int i = n.getAndIncrement();
                if (i < runs) {
                    starts.set(i, time.nanoTime());
                }
                time.spend(runTime, MILLISECONDS); // while it lasts, the next run is overdue
                inside.decrementAndGet();
                done.countDown();
            }), 0, 1, MILLISECONDS);
            await(done); // each run is late behind the previous one, whose time lets it come
            assertTrue(future.cancel(false));
            if (time.isVirtual()) { // the virtual kinds' exactness
                for (int i = 0; i < runs; i++) {
                    assertEquals(t0 + MILLISECONDS.toNanos(i * runTime), starts.get(i), "run " + i);
                }
            }
        }
    }

    /**
     * A run that throws cancels all later runs; get() throws ExecutionException with that cause. On the virtual kinds
     * the three runs see exactly their deadlines.
     */
    @ForEachTimeline
    void throwingRunEndsTheTask(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            Timeline time = s.timeline();
            RuntimeException failure = new RuntimeException("expected by the test");
            AtomicInteger runs = new AtomicInteger();
            List<Long> seen = new CopyOnWriteArrayList<>();
            long t0 = time.nanoTime();
            ScheduledFuture<?> future = s.executor().scheduleAtFixedRate(() -> {
                seen.add(time.nanoTime());
                if (runs.incrementAndGet() == 3) {
                    throw failure;
                }
            }, 0, 1, MILLISECONDS);
            time.pass(2, MILLISECONDS); // the third run's time
            ExecutionException e = assertThrows(ExecutionException.class, () -> get(future));
            assertSame(failure, e.getCause());
            assertTrue(future.isDone());
            assertFalse(future.isCancelled());
            assertFalse(future.cancel(false));
            long t1 = time.nanoTime();
            ScheduledFuture<?> later = s.executor().schedule(NOOP, 10, MILLISECONDS); // 10 periods later
            time.pass(10, MILLISECONDS);
            get(later);
            assertNotEarly(time, t1, 10, MILLISECONDS);
            assertEquals(3, runs.get());
            if (time.isVirtual()) { // the virtual kinds' exactness
                assertEquals(List.of(t0, t0 + MILLISECONDS.toNanos(1), t0 + MILLISECONDS.toNanos(2)), seen);
            }
        }
    }

    /**
     * Cancelling a fixed-rate task stops its runs; get() then throws CancellationException. On the virtual kinds it
     * ran exactly twice (at 0 and 1 ms), and never again.
     */
    @ForEachTimeline
    void cancelStopsLaterRuns(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            Timeline time = s.timeline();
            AtomicInteger runs = new AtomicInteger();
            CountDownLatch twice = new CountDownLatch(2);
            ScheduledFuture<?> future = s.executor().scheduleAtFixedRate(() -> {
                runs.incrementAndGet();
                twice.countDown();
            }, 0, 1, MILLISECONDS);
            time.pass(1, MILLISECONDS); // the second run's time
            await(twice);
            assertTrue(future.cancel(false));
            assertTrue(future.isCancelled());
            assertTrue(future.isDone());
            assertThrows(CancellationException.class, () -> future.get());
            // A run in progress at cancel time may finish; after that, none starts.
            eventually().until(() -> {
                int before = runs.get();
                ScheduledFuture<?> later = s.executor().schedule(NOOP, 5, MILLISECONDS);
                time.pass(5, MILLISECONDS);
                get(later);
                return runs.get() == before;
            });
            if (time.isVirtual()) { // the virtual kinds' exactness
                assertEquals(2, runs.get());
            }
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
    @ForEachTimeline
    void futureIsPeriodicAndNeverDoneWhileRunning(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            Timeline time = s.timeline();
            CountDownLatch runs = new CountDownLatch(3);
            ScheduledFuture<?> future = s.executor().scheduleAtFixedRate(countDowner(runs), 0, 1, MILLISECONDS);
            assertTrue(assertInstanceOf(RunnableScheduledFuture.class, future).isPeriodic());
            time.pass(2, MILLISECONDS); // the third run's time
            await(runs);
            assertFalse(future.isDone());
            assertThrows(TimeoutException.class, () -> future.get(1, MILLISECONDS)); // a wait in real time
            assertTrue(future.cancel(false));
        }
    }

    /** The period is honoured when given in microseconds; on the virtual kinds each run sees exactly its deadline. */
    @ForEachTimeline
    void periodInMicrosecondsIsHonoured(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            Timeline time = s.timeline();
            int runs = 4;
            AtomicInteger n = new AtomicInteger();
            AtomicLongArray starts = new AtomicLongArray(runs);
            CountDownLatch done = new CountDownLatch(runs);
            long t0 = time.nanoTime();
            ScheduledFuture<?> future = s.executor().scheduleAtFixedRate(task(() -> {
                int i = n.getAndIncrement();
                assertNotEarly(time, t0, i * 7_500L, MICROSECONDS);
                if (i < runs) {
                    starts.set(i, time.nanoTime());
                    done.countDown();
                }
            }), 0, 7_500, MICROSECONDS);
            time.pass((runs - 1) * 7_500L, MICROSECONDS); // the last counted run's time
            await(done);
            assertTrue(future.cancel(false));
            if (time.isVirtual()) { // the virtual kinds' exactness
                for (int i = 0; i < runs; i++) {
                    assertEquals(t0 + MICROSECONDS.toNanos(i * 7_500L), starts.get(i), "run " + i);
                }
            }
        }
    }
}
