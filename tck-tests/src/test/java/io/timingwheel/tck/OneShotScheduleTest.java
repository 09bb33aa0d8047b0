package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.MICROSECONDS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** {@code schedule(Runnable|Callable, delay, unit)}: a one-shot task runs exactly once, never before its delay. */
class OneShotScheduleTest extends TckTestCase {

    /** A delayed Callable runs once, not before its delay, and its future yields the Callable's result. */
    @ForEachExecutor
    void scheduleCallableRunsAfterDelay(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            long t0 = System.nanoTime();
            ScheduledFuture<Boolean> future = s.executor().schedule(callable(() -> {
                assertNotEarly(t0, SHORT_DELAY_MS, MILLISECONDS);
                return Boolean.TRUE;
            }), SHORT_DELAY_MS, MILLISECONDS);
            assertSame(Boolean.TRUE, get(future));
            assertNotEarly(t0, SHORT_DELAY_MS, MILLISECONDS);
            assertTrue(future.isDone());
            assertFalse(future.isCancelled());
        }
    }

    /** A delayed Runnable runs once, not before its delay, and its future yields null. */
    @ForEachExecutor
    void scheduleRunnableRunsAfterDelay(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            long t0 = System.nanoTime();
            AtomicInteger runs = new AtomicInteger();
            ScheduledFuture<?> future = s.executor().schedule(task(() -> {
                assertNotEarly(t0, SHORT_DELAY_MS, MILLISECONDS);
                runs.incrementAndGet();
            }), SHORT_DELAY_MS, MILLISECONDS);
            assertNull(get(future));
            assertEquals(1, runs.get());
            assertTrue(future.isDone());
        }
    }

    /** An exception thrown by a delayed Callable comes out of get() as the cause of an ExecutionException. */
    @ForEachExecutor
    void scheduleCallableFailureSurfacesInGet(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            IllegalStateException failure = new IllegalStateException("boom");
            ScheduledFuture<Object> future = s.executor().schedule(() -> {
                throw failure;
            }, 1, MILLISECONDS);
            ExecutionException e = assertThrows(ExecutionException.class, () -> get(future));
            assertSame(failure, e.getCause());
            assertTrue(future.isDone());
            assertFalse(future.isCancelled());
        }
    }

    /** An exception thrown by a delayed Runnable comes out of get() as the cause of an ExecutionException. */
    @ForEachExecutor
    void scheduleRunnableFailureSurfacesInGet(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            Error failure = new AssertionError("expected by the test");
            ScheduledFuture<?> future = s.executor().schedule(() -> {
                throw failure;
            }, 1, MILLISECONDS);
            ExecutionException e = assertThrows(ExecutionException.class, () -> get(future));
            assertSame(failure, e.getCause());
        }
    }

    /** Many tasks with assorted delays (some equal) each run exactly once, none before its own delay. */
    @ForEachExecutor
    void manyTasksWithAssortedDelaysEachRunOnceNeverEarly(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            int n = 200;
            AtomicInteger[] runs = new AtomicInteger[n];
            List<ScheduledFuture<?>> futures = new ArrayList<>();
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                AtomicInteger count = runs[i] = new AtomicInteger();
                long delayMicros = (i * 7919L) % 40_000; // 0 .. 40 ms, spread, with repeats
                futures.add(s.executor().schedule(task(() -> {
                    assertNotEarly(t0, delayMicros, MICROSECONDS);
                    count.incrementAndGet();
                }), delayMicros, MICROSECONDS));
            }
            for (ScheduledFuture<?> future : futures) {
                get(future);
            }
            for (AtomicInteger count : runs) {
                assertEquals(1, count.get());
            }
        }
    }

    /** A task scheduled later with an earlier deadline is not held up behind an earlier-scheduled distant task. */
    @ForEachExecutor
    void earlierDeadlineIsNotBlockedByLaterDeadline(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            CountDownLatch farRan = new CountDownLatch(1);
            ScheduledFuture<?> far = s.executor().schedule(countDowner(farRan), LONG_DELAY_MS, MILLISECONDS);
            long t0 = System.nanoTime();
            ScheduledFuture<?> near = s.executor().schedule(
                    task(() -> assertNotEarly(t0, 1, MILLISECONDS)), 1, MILLISECONDS);
            get(near);
            assertFalse(far.isDone());
            assertNotReleased(farRan);
            assertTrue(far.cancel(false));
        }
    }

    /** The delay is honoured in whichever fine unit it is given (nanoseconds, microseconds, milliseconds). */
    @ForEachExecutor
    void delayIsHonouredInEveryFineUnit(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            List<ScheduledFuture<?>> futures = new ArrayList<>();
            long t0 = System.nanoTime();
            for (TimeUnit unit : new TimeUnit[] {NANOSECONDS, MICROSECONDS, MILLISECONDS}) {
                long delay = unit.convert(SHORT_DELAY_MS, MILLISECONDS);
                futures.add(s.executor().schedule(
                        task(() -> assertNotEarly(t0, delay, unit)), delay, unit));
            }
            for (ScheduledFuture<?> future : futures) {
                get(future);
            }
        }
    }

    /** A task may schedule another task on the same executor, which then runs after its own delay. */
    @ForEachExecutor
    void taskCanScheduleAnotherTask(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            CountDownLatch innerRan = new CountDownLatch(1);
            e.schedule(task(() -> {
                long t1 = System.nanoTime();
                e.schedule(task(() -> {
                    assertNotEarly(t1, SHORT_DELAY_MS, MILLISECONDS);
                    innerRan.countDown();
                }), SHORT_DELAY_MS, MILLISECONDS);
            }), 1, MILLISECONDS);
            await(innerRan);
        }
    }
}
