package io.timingwheel.ecosystem;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.timingwheel.TimingWheelExecutor;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Spring's {@code ThreadPoolTaskScheduler} with {@code createExecutor} overridden to return ours, which it then treats
 * as the ScheduledThreadPoolExecutor it is (policies, pool size, counts, shutdown); each test runs the same body on
 * Spring's default executor (a ScheduledThreadPoolExecutor) for comparison.
 */
class ThreadPoolTaskSchedulerTest {

    /** Which executor the scheduler creates. */
    enum Variant {
        /** Spring's own {@code createExecutor}: a ScheduledThreadPoolExecutor subclass. */
        SPRING_DEFAULT,
        /** {@code createExecutor} returns {@code new TimingWheelExecutor(poolSize, threadFactory, handler)}. */
        TIMING_WHEEL;

        /** @return an initialised scheduler with two threads, remove-on-cancel on, threads named "tps-" */
        ThreadPoolTaskScheduler newScheduler() {
            ThreadPoolTaskScheduler scheduler = this == SPRING_DEFAULT ? new ThreadPoolTaskScheduler()
                    : new ThreadPoolTaskScheduler() {
                        @Override
                        protected ScheduledExecutorService createExecutor(int poolSize, ThreadFactory threadFactory,
                                RejectedExecutionHandler handler) {
                            return new TimingWheelExecutor(poolSize, threadFactory, handler);
                        }
                    };
            scheduler.setPoolSize(2);
            scheduler.setThreadNamePrefix("tps-");
            scheduler.setRemoveOnCancelPolicy(true);
            scheduler.initialize();
            return scheduler;
        }
    }

    /** Waits for a latch, failing after ten seconds. */
    private static void awaitLatch(CountDownLatch latch) throws InterruptedException {
        assertTrue(latch.await(10, SECONDS), "timed out waiting for a latch");
    }

    /**
     * After initialize(), getScheduledThreadPoolExecutor() is the executor createExecutor made (ours, or Spring's
     * ScheduledThreadPoolExecutor), configured by Spring through the JDK's type: remove-on-cancel on, tasks on threads
     * of Spring's factory; setPoolSize after initialize() changes its core pool size.
     */
    @ParameterizedTest
    @EnumSource(Variant.class)
    void initializeConfiguresTheExecutorFromCreateExecutor(Variant variant) throws Exception {
        ThreadPoolTaskScheduler scheduler = variant.newScheduler();
        try {
            ScheduledThreadPoolExecutor executor = scheduler.getScheduledThreadPoolExecutor();
            assertSame(executor, scheduler.getScheduledExecutor());
            if (variant == Variant.TIMING_WHEEL) {
                assertInstanceOf(TimingWheelExecutor.class, executor);
            } else {
                assertFalse(executor instanceof TimingWheelExecutor);
            }
            assertTrue(executor.getRemoveOnCancelPolicy());
            assertEquals(2, executor.getCorePoolSize());
            String thread = scheduler.submit(() -> Thread.currentThread().getName()).get(10, SECONDS);
            assertTrue(thread.startsWith("tps-"), thread);
            scheduler.setPoolSize(3);
            assertEquals(3, executor.getCorePoolSize());
        } finally {
            scheduler.shutdown();
        }
    }

