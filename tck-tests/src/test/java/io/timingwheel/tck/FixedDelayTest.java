package io.timingwheel.tck;

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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * {@code scheduleWithFixedDelay}: the next run starts {@code delay} after the previous run ended; a run that throws
 * ends the task. The timing tests run also on a virtual clock ({@link ForEachTimeline}), where they take no real delay
 * and where the times are exact.
 */
class FixedDelayTest extends TckTestCase {

    /**
     * The first run of a fixed-delay task waits for the initial delay. On the virtual kinds, exactly: not a nanosecond
     * before it, and the run sees its deadline.
     */
    @ForEachTimeline
    void firstRunWaitsForInitialDelay(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            Timeline time = s.timeline();
            CountDownLatch ran = new CountDownLatch(1);
            AtomicLong seen = new AtomicLong();
            long t0 = time.nanoTime();
            ScheduledFuture<?> future = s.executor().scheduleWithFixedDelay(task(() -> {
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
     * Each run starts at least {@code delay} after the previous run ended, also when runs take time; on the virtual
     * kinds exactly {@code delay} after it.
     */
    @ForEachTimeline
    void nextRunStartsDelayAfterPreviousEnded(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            Timeline time = s.timeline();
            long delay = 10;
            long slow = 3;
            int runs = 5;
            AtomicLong previousEnd = new AtomicLong();
            AtomicLongArray starts = new AtomicLongArray(runs);
            AtomicLongArray ends = new AtomicLongArray(runs);
            AtomicInteger n = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(runs);
            ScheduledFuture<?> future = s.executor().scheduleWithFixedDelay(task(() -> {
                int i = n.getAndIncrement();
                if (i > 0) {
                    assertNotEarly(time, previousEnd.get(), delay, MILLISECONDS);
                }
                if (i < runs) {
                    starts.set(i, time.nanoTime());
                }
                if (i % 2 == 1) {
                    time.spend(slow, MILLISECONDS); // some runs take time
                }
                previousEnd.set(time.nanoTime());
                if (i < runs) {
                    ends.set(i, previousEnd.get());
                    done.countDown();
                }
            }), 0, delay, MILLISECONDS);
            // Runs 1 and 3 are slow: run 4 starts 4 delays and 2 slow runs after run 0.
            time.pass(4 * delay + 2 * slow, MILLISECONDS);
            await(done);
            assertTrue(future.cancel(false));
            if (time.isVirtual()) { // the virtual kinds' exactness
                for (int i = 1; i < runs; i++) {
                    assertEquals(ends.get(i - 1) + MILLISECONDS.toNanos(delay), starts.get(i), "run " + i);
                }
                assertEquals(MILLISECONDS.toNanos(4 * delay + 2 * slow), starts.get(runs - 1) - starts.get(0));
            }
        }
    }

    /**
     * A run that throws cancels all later runs; get() throws ExecutionException with that cause. On the virtual kinds
     * the two runs see exactly their deadlines.
     */
    @ForEachTimeline
    void throwingRunEndsTheTask(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            Timeline time = s.timeline();
            IllegalStateException failure = new IllegalStateException("expected by the test");
            AtomicInteger runs = new AtomicInteger();
            List<Long> seen = new CopyOnWriteArrayList<>();
            long t0 = time.nanoTime();
            ScheduledFuture<?> future = s.executor().scheduleWithFixedDelay(() -> {
                seen.add(time.nanoTime());
                if (runs.incrementAndGet() == 2) {
                    throw failure;
                }
            }, 0, 1, MILLISECONDS);
            time.pass(1, MILLISECONDS); // the second run's time
            ExecutionException e = assertThrows(ExecutionException.class, () -> get(future));
            assertSame(failure, e.getCause());
            assertTrue(future.isDone());
            assertFalse(future.isCancelled());
            ScheduledFuture<?> later = s.executor().schedule(NOOP, 10, MILLISECONDS); // 10 delays later
            time.pass(10, MILLISECONDS);
            get(later);
            assertEquals(2, runs.get());
            if (time.isVirtual()) { // the virtual kinds' exactness
                assertEquals(List.of(t0, t0 + MILLISECONDS.toNanos(1)), seen);
            }
        }
    }

    /**
     * Cancelling a fixed-delay task stops its runs; get() then throws CancellationException. On the virtual kinds it
     * ran exactly twice (at 0 and 1 ms), and never again.
     */
    @ForEachTimeline
    void cancelStopsLaterRuns(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            Timeline time = s.timeline();
            AtomicInteger runs = new AtomicInteger();
            CountDownLatch twice = new CountDownLatch(2);
            ScheduledFuture<?> future = s.executor().scheduleWithFixedDelay(() -> {
                runs.incrementAndGet();
                twice.countDown();
            }, 0, 1, MILLISECONDS);
            time.pass(1, MILLISECONDS); // the second run's time
            await(twice);
            assertTrue(future.cancel(false));
            assertTrue(future.isCancelled());
            assertThrows(CancellationException.class, () -> get(future));
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

    /**
     * Runs of one fixed-delay task never overlap, whatever the number of workers; on the virtual kinds each run starts
     * exactly its delay (1 ns) after the previous one ended.
     */
    @ForEachTimeline
    void runsNeverOverlap(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create(4)) {
            Timeline time = s.timeline();
            int runs = 5;
            long runTime = MILLISECONDS.toNanos(2);
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger n = new AtomicInteger();
            AtomicLongArray starts = new AtomicLongArray(runs);
            CountDownLatch done = new CountDownLatch(runs);
            long t0 = time.nanoTime();
            ScheduledFuture<?> future = s.executor().scheduleWithFixedDelay(task(() -> {
                assertEquals(1, inside.incrementAndGet(), "two runs of one periodic task overlapped");
                int i = n.getAndIncrement();
                if (i < runs) {
                    starts.set(i, time.nanoTime());
                }
                time.spend(runTime, NANOSECONDS);
                inside.decrementAndGet();
                done.countDown();
            }), 0, 1, NANOSECONDS);
            time.pass((runs - 1) * (runTime + 1), NANOSECONDS); // the last counted run's time
            await(done);
            assertTrue(future.cancel(false));
            if (time.isVirtual()) { // the virtual kinds' exactness
                for (int i = 0; i < runs; i++) {
                    assertEquals(t0 + i * (runTime + 1), starts.get(i), "run " + i);
                }
            }
        }
    }

    /** A fixed-delay future is a periodic RunnableScheduledFuture and is not done while it keeps running. */
    @ForEachTimeline
    void futureIsPeriodic(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            Timeline time = s.timeline();
            CountDownLatch runs = new CountDownLatch(2);
            ScheduledFuture<?> future = s.executor().scheduleWithFixedDelay(countDowner(runs), 0, 1, MILLISECONDS);
            assertTrue(assertInstanceOf(RunnableScheduledFuture.class, future).isPeriodic());
            time.pass(1, MILLISECONDS); // the second run's time
            await(runs);
            assertFalse(future.isDone());
            assertTrue(future.cancel(true));
            assertTrue(future.isDone());
        }
    }
}
