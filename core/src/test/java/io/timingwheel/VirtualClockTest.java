package io.timingwheel;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The executor on a {@link VirtualClock}: time is the clock's, {@code advance} steps through the deadlines in order,
 * runs what is due on the executor's own threads and returns once those runs have ended. Each semantic on one worker,
 * on several, and on an external executor.
 */
class VirtualClockTest {
    private final VirtualClock clock = new VirtualClock();
    private final List<TimingWheelExecutor> executors = new ArrayList<>();
    private final ExecutorService external = Executors.newCachedThreadPool();

    /** The executors a semantic is checked on. */
    enum Setup {
        ONE_WORKER(b -> b.workerThreads(1)),
        THREE_WORKERS(b -> b.workerThreads(3)),
        EXTERNAL_EXECUTOR(null);

        private final Function<TimingWheelExecutor.Builder, TimingWheelExecutor.Builder> configure;

        Setup(Function<TimingWheelExecutor.Builder, TimingWheelExecutor.Builder> configure) {
            this.configure = configure;
        }
    }

    private TimingWheelExecutor executor(Setup setup) {
        return executor(setup, TimingWheelExecutor.builder());
    }

    private TimingWheelExecutor executor(Setup setup, TimingWheelExecutor.Builder builder) {
        builder.clock(clock);
        TimingWheelExecutor e = (setup.configure != null ? setup.configure.apply(builder)
                : builder.workerExecutor(external)).build();
        executors.add(e);
        return e;
    }

    @AfterEach
    void shutDownEverything() throws InterruptedException {
        for (TimingWheelExecutor e : executors) {
            e.shutdownNow();
            assertTrue(e.awaitTermination(10, SECONDS), "an executor did not terminate");
        }
        external.shutdownNow();
    }

    /** The README's example, as written there. */
    @ParameterizedTest
    @EnumSource(Setup.class)
    void theReadmeExample(Setup setup) {
        TimingWheelExecutor timers = executor(setup);
        AtomicInteger ran = new AtomicInteger();
        Runnable onTimeout = ran::incrementAndGet;
        ScheduledFuture<?> timeout = timers.schedule(onTimeout, 30, TimeUnit.SECONDS);
        clock.advance(29, TimeUnit.SECONDS);
        assertEquals(SECONDS.toNanos(29), clock.nanoTime());
        assertFalse(timeout.isDone());
        assertEquals(0, ran.get());
        clock.advance(Duration.ofSeconds(1));
        assertTrue(timeout.isDone());
        assertEquals(1, ran.get());
        assertEquals(SECONDS.toNanos(30), clock.nanoTime());
    }

    @ParameterizedTest
    @EnumSource(Setup.class)
    void getDelayCountsDownInTheClocksTime(Setup setup) {
        TimingWheelExecutor timers = executor(setup);
        ScheduledFuture<?> future = timers.schedule(() -> { }, 5, SECONDS);
        assertEquals(SECONDS.toNanos(5), future.getDelay(NANOSECONDS));
        clock.advance(2, SECONDS);
        assertEquals(SECONDS.toNanos(3), future.getDelay(NANOSECONDS));
        clock.advance(3, SECONDS);
        assertTrue(future.isDone());
        assertEquals(0, future.getDelay(NANOSECONDS));
    }

    /** Distinct deadlines, scheduled shuffled: each runs at its own deadline, in deadline order, on any number of workers. */
    @ParameterizedTest
    @EnumSource(Setup.class)
    void runsInDeadlineOrderEachSeeingItsOwnDeadline(Setup setup) {
        TimingWheelExecutor timers = executor(setup);
        List<Long> delays = new ArrayList<>();
        for (long ms = 1; ms <= 200; ms++) {
            delays.add(ms * 7); // up to 1.4 s: several levels of the wheel
        }
        Collections.shuffle(delays, new Random(42));
        List<long[]> runs = new CopyOnWriteArrayList<>(); // {delay, time seen}
        for (long delay : delays) {
            timers.schedule(() -> runs.add(new long[] {delay, clock.nanoTime()}), delay, MILLISECONDS);
        }
        clock.advance(2, SECONDS);
        assertEquals(delays.size(), runs.size());
        long previous = 0;
        for (long[] run : runs) {
            assertEquals(MILLISECONDS.toNanos(run[0]), run[1], "a run saw another time than its deadline");
            assertTrue(run[0] > previous, "ran out of deadline order: " + run[0] + " ms after " + previous + " ms");
            previous = run[0];
        }
        assertEquals(SECONDS.toNanos(2), clock.nanoTime());
    }

