package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Delays up to {@code Long.MAX_VALUE} of any unit are accepted without overflow: such a task never fires, reports a
 * positive delay, sorts after nearer tasks, and can be cancelled; it does not disturb other tasks.
 */
class DelayOverflowTest extends TckTestCase {

    /** What one huge-delay task looked like: its future and the latch it would release if it ever ran. */
    private record Huge(TimeUnit unit, ScheduledFuture<?> future, CountDownLatch ran) {
    }

    /**
     * Checks that none of {@code huge} ran by the time a short task that was scheduled after them ran, that each
     * reports a positive delay, and that each can be cancelled.
     */
    private void assertNeverFireAndCancel(ScheduledExecutorService e, List<Huge> huge) throws Exception {
        long t0 = System.nanoTime();
        get(e.schedule(task(() -> assertNotEarly(t0, SHORT_DELAY_MS, MILLISECONDS)), SHORT_DELAY_MS, MILLISECONDS));
        for (Huge h : huge) {
            assertNotReleased(h.ran());
            assertFalse(h.future().isDone(), h.unit().toString());
            assertTrue(h.future().getDelay(NANOSECONDS) > 0, h.unit().toString());
            assertTrue(h.future().getDelay(h.unit()) > 0, h.unit().toString());
            assertTrue(h.future().cancel(false), h.unit().toString());
            assertTrue(h.future().isCancelled());
            assertThrows(CancellationException.class, () -> h.future().get());
        }
    }

    /** schedule(Runnable, Long.MAX_VALUE, unit) never runs, in every unit. */
    @ForEachExecutor
    void oneShotRunnableWithMaxDelayNeverRuns(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            List<Huge> huge = new ArrayList<>();
            for (TimeUnit unit : TimeUnit.values()) {
                CountDownLatch ran = new CountDownLatch(1);
                huge.add(new Huge(unit, s.executor().schedule(countDowner(ran), Long.MAX_VALUE, unit), ran));
            }
            assertNeverFireAndCancel(s.executor(), huge);
        }
    }

    /** schedule(Callable, Long.MAX_VALUE, unit) never runs, in every unit. */
    @ForEachExecutor
    void oneShotCallableWithMaxDelayNeverRuns(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            List<Huge> huge = new ArrayList<>();
            for (TimeUnit unit : TimeUnit.values()) {
                CountDownLatch ran = new CountDownLatch(1);
                huge.add(new Huge(unit, s.executor().schedule(() -> {
                    ran.countDown();
                    return unit;
                }, Long.MAX_VALUE, unit), ran));
            }
            assertNeverFireAndCancel(s.executor(), huge);
        }
    }

    /** scheduleAtFixedRate with initial delay Long.MAX_VALUE never runs, in every unit. */
    @ForEachExecutor
    void fixedRateWithMaxInitialDelayNeverRuns(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            List<Huge> huge = new ArrayList<>();
            for (TimeUnit unit : TimeUnit.values()) {
                CountDownLatch ran = new CountDownLatch(1);
                huge.add(new Huge(unit,
                        s.executor().scheduleAtFixedRate(countDowner(ran), Long.MAX_VALUE, 1, unit), ran));
            }
            assertNeverFireAndCancel(s.executor(), huge);
        }
    }

    /** scheduleWithFixedDelay with initial delay Long.MAX_VALUE never runs, in every unit. */
    @ForEachExecutor
    void fixedDelayWithMaxInitialDelayNeverRuns(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            List<Huge> huge = new ArrayList<>();
            for (TimeUnit unit : TimeUnit.values()) {
                CountDownLatch ran = new CountDownLatch(1);
                huge.add(new Huge(unit,
                        s.executor().scheduleWithFixedDelay(countDowner(ran), Long.MAX_VALUE, 1, unit), ran));
            }
            assertNeverFireAndCancel(s.executor(), huge);
        }
    }

    /** A fixed-rate task with period Long.MAX_VALUE runs once at once, then never again, in every unit. */
    @ForEachExecutor
    void fixedRateWithMaxPeriodRunsOnce(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            List<Huge> huge = new ArrayList<>();
            CountDownLatch firstRuns = new CountDownLatch(TimeUnit.values().length);
            for (TimeUnit unit : TimeUnit.values()) {
                CountDownLatch secondRun = new CountDownLatch(2); // released only by a second run
                huge.add(new Huge(unit, s.executor().scheduleAtFixedRate(() -> {
                    if (secondRun.getCount() == 2) {
                        firstRuns.countDown();
                    }
                    secondRun.countDown();
                }, 0, Long.MAX_VALUE, unit), secondRun));
            }
            await(firstRuns);
            assertNeverFireAndCancel(s.executor(), huge);
        }
    }

    /** A fixed-delay task with delay Long.MAX_VALUE runs once at once, then never again, in every unit. */
    @ForEachExecutor
    void fixedDelayWithMaxDelayRunsOnce(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            List<Huge> huge = new ArrayList<>();
            CountDownLatch firstRuns = new CountDownLatch(TimeUnit.values().length);
            for (TimeUnit unit : TimeUnit.values()) {
                CountDownLatch secondRun = new CountDownLatch(2);
                huge.add(new Huge(unit, s.executor().scheduleWithFixedDelay(() -> {
                    if (secondRun.getCount() == 2) {
                        firstRuns.countDown();
                    }
                    secondRun.countDown();
                }, 0, Long.MAX_VALUE, unit), secondRun));
            }
            await(firstRuns);
            assertNeverFireAndCancel(s.executor(), huge);
        }
    }

    /**
     * A huge delay scheduled while an overdue task waits does not overflow the ordering: the overdue task still runs
     * (the case of the JDK's DelayOverflow test, with all workers busy).
     */
    @ForEachExecutor
    void hugeDelayBehindOverdueTaskDoesNotOverflow(SchedulerFactory f) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (ManagedScheduler s = f.create(1)) {
            s.releaseOnClose(release);
            ScheduledExecutorService e = s.executor();
            CountDownLatch blocking = new CountDownLatch(1);
            e.execute(task(() -> {
                blocking.countDown();
                await(release);
            }));
            await(blocking);
            CountDownLatch overdueRan = new CountDownLatch(1);
            e.schedule(countDowner(overdueRan), 1, NANOSECONDS);
            spin(2); // the task becomes overdue while the only worker is busy
            ScheduledFuture<?> huge = e.schedule(NOOP, Long.MAX_VALUE, NANOSECONDS);
            ScheduledFuture<?> hugeRate = e.scheduleAtFixedRate(NOOP, Long.MAX_VALUE, Long.MAX_VALUE, NANOSECONDS);
            release.countDown();
            await(overdueRan);
            assertFalse(huge.isDone());
            assertTrue(huge.cancel(false));
            assertTrue(hugeRate.cancel(false));
        }
    }

    /** Futures with huge delays compare after nearer ones, both ways, without overflow, in every unit. */
    @ForEachExecutor
    void compareToIsConsistentWithHugeDelays(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledFuture<?> near = s.executor().schedule(NOOP, 1, TimeUnit.HOURS);
            for (TimeUnit unit : TimeUnit.values()) {
                ScheduledFuture<?> huge = s.executor().schedule(NOOP, Long.MAX_VALUE, unit);
                assertTrue(huge.compareTo(near) > 0, unit.toString());
                assertTrue(near.compareTo(huge) < 0, unit.toString());
                assertTrue(huge.cancel(false));
            }
            assertTrue(near.cancel(false));
        }
    }
}
