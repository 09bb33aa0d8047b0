package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MICROSECONDS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * shutdown() and its two policies, shutdownNow() (interrupts running tasks, returns exactly the never-started ones),
 * isShutdown/isTerminated/isTerminating, awaitTermination. The tests of the policies run also on a virtual clock
 * ({@link ForEachTimeline}), where the tasks' time passes without a real delay; awaitTermination waits in real time.
 */
class ShutdownTest extends TckTestCase {

    private static Set<Object> identitySet(List<?> list) {
        Set<Object> set = Collections.newSetFromMap(new IdentityHashMap<>());
        set.addAll(list);
        return set;
    }

    /** isShutdown is false before shutdown() and true after it. */
    @ForEachExecutor
    void isShutdownAfterShutdown(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            assertFalse(s.executor().isShutdown());
            s.executor().shutdown();
            assertTrue(s.executor().isShutdown());
        }
    }

    /** isTerminated becomes true only once the running task has finished; then no thread is left in the pool. */
    @ForEachExecutor
    void isTerminatedOnceRunningTaskFinishes(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            s.releaseOnClose(release);
            e.execute(task(() -> {
                started.countDown();
                await(release);
            }));
            await(started);
            assertFalse(e.isTerminated());
            e.shutdown();
            assertTrue(e.isShutdown());
            assertFalse(e.isTerminated());
            release.countDown();
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertTrue(e.isTerminated());
            assertEquals(0, s.getActiveCount());
            assertEquals(0, s.getPoolSize()); // as ThreadPoolExecutor: never isTerminated() && getPoolSize() > 0
        }
    }

    /** isTerminating is true between shutdown and termination only. */
    @ForEachExecutor
    void isTerminatingBetweenShutdownAndTermination(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            s.releaseOnClose(release);
            assertFalse(s.isTerminating());
            e.execute(task(() -> {
                started.countDown();
                await(release);
            }));
            await(started);
            assertFalse(s.isTerminating());
            e.shutdown();
            assertTrue(s.isTerminating());
            release.countDown();
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertFalse(s.isTerminating());
        }
    }

    /**
     * By default delayed one-shot tasks still run after shutdown(), when their time comes, and periodic tasks are
     * cancelled. On the virtual kinds, exactly: the executor waits for the delayed task's time, not a nanosecond less.
     */
    @ForEachTimeline
    void defaultShutdownPolicies(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            Timeline time = s.timeline();
            assertTrue(s.getExecuteExistingDelayedTasksAfterShutdownPolicy());
            assertFalse(s.getContinueExistingPeriodicTasksAfterShutdownPolicy());
            ScheduledExecutorService e = s.executor();
            long t0 = time.nanoTime();
            CountDownLatch ran = new CountDownLatch(1);
            ScheduledFuture<?> delayed = e.schedule(task(() -> {
                assertNotEarly(time, t0, SHORT_DELAY_MS, MILLISECONDS);
                ran.countDown();
            }), SHORT_DELAY_MS, MILLISECONDS);
            ScheduledFuture<?> periodic = e.scheduleAtFixedRate(NOOP, 1, 1, HOURS);
            e.shutdown();
            assertTrue(periodic.isCancelled());
            assertThrows(CancellationException.class, () -> periodic.get());
            passCheckingNothingRanEarly(time, SHORT_DELAY_MS, MILLISECONDS, ran); // the kept task's time comes
            if (time.isVirtual()) { // the virtual kinds' exactness: the run has ended when the time has passed
                assertEquals(0, ran.getCount());
            }
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertEquals(0, ran.getCount());
            assertTrue(delayed.isDone());
            assertFalse(delayed.isCancelled());
        }
    }

    /**
     * shutdown() of an executor that has never run anything terminates it before returning: isTerminated() and
     * awaitTermination(0) say so at once, every time (the JDK's does so when it has no thread).
     */
    @ForEachExecutor
    void shutdownOfAFreshExecutorTerminatesAtOnce(SchedulerFactory f) throws Exception {
        for (int i = 0; i < 200; i++) {
            try (ManagedScheduler s = f.create()) {
                ScheduledExecutorService e = s.executor();
                e.shutdown();
                assertTrue(e.isTerminated(), "iteration " + i + ": not terminated right after shutdown(): " + e);
                assertTrue(e.awaitTermination(0, MILLISECONDS), "iteration " + i);
                assertFalse(s.isTerminating(), "iteration " + i);
            }
            try (ManagedScheduler s = f.create()) {
                assertTrue(s.executor().shutdownNow().isEmpty());
                assertTrue(s.executor().isTerminated(), "iteration " + i + ": not terminated after shutdownNow()");
            }
        }
    }

    /**
     * shutdown() cancels at once, with the default policies, a periodic task that is due but waits for the one busy
     * worker (it no longer shows in getQueue()), and keeps a one-shot task that waits in the same way, as the JDK
     * does. The external-executor configuration is left out: its cached pool never makes a task wait for a worker
     * (TimingWheelOnlyTest covers tasks waiting in an external executor).
     */
    @ForEachExecutor
    void shutdownCancelsAPeriodicTaskThatWaitsForABusyWorker(SchedulerFactory f) throws Exception {
        assumeTrue(f != TimingWheelFactories.EXTERNAL_EXECUTOR, "a cached pool has no busy worker to wait for");
        try (ManagedScheduler s = f.create(1)) {
            ScheduledExecutorService e = s.executor();
            CountDownLatch blockerStarted = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            s.releaseOnClose(release);
            e.execute(task(() -> {
                blockerStarted.countDown();
                await(release);
            }));
            await(blockerStarted);
            AtomicInteger periodicRuns = new AtomicInteger();
            ScheduledFuture<?> dueNow = e.scheduleAtFixedRate(periodicRuns::incrementAndGet, 0, 1, MILLISECONDS);
            ScheduledFuture<?> dueSoon = e.scheduleWithFixedDelay(periodicRuns::incrementAndGet, 1, 1, MILLISECONDS);
            CountDownLatch oneShotRan = new CountDownLatch(1);
            ScheduledFuture<?> oneShot = e.schedule(countDowner(oneShotRan), 1, MILLISECONDS);
            eventually().until(() -> dueSoon.getDelay(MILLISECONDS) <= 0 && oneShot.getDelay(MILLISECONDS) <= 0);
            e.shutdown();
            assertTrue(dueNow.isCancelled(), "cancelled by shutdown() itself");
            assertTrue(dueSoon.isCancelled(), "cancelled by shutdown() itself");
            assertFalse(s.getQueue().contains(dueNow));
            assertFalse(s.getQueue().contains(dueSoon));
            assertFalse(oneShot.isDone(), "a one-shot task due already is kept");
            release.countDown();
            await(oneShotRan);
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertEquals(0, periodicRuns.get());
        }
    }

    /**
     * The policy matrix: for each combination of the delayed and periodic policies, shutdown() cancels exactly the
     * tasks the policies say, the others keep running when their time comes, and the executor terminates once they are
     * done or cancelled. On the virtual kinds the kept periodic tasks run exactly twice in two periods.
     */
    @ForEachTimeline
    void shutdownPolicyMatrix(SchedulerFactory f) throws Exception {
        for (boolean keepDelayed : new boolean[] {true, false}) {
            for (boolean keepPeriodic : new boolean[] {true, false}) {
                String policies = "keepDelayed=" + keepDelayed + ", keepPeriodic=" + keepPeriodic;
                try (ManagedScheduler s = f.create()) {
                    Timeline time = s.timeline();
                    s.setExecuteExistingDelayedTasksAfterShutdownPolicy(keepDelayed);
                    s.setContinueExistingPeriodicTasksAfterShutdownPolicy(keepPeriodic);
                    assertEquals(keepDelayed, s.getExecuteExistingDelayedTasksAfterShutdownPolicy());
                    assertEquals(keepPeriodic, s.getContinueExistingPeriodicTasksAfterShutdownPolicy());
                    ScheduledExecutorService e = s.executor();
                    CountDownLatch delayedRan = new CountDownLatch(1);
                    // A kept task is short so the test ends soon; a dropped one is long so it cannot run first.
                    ScheduledFuture<?> delayed = e.schedule(countDowner(delayedRan),
                            keepDelayed ? SHORT_DELAY_MS : HOUR_MS, MILLISECONDS);
                    AtomicInteger rateRuns = new AtomicInteger();
                    AtomicInteger delayRuns = new AtomicInteger();
                    long period = 2;
                    ScheduledFuture<?> rate =
                            e.scheduleAtFixedRate(rateRuns::incrementAndGet, 0, period, MILLISECONDS);
                    ScheduledFuture<?> delay =
                            e.scheduleWithFixedDelay(delayRuns::incrementAndGet, 0, period, MILLISECONDS);
                    eventually().until(() -> rateRuns.get() > 0 && delayRuns.get() > 0); // due at once

                    e.shutdown();
                    assertTrue(e.isShutdown(), policies);
                    if (!keepDelayed) {
                        assertTrue(delayed.isCancelled(), policies);
                    }
                    if (keepPeriodic) {
                        int r = rateRuns.get();
                        int d = delayRuns.get();
                        time.pass(2 * period, MILLISECONDS); // two more runs' time
                        eventually().until(() -> rateRuns.get() >= r + 2 && delayRuns.get() >= d + 2);
                        if (time.isVirtual()) { // the virtual kinds' exactness
                            assertEquals(r + 2, rateRuns.get(), policies);
                            assertEquals(d + 2, delayRuns.get(), policies);
                        }
                        assertFalse(e.isTerminated(), policies);
                        assertFalse(rate.isDone(), policies);
                        assertTrue(rate.cancel(false));
                        assertTrue(delay.cancel(false));
                    } else {
                        // A periodic task that is running when shutdown() is called is cancelled when that run ends
                        // (STPE too: it is not in the queue then); one that waits is cancelled by shutdown() itself.
                        eventually().until(() -> rate.isCancelled() && delay.isCancelled());
                    }
                    if (keepDelayed) {
                        time.pass(SHORT_DELAY_MS, MILLISECONDS); // the kept delayed task's time comes
                    }
                    assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS), policies);
                    assertEquals(keepDelayed ? 0 : 1, delayedRan.getCount(), policies);
                    assertTrue(delayed.isDone(), policies);
                }
            }
        }
    }

    /**
     * shutdownNow() returns the pending delayed and periodic tasks: the very futures schedule returned, untouched; not
     * a task that has run already.
     */
    @ForEachTimeline
    void shutdownNowReturnsPendingDelayedTasks(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            Timeline time = s.timeline();
            ScheduledExecutorService e = s.executor();
            ScheduledFuture<?> due = e.schedule(NOOP, SHORT_DELAY_MS, MILLISECONDS);
            List<ScheduledFuture<?>> futures = List.of(
                    e.schedule(NOOP, 1, HOURS),
                    e.schedule(() -> "x", 1, HOURS),
                    e.scheduleAtFixedRate(NOOP, 1, 1, HOURS),
                    e.scheduleWithFixedDelay(NOOP, 1, 1, HOURS));
            time.pass(SHORT_DELAY_MS, MILLISECONDS); // the first task's time
            get(due);
            List<Runnable> returned = e.shutdownNow();
            assertTrue(e.isShutdown());
            assertEquals(futures.size(), returned.size(), "returned " + returned + " of " + futures);
            assertEquals(identitySet(futures), identitySet(returned));
            for (ScheduledFuture<?> future : futures) {
                // As in the TCK: the returned tasks are handed back, neither run nor cancelled.
                assertFalse(future.isDone());
                assertFalse(future.isCancelled());
            }
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertTrue(e.isTerminated());
        }
    }

    /** shutdownNow() interrupts the running tasks, which are not in the returned list. */
    @ForEachExecutor
    void shutdownNowInterruptsRunningTasks(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create(2)) {
            ScheduledExecutorService e = s.executor();
            CountDownLatch started = new CountDownLatch(2);
            CountDownLatch interrupted = new CountDownLatch(2);
            CountDownLatch never = new CountDownLatch(1);
            s.releaseOnClose(never);
            for (int i = 0; i < 2; i++) {
                e.execute(() -> {
                    started.countDown();
                    try {
                        never.await(LONG_DELAY_MS, MILLISECONDS);
                    } catch (InterruptedException expected) {
                        interrupted.countDown();
                    }
                });
            }
            await(started);
            List<Runnable> returned = e.shutdownNow();
            assertTrue(returned.isEmpty(), "returned " + returned);
            await(interrupted);
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
        }
    }

    /** Immediate tasks queued behind a busy worker either ran or are returned by shutdownNow(), never both. */
    @ForEachExecutor
    void shutdownNowReturnsExactlyTheImmediateTasksThatNeverStarted(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create(1)) {
            ScheduledExecutorService e = s.executor();
            CountDownLatch started = new CountDownLatch(1);
            e.execute(() -> {
                started.countDown();
                try {
                    new CountDownLatch(1).await(LONG_DELAY_MS, MILLISECONDS);
                } catch (InterruptedException expected) {
                    // shutdownNow() ends the blocker
                }
            });
            await(started);
            List<Future<?>> futures = new ArrayList<>();
            AtomicInteger[] runs = new AtomicInteger[5];
            for (int i = 0; i < runs.length; i++) {
                AtomicInteger count = runs[i] = new AtomicInteger();
                futures.add(e.submit(count::incrementAndGet));
            }
            Set<Object> returned = identitySet(e.shutdownNow());
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertTrue(identitySet(futures).containsAll(returned), "returned something not submitted");
            for (int i = 0; i < runs.length; i++) {
                Future<?> future = futures.get(i);
                assertEquals(returned.contains(future) ? 0 : 1, runs[i].get(), "task " + i + ": returned="
                        + returned.contains(future) + ", done=" + future.isDone() + ", cancelled="
                        + future.isCancelled());
            }
        }
    }

    /**
     * With producers scheduling and cancelling while shutdownNow() happens, every accepted task ends exactly once:
     * it ran once, or it was cancelled, or shutdownNow() returned it; a rejected task never runs.
     */
    @ForEachExecutor
    void everyTaskEndsExactlyOnceUnderConcurrentShutdownNow(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            record Entry(AtomicInteger runs, ScheduledFuture<?> future, boolean cancelled) {
            }
            ConcurrentLinkedQueue<Entry> accepted = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<AtomicInteger> rejected = new ConcurrentLinkedQueue<>();
            AtomicInteger submitted = new AtomicInteger();
            AtomicInteger totalRuns = new AtomicInteger();
            int perProducer = 1_500;
            List<Thread> producers = new ArrayList<>();
            for (int p = 0; p < 2; p++) {
                producers.add(startThread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < perProducer; i++) {
                        AtomicInteger runs = new AtomicInteger();
                        Runnable body = () -> {
                            runs.incrementAndGet();
                            totalRuns.incrementAndGet();
                        };
                        long delayMicros = random.nextInt(4) == 0 ? 0 : random.nextLong(3_000);
                        try {
                            ScheduledFuture<?> future = e.schedule(body, delayMicros, MICROSECONDS);
                            boolean cancelled = random.nextInt(5) == 0 && future.cancel(false);
                            accepted.add(new Entry(runs, future, cancelled));
                        } catch (RejectedExecutionException expected) {
                            rejected.add(runs);
                        }
                        submitted.incrementAndGet();
                    }
                }));
            }
            // Stop in the middle: some tasks ran, others are pending, producers are still submitting.
            eventually().until(() -> submitted.get() >= perProducer && totalRuns.get() > 0);
            Set<Object> returned = identitySet(e.shutdownNow());
            for (Thread producer : producers) {
                producer.join(LONG_DELAY_MS);
            }
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertEquals(2 * perProducer, accepted.size() + rejected.size());
            for (AtomicInteger runs : rejected) {
                assertEquals(0, runs.get(), "a rejected task ran");
            }
            for (Entry entry : accepted) {
                int runs = entry.runs().get();
                boolean wasReturned = returned.contains(entry.future());
                assertTrue(runs <= 1, "a one-shot task ran " + runs + " times");
                if (runs == 1) {
                    assertFalse(wasReturned, "a task ran and was also returned by shutdownNow()");
                } else {
                    assertTrue(wasReturned || entry.cancelled() || entry.future().isCancelled(),
                            "a task was lost: never ran, not cancelled, not returned: " + entry.future());
                }
            }
        }
    }

    /** awaitTermination on a running executor returns false, not before its timeout. */
    @ForEachExecutor
    void awaitTerminationTimesOutWhileRunning(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            long t0 = System.nanoTime();
            assertFalse(s.executor().awaitTermination(SHORT_DELAY_MS, MILLISECONDS));
            assertNotEarly(t0, SHORT_DELAY_MS, MILLISECONDS);
            assertFalse(s.executor().isTerminated());
        }
    }

    /** An idle executor terminates promptly after shutdown(). */
    @ForEachExecutor
    void idleExecutorTerminatesAfterShutdown(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            s.executor().shutdown();
            assertTrue(s.executor().awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertTrue(s.executor().isTerminated());
            assertEquals(0, s.getPoolSize());
            assertTrue(s.executor().awaitTermination(0, MILLISECONDS));
            assertTrue(s.executor().shutdownNow().isEmpty());
        }
    }

    /** shutdown() twice is harmless; a kept delayed task holds termination off until shutdownNow() returns it. */
    @ForEachExecutor
    void shutdownIsIdempotentAndShutdownNowReturnsKeptDelayedTasks(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            ScheduledFuture<?> pending = e.schedule(NOOP, 1, HOURS);
            e.shutdown();
            e.shutdown();
            assertTrue(e.isShutdown());
            assertFalse(e.awaitTermination(1, MILLISECONDS));
            assertFalse(e.isTerminated());
            List<Runnable> returned = e.shutdownNow();
            assertEquals(1, returned.size());
            assertTrue(returned.get(0) == pending);
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
        }
    }

    /** A task may shut down its own executor, which then terminates once the task returns. */
    @ForEachExecutor
    void taskCanShutDownItsOwnExecutor(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            e.schedule(e::shutdown, 1, MILLISECONDS);
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertTrue(e.isShutdown());
        }
    }

    /** A task may call shutdownNow() on its own executor: it gets the pending tasks and is itself interrupted. */
    @ForEachExecutor
    void taskCanShutDownNowItsOwnExecutor(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            ScheduledFuture<?> pending = e.schedule(NOOP, 1, HOURS);
            CountDownLatch done = new CountDownLatch(1);
            e.execute(task(() -> {
                List<Runnable> returned = e.shutdownNow();
                assertTrue(Thread.interrupted(), "shutdownNow() did not interrupt the running caller");
                assertEquals(List.of(pending), returned);
                done.countDown();
            }));
            await(done);
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
        }
    }
}