    /** The statistics count in the clock's time: runs that start at their deadline are not late, however long they take. */
    @ParameterizedTest
    @EnumSource(Setup.class)
    void statisticsAreInTheClocksTime(Setup setup) {
        TimingWheelExecutor timers = executor(setup);
        for (int i = 1; i <= 10; i++) {
            timers.schedule(() -> spin(MILLISECONDS.toNanos(2)), i, SECONDS); // real time passes in each run
        }
        clock.advance(10, SECONDS);
        ExecutorStatistics stats = timers.statistics();
        assertEquals(10, stats.completedRuns());
        assertEquals(0, stats.pendingTasks());
        assertEquals(10, stats.latenessSamples());
        assertEquals(10, stats.latenessCount(0), "a run later than the first bucket (" + stats.latenessBucketUpperBoundNanos(0)
                + " ns) in the clock's time: " + stats);
    }

    @Test
    void equalDeadlinesRunInSubmissionOrderOnOneWorker() {
        TimingWheelExecutor timers = executor(Setup.ONE_WORKER);
        List<Integer> order = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 100; i++) {
            int n = i;
            timers.schedule(() -> order.add(n), 10, MILLISECONDS);
        }
        clock.advance(10, MILLISECONDS);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            expected.add(i);
        }
        assertEquals(expected, order);
    }

    /** A chain of runs, each scheduling the next a second later: those within the amount run within the advance. */
    @ParameterizedTest
    @EnumSource(Setup.class)
    void whatARunSchedulesWithinTheAmountRunsWithinTheSameAdvance(Setup setup) {
        TimingWheelExecutor timers = executor(setup);
        List<Long> seen = new CopyOnWriteArrayList<>();
        Runnable[] link = new Runnable[1];
        link[0] = () -> {
            seen.add(clock.nanoTime());
            timers.schedule(link[0], 1, SECONDS);
        };
        timers.schedule(link[0], 1, SECONDS);
        clock.advance(5, SECONDS);
        assertEquals(List.of(SECONDS.toNanos(1), SECONDS.toNanos(2), SECONDS.toNanos(3), SECONDS.toNanos(4),
                SECONDS.toNanos(5)), seen);
        assertEquals(1, timers.getQueue().size(), "the sixth link waits for 6 s");
    }

    /** A task due at once that a run submits, and one the test submits: advance(0) waits for both to end. */
    @ParameterizedTest
    @EnumSource(Setup.class)
    void advanceZeroWaitsForWhatIsDueNow(Setup setup) {
        TimingWheelExecutor timers = executor(setup);
        AtomicInteger ended = new AtomicInteger();
        timers.execute(() -> {
            spin(MILLISECONDS.toNanos(20)); // a run that takes real time
            timers.execute(() -> {
                spin(MILLISECONDS.toNanos(20));
                ended.incrementAndGet();
            });
            ended.incrementAndGet();
        });
        clock.advance(0, SECONDS);
        assertEquals(2, ended.get());
        assertEquals(0, clock.nanoTime());
    }

    /**
     * After an advance, what the test submits due at once runs without another advance, as in real time. The thread
     * that ends an advance its workers stepped does the master's turn and sleep itself ({@code
     * MasterLoop.turnAfterSteps}), the master thread left parked: the sleep must still be one the next publisher that
     * needs the master wakes it from, and the gate must open as after the master's own turn. Repeated, since each
     * round's advance ends anew. TW only: the JDK's executor has no virtual clock.
     */
    @ParameterizedTest
    @EnumSource(Setup.class)
    void aTaskDueAtOnceRunsWithoutAnAdvanceAfterOne(Setup setup) throws InterruptedException {
        TimingWheelExecutor timers = executor(setup);
        timers.schedule(() -> { }, 1, HOURS); // pending: the master's sleep announces its deadline
        for (int round = 0; round < 50; round++) {
            timers.schedule(() -> { }, 1, MILLISECONDS);
            clock.advance(1, MILLISECONDS);
            CountDownLatch ran = new CountDownLatch(2);
            timers.execute(ran::countDown);
            timers.schedule(ran::countDown, 0, MILLISECONDS);
            assertTrue(ran.await(10, SECONDS), "round " + round + ": " + timers);
        }
    }

    @ParameterizedTest
    @EnumSource(Setup.class)
    void timeMovesAlsoWhenNothingIsPending(Setup setup) {
        executor(setup);
        clock.advance(3, HOURS);
        clock.advance(Duration.ofMillis(5));
        assertEquals(HOURS.toNanos(3) + MILLISECONDS.toNanos(5), clock.nanoTime());
    }

    @Test
    void badAmountsAreRefusedAtOnce() {
        assertThrows(IllegalArgumentException.class, () -> clock.advance(-1, SECONDS));
        assertThrows(IllegalArgumentException.class, () -> clock.advance(Duration.ofNanos(-1)));
        assertThrows(NullPointerException.class, () -> clock.advance(1, null));
        assertThrows(NullPointerException.class, () -> clock.advance(null));
        assertThrows(IllegalArgumentException.class, () -> clock.setRealTimeLimit(Duration.ZERO));
        assertThrows(NullPointerException.class, () -> TimingWheelExecutor.builder().clock(null));
        assertEquals(0, clock.nanoTime());
        clock.advance(Long.MAX_VALUE, TimeUnit.DAYS); // beyond the end of time: stops there
        assertEquals(Long.MAX_VALUE, clock.nanoTime());
    }

    /** An interrupt does not cut an advance short (its wait is bounded anyway); the status is kept for the caller. */
    @ParameterizedTest
    @EnumSource(Setup.class)
    void anInterruptedAdvanceStillRunsWhatIsDueAndKeepsTheStatus(Setup setup) {
        TimingWheelExecutor timers = executor(setup);
        AtomicInteger ran = new AtomicInteger();
        timers.schedule(() -> {
            spin(MILLISECONDS.toNanos(5));
            ran.incrementAndGet();
        }, 1, SECONDS);
        Thread.currentThread().interrupt();
        try {
            clock.advance(1, SECONDS);
            assertEquals(1, ran.get());
            assertTrue(Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void theSupplierReadsTheSameTime() {
        clock.advance(7, MILLISECONDS);
        assertEquals(MILLISECONDS.toNanos(7), clock.nanoTimeSupplier().getAsLong());
        assertEquals(Duration.ofSeconds(10), clock.realTimeLimit());
    }

    static Stream<Object[]> setupsAndPolicies() {
        List<Object[]> all = new ArrayList<>();
        for (Setup setup : Setup.values()) {
            for (FixedRatePolicy policy : FixedRatePolicy.values()) {
                all.add(new Object[] {setup, policy});
            }
        }
        return all.stream();
    }

    @ParameterizedTest
    @MethodSource("setupsAndPolicies")
    void fixedRateRunsElevenTimesInTenPeriods(Setup setup, FixedRatePolicy policy) {
        TimingWheelExecutor timers = executor(setup, TimingWheelExecutor.builder().fixedRatePolicy(policy));
        long period = MILLISECONDS.toNanos(250);
        List<Long> seen = new CopyOnWriteArrayList<>();
        ScheduledFuture<?> f = timers.scheduleAtFixedRate(() -> seen.add(clock.nanoTime()), 0, period, NANOSECONDS);
        clock.advance(10 * period, NANOSECONDS);
        List<Long> expected = new ArrayList<>();
        for (int n = 0; n <= 10; n++) {
            expected.add(n * period);
        }
        assertEquals(expected, seen);
        assertFalse(f.isDone());
        assertEquals(period, f.getDelay(NANOSECONDS));
    }

    @ParameterizedTest
    @EnumSource(Setup.class)
    void fixedDelayRunsElevenTimesInTenDelays(Setup setup) {
        TimingWheelExecutor timers = executor(setup);
        long delay = SECONDS.toNanos(3);
        List<Long> seen = new CopyOnWriteArrayList<>();
        timers.scheduleWithFixedDelay(() -> {
            seen.add(clock.nanoTime());
            spin(MILLISECONDS.toNanos(1)); // real time passes in a run; the clock's does not
        }, 0, delay, NANOSECONDS);
        clock.advance(10 * delay, NANOSECONDS);
        List<Long> expected = new ArrayList<>();
        for (int n = 0; n <= 10; n++) {
            expected.add(n * delay);
        }
        assertEquals(expected, seen);
    }

    @ParameterizedTest
    @EnumSource(Setup.class)
    void aPeriodicTaskThatThrowsStops(Setup setup) {
        TimingWheelExecutor timers = executor(setup);
        AtomicInteger runs = new AtomicInteger();
        ScheduledFuture<?> f = timers.scheduleAtFixedRate(() -> {
            if (runs.incrementAndGet() == 3) {
                throw new IllegalStateException("third run");
            }
        }, 1, 1, SECONDS);
        clock.advance(10, SECONDS);
        assertEquals(3, runs.get());
        assertTrue(f.isDone());
        ExecutionException e = assertThrows(ExecutionException.class, f::get);
        assertInstanceOf(IllegalStateException.class, e.getCause());
    }

    /**
     * A run that lets time pass by advancing the clock itself: a fixed-rate task's first run takes twelve periods, so
     * the runs due meanwhile start back to back when it ends (the JDK's catch-up), each seeing that time.
     */
    @ParameterizedTest
    @EnumSource(Setup.class)
    void aSlowRunAdvancesTheClockItselfAndTheFixedRateRunsCatchUp(Setup setup) {
        TimingWheelExecutor timers = executor(setup);
        long period = MILLISECONDS.toNanos(40);
        List<Long> seen = new CopyOnWriteArrayList<>();
        timers.scheduleAtFixedRate(() -> {
            seen.add(clock.nanoTime());
            if (seen.size() == 1) {
                clock.advance(12 * period, NANOSECONDS); // a slow run, in the clock's time
            }
        }, 0, period, NANOSECONDS);
        clock.advance(0, NANOSECONDS); // waits for the first run, which moves time on
        assertEquals(12 * period, clock.nanoTime());
        List<Long> expected = new ArrayList<>();
        expected.add(0L);
        for (int n = 1; n <= 12; n++) {
            expected.add(12 * period); // runs 1..12 were due by the end of run 0: they follow at once
        }
        assertEquals(expected, seen);
    }

    /**
     * While one run lets time pass, a task that falls due meanwhile runs at its deadline on another thread; on a
     * single worker it waits for that run to end, as behind a slow run in real time. Repeated, fresh executors: a
     * worker still starting when the task fell due was once taken for none free (15 rounds in 2,000 ran it late).
     */
    @ParameterizedTest
    @EnumSource(Setup.class)
    void whileARunLetsTimePassOtherTasksRunOnOtherThreads(Setup setup) throws InterruptedException {
        for (int round = 0; round < 200; round++) {
            TimingWheelExecutor timers = executor(setup);
            List<String> order = new CopyOnWriteArrayList<>();
            long start = clock.nanoTime();
            timers.schedule(() -> order.add("timer@" + (clock.nanoTime() - start)), 500, MILLISECONDS);
            timers.execute(() -> {
                order.add("slow begins@" + (clock.nanoTime() - start));
                clock.advance(1, SECONDS);
                order.add("slow ends@" + (clock.nanoTime() - start));
            });
            clock.advance(0, SECONDS);
            if (setup == Setup.ONE_WORKER) {
                assertEquals(List.of("slow begins@0", "slow ends@1000000000", "timer@1000000000"), order, "round " + round);
            } else {
                assertEquals(List.of("slow begins@0", "timer@500000000", "slow ends@1000000000"), order, "round " + round);
            }
            timers.shutdownNow();
            assertTrue(timers.awaitTermination(10, SECONDS));
        }
    }

    /** Two executors on one clock: their tasks interleave in deadline order, also across executors. */
    @ParameterizedTest
    @EnumSource(Setup.class)
    void oneClockStepsSeveralExecutorsTogether(Setup setup) {
        TimingWheelExecutor a = executor(setup);
        TimingWheelExecutor b = executor(setup);
        List<String> order = new CopyOnWriteArrayList<>();
        a.schedule(() -> order.add("a1@" + clock.nanoTime()), 1, SECONDS);
        b.schedule(() -> order.add("b2@" + clock.nanoTime()), 2, SECONDS);
        a.schedule(() -> {
            order.add("a3@" + clock.nanoTime());
            b.schedule(() -> order.add("b3.5@" + clock.nanoTime()), 500, MILLISECONDS);
        }, 3, SECONDS);
        b.schedule(() -> order.add("b4@" + clock.nanoTime()), 4, SECONDS);
        clock.advance(4, SECONDS);
        assertEquals(List.of("a1@1000000000", "b2@2000000000", "a3@3000000000", "b3.5@3500000000",
                "b4@4000000000"), order);
    }

    /** A run that blocks for real: advance gives up after the real-time limit and names it; time stands at it. */
    @ParameterizedTest
    @EnumSource(Setup.class)
    void aRunThatBlocksMakesAdvanceGiveUpNamingIt(Setup setup) throws Exception {
        TimingWheelExecutor timers = executor(setup);
        clock.setRealTimeLimit(Duration.ofMillis(200));
        CountDownLatch release = new CountDownLatch(1);
        Runnable blocker = new Runnable() {
            @Override
            public void run() {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public String toString() {
                return "the-blocking-task";
            }
        };
        ScheduledFuture<?> f = timers.schedule(blocker, 1, SECONDS);
        long before = System.nanoTime();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> clock.advance(5, SECONDS));
        assertTrue(System.nanoTime() - before >= MILLISECONDS.toNanos(200), "gave up before the limit");
        assertTrue(e.getMessage().contains("the-blocking-task"), e.getMessage());
        assertEquals(SECONDS.toNanos(1), clock.nanoTime());
        release.countDown();
        clock.advance(0, SECONDS); // the run ends now
        assertTrue(f.isDone());
    }

    /** Shutdown: delayed one-shot tasks still run when their time comes (the default policy), periodic ones stop. */
    @ParameterizedTest
    @EnumSource(Setup.class)
    void shutdownKeepsItsPoliciesInVirtualTime(Setup setup) throws Exception {
        TimingWheelExecutor timers = executor(setup);
        AtomicInteger oneShot = new AtomicInteger();
        ScheduledFuture<?> delayed = timers.schedule(oneShot::incrementAndGet, 1, HOURS);
        ScheduledFuture<?> periodic = timers.scheduleAtFixedRate(() -> { }, 1, 1, SECONDS);
        timers.shutdown();
        assertTrue(periodic.isCancelled());
        assertFalse(timers.awaitTermination(50, MILLISECONDS), "terminated with a delayed task pending");
        assertFalse(delayed.isDone());
        clock.advance(1, HOURS);
        assertEquals(1, oneShot.get());
        assertTrue(timers.awaitTermination(10, SECONDS));
    }

    /**
     * Shut down with the periodic tasks kept, then the last of them cancelled: the executor terminates at once, as in
     * real time, without waiting for the clock's next advance (the cancel wakes the master, which sleeps until woken).
     * Repeated: before the fix it hung in about one round in four.
     */
    @ParameterizedTest
    @EnumSource(Setup.class)
    void theLastCancelAfterShutdownTerminatesWithoutAnAdvance(Setup setup) throws Exception {
        for (int round = 0; round < 20; round++) {
            TimingWheelExecutor timers = executor(setup);
            timers.setContinueExistingPeriodicTasksAfterShutdownPolicy(true);
            CountDownLatch ranTwice = new CountDownLatch(2);
            ScheduledFuture<?> rate = timers.scheduleAtFixedRate(ranTwice::countDown, 0, 2, MILLISECONDS);
            ScheduledFuture<?> delay = timers.scheduleWithFixedDelay(() -> { }, 0, 2, MILLISECONDS);
            timers.shutdown();
            clock.advance(2, MILLISECONDS);
            assertTrue(ranTwice.await(10, SECONDS));
            rate.cancel(false);
            delay.cancel(false);
            assertTrue(timers.awaitTermination(10, SECONDS), "round " + round + ": " + timers);
        }
    }

    @ParameterizedTest
    @EnumSource(Setup.class)
    void shutdownNowReturnsWhatWasNotDueYet(Setup setup) {
        TimingWheelExecutor timers = executor(setup);
        ScheduledFuture<?> later = timers.schedule(() -> { }, 2, SECONDS);
        AtomicInteger ran = new AtomicInteger();
        timers.schedule(ran::incrementAndGet, 1, SECONDS);
        clock.advance(1, SECONDS);
        assertEquals(List.of(later), timers.shutdownNow());
        assertEquals(1, ran.get());
        clock.advance(1, SECONDS);
        assertFalse(later.isDone());
    }

    /** close() waits for the delayed tasks, as in real time: it returns once the clock has brought them due. */
    @ParameterizedTest
    @EnumSource(Setup.class)
    void closeWaitsUntilTheClockBringsTheDelayedTasksDue(Setup setup) throws Exception {
        TimingWheelExecutor timers = executor(setup);
        AtomicInteger ran = new AtomicInteger();
        timers.schedule(ran::incrementAndGet, 1, SECONDS);
        CompletableFuture<Void> closed = CompletableFuture.runAsync(timers::close);
        assertThrows(TimeoutException.class, () -> closed.get(100, MILLISECONDS));
        clock.advance(1, SECONDS);
        closed.get(10, SECONDS);
        assertEquals(1, ran.get());
        assertTrue(timers.isTerminated());
    }

    @ParameterizedTest
    @EnumSource(Setup.class)
    void theQueueShowsWhatIsPendingAndPollTakesOnlyWhatIsDue(Setup setup) {
        TimingWheelExecutor timers = executor(setup);
        AtomicInteger firstRan = new AtomicInteger();
        ScheduledFuture<?> first = timers.schedule(firstRan::incrementAndGet, 1, SECONDS);
        ScheduledFuture<?> second = timers.schedule(() -> { }, 2, SECONDS);
        assertEquals(2, timers.getQueue().size());
        assertNull(timers.getQueue().poll(), "poll took a task not due yet");
        assertTrue(timers.getQueue().remove(first));
        clock.advance(2, SECONDS);
        assertTrue(second.isDone());
        assertEquals(0, firstRan.get(), "a task removed from the queue ran");
        assertEquals(0, timers.getQueue().size());
    }

    /** A timed get is the caller's wait: it times out in real time while the clock stands. */
    @ParameterizedTest
    @EnumSource(Setup.class)
    void aTimedGetWaitsInRealTime(Setup setup) {
        TimingWheelExecutor timers = executor(setup);
        ScheduledFuture<?> f = timers.schedule(() -> { }, 1, HOURS);
        long before = System.nanoTime();
        assertThrows(TimeoutException.class, () -> f.get(50, MILLISECONDS));
        assertTrue(System.nanoTime() - before >= MILLISECONDS.toNanos(50));
        assertEquals(0, clock.nanoTime());
    }

    @Test
    void theClockDropsExecutorsThatHaveTerminated() throws Exception {
        TimingWheelExecutor timers = executor(Setup.ONE_WORKER);
        timers.schedule(() -> { }, 1, SECONDS);
        timers.shutdownNow();
        assertTrue(timers.awaitTermination(10, SECONDS));
        clock.advance(1, SECONDS);
        assertTrue(clock.toString().contains("driving 0 executor"), clock.toString());
    }

    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }
}