    /**
     * Spring's schedule(Runnable, Instant), scheduleAtFixedRate(Runnable, Duration), scheduleWithFixedDelay(Runnable,
     * Duration), execute and submit run their tasks; a cancelled periodic task leaves the executor's queue;
     * getPoolSize and getActiveCount answer from the executor.
     */
    @ParameterizedTest
    @EnumSource(Variant.class)
    void schedulesAndSubmitsThroughSpring(Variant variant) throws Exception {
        ThreadPoolTaskScheduler scheduler = variant.newScheduler();
        try {
            ScheduledThreadPoolExecutor executor = scheduler.getScheduledThreadPoolExecutor();
            CountDownLatch atInstant = new CountDownLatch(1);
            ScheduledFuture<?> once = scheduler.schedule(atInstant::countDown, Instant.now().plusMillis(30));
            awaitLatch(atInstant);
            assertNull(once.get(10, SECONDS));

            CountDownLatch rateRuns = new CountDownLatch(3);
            ScheduledFuture<?> rate = scheduler.scheduleAtFixedRate(rateRuns::countDown, Duration.ofMillis(5));
            CountDownLatch delayRuns = new CountDownLatch(3);
            ScheduledFuture<?> delay = scheduler.scheduleWithFixedDelay(delayRuns::countDown, Duration.ofMillis(5));
            awaitLatch(rateRuns);
            awaitLatch(delayRuns);
            assertTrue(rate.cancel(false));
            assertTrue(delay.cancel(false));
            await().atMost(Duration.ofSeconds(10)).until(() -> executor.getQueue().isEmpty());

            CountDownLatch executed = new CountDownLatch(1);
            scheduler.execute(executed::countDown);
            awaitLatch(executed);
            assertEquals("submitted", scheduler.submit(() -> "submitted").get(10, SECONDS));
            assertNull(scheduler.submit(() -> { }).get(10, SECONDS));
            assertEquals(2, scheduler.getPoolSize());

            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            scheduler.execute(() -> {
                started.countDown();
                try {
                    release.await(10, SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            awaitLatch(started);
            // The thread of the task before may still be booking its end (get() returns when the future completes,
            // a moment before the thread is idle, in the JDK's pool too): the count is approximate, as documented.
            await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.getActiveCount() == 1);
            release.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.getActiveCount() == 0);
        } finally {
            scheduler.shutdown();
        }
    }

    /**
     * Spring's shutdown() (not waiting for tasks) stops the executor through shutdownNow() and cancels the pending
     * tasks it returns; the executor terminates.
     */
    @ParameterizedTest
    @EnumSource(Variant.class)
    void shutdownCancelsPendingTasksAndTerminates(Variant variant) throws Exception {
        ThreadPoolTaskScheduler scheduler = variant.newScheduler();
        ScheduledThreadPoolExecutor executor = scheduler.getScheduledThreadPoolExecutor();
        ScheduledFuture<?> pending = scheduler.schedule(() -> { }, Instant.now().plus(Duration.ofHours(1)));
        ScheduledFuture<?> periodic = scheduler.scheduleAtFixedRate(() -> { }, Instant.now().plus(Duration.ofHours(1)),
                Duration.ofHours(1));
        scheduler.shutdown();
        assertTrue(executor.isShutdown());
        assertTrue(pending.isCancelled());
        assertTrue(periodic.isCancelled());
        assertTrue(executor.awaitTermination(10, SECONDS));
        assertTrue(executor.isTerminated());
    }

    /**
     * Spring's destroy(), waiting for tasks with a termination timeout, lets the running task finish, and the executor
     * has terminated when destroy() returns.
     */
    @ParameterizedTest
    @EnumSource(Variant.class)
    void destroyWaitsForRunningTasksAndTerminates(Variant variant) throws Exception {
        ThreadPoolTaskScheduler scheduler = variant.newScheduler();
        scheduler.setWaitForTasksToCompleteOnShutdown(true);
        scheduler.setAwaitTerminationSeconds(10);
        ScheduledThreadPoolExecutor executor = scheduler.getScheduledThreadPoolExecutor();
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<String> finished = new AtomicReference<>();
        scheduler.execute(() -> {
            started.countDown();
            long t0 = System.nanoTime();
            while (System.nanoTime() - t0 < 50_000_000L) {
                Thread.onSpinWait(); // busy for 50 ms, without sleeping
            }
            finished.set("finished");
        });
        awaitLatch(started);
        scheduler.destroy();
        assertTrue(executor.isTerminated());
        assertEquals("finished", finished.get());
    }
}
