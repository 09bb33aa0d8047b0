package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.DAYS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** Zero and negative delays mean "now", for one-shot and periodic tasks alike, down to Long.MIN_VALUE. */
class ZeroAndNegativeDelayTest extends TckTestCase {

    /** A Runnable scheduled with delay 0 runs promptly. */
    @ForEachExecutor
    void zeroDelayRunnableRunsNow(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            CountDownLatch ran = new CountDownLatch(1);
            ScheduledFuture<?> future = s.executor().schedule(countDowner(ran), 0, MILLISECONDS);
            await(ran);
            get(future);
            assertTrue(future.getDelay(NANOSECONDS) <= 0);
        }
    }

    /** A Callable scheduled with a negative delay runs promptly, and its getDelay() is not positive. */
    @ForEachExecutor
    void negativeDelayCallableRunsNow(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledFuture<String> future = s.executor().schedule(() -> "done", -1, SECONDS);
            assertTrue(future.getDelay(NANOSECONDS) <= 0);
            assertEquals("done", get(future));
        }
    }

    /** Long.MIN_VALUE as a delay, in any unit, runs the task promptly without overflowing into the far future. */
    @ForEachExecutor
    void longMinValueDelayRunsNowInEveryUnit(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            List<ScheduledFuture<?>> futures = new ArrayList<>();
            for (TimeUnit unit : TimeUnit.values()) {
                futures.add(s.executor().schedule(NOOP, Long.MIN_VALUE, unit));
            }
            for (ScheduledFuture<?> future : futures) {
                get(future);
            }
        }
    }

    /** A fixed-rate task with a negative initial delay starts at once and keeps its period. */
    @ForEachExecutor
    void fixedRateWithNegativeInitialDelayStartsNow(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            CountDownLatch runs = new CountDownLatch(3);
            ScheduledFuture<?> future =
                    s.executor().scheduleAtFixedRate(countDowner(runs), -10, 1, MILLISECONDS);
            await(runs);
            assertTrue(future.cancel(false));
        }
    }

    /** A fixed-delay task with initial delay 0 or Long.MIN_VALUE starts at once. */
    @ForEachExecutor
    void fixedDelayWithZeroOrMinInitialDelayStartsNow(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            CountDownLatch runs = new CountDownLatch(4);
            ScheduledFuture<?> zero = e.scheduleWithFixedDelay(countDowner(runs), 0, 1, MILLISECONDS);
            ScheduledFuture<?> min = e.scheduleWithFixedDelay(countDowner(runs), Long.MIN_VALUE, 1, DAYS);
            await(runs);
            assertTrue(zero.cancel(false));
            assertTrue(min.cancel(false));
        }
    }

    /** Tasks due "now" run even while a long-delayed task is pending ahead of them in submission order. */
    @ForEachExecutor
    void dueTasksRunWhileDistantTasksPend(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            ScheduledFuture<?> distant = e.schedule(NOOP, 1, DAYS);
            CountDownLatch ran = new CountDownLatch(3);
            e.schedule(countDowner(ran), 0, NANOSECONDS);
            e.schedule(countDowner(ran), -1, DAYS);
            e.execute(countDowner(ran));
            await(ran);
            assertTrue(distant.cancel(false));
        }
    }
}
