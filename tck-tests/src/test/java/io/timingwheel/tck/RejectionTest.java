package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.function.Executable;

/**
 * Rejection after shutdown goes through the RejectedExecutionHandler; the four JDK policies behave as on STPE (where
 * rejection only happens after shutdown: CallerRuns, Discard and DiscardOldest then silently drop the task).
 */
class RejectionTest extends TckTestCase {

    /** Every way of submitting work to an executor, each counting {@code ran} down if its task ever runs. */
    private static List<Executable> everySubmission(ScheduledExecutorService e, CountDownLatch ran) {
        Runnable r = countDowner(ran);
        return List.of(
                () -> e.schedule(r, 1, MILLISECONDS),
                () -> e.schedule(() -> {
                    ran.countDown();
                    return 1;
                }, 1, MILLISECONDS),
                () -> e.scheduleAtFixedRate(r, 1, 1, MILLISECONDS),
                () -> e.scheduleWithFixedDelay(r, 1, 1, MILLISECONDS),
                () -> e.execute(r),
                () -> e.submit(r),
                () -> e.submit(r, "x"),
                () -> e.submit(() -> {
                    ran.countDown();
                    return 1;
                }));
    }

    /** A shut-down executor (default handler) rejects schedule(Runnable) with RejectedExecutionException. */
    @ForEachExecutor
    void scheduleRunnableAfterShutdownIsRejected(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            s.executor().shutdown();
            assertThrows(RejectedExecutionException.class, () -> s.executor().schedule(NOOP, 1, MILLISECONDS));
        }
    }

    /** A shut-down executor rejects schedule(Callable) with RejectedExecutionException. */
    @ForEachExecutor
    void scheduleCallableAfterShutdownIsRejected(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            s.executor().shutdown();
            assertThrows(RejectedExecutionException.class, () -> s.executor().schedule(() -> 1, 1, MILLISECONDS));
        }
    }

    /** A shut-down executor rejects scheduleAtFixedRate with RejectedExecutionException. */
    @ForEachExecutor
    void scheduleAtFixedRateAfterShutdownIsRejected(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            s.executor().shutdown();
            assertThrows(RejectedExecutionException.class,
                    () -> s.executor().scheduleAtFixedRate(NOOP, 1, 1, MILLISECONDS));
        }
    }

    /** A shut-down executor rejects scheduleWithFixedDelay with RejectedExecutionException. */
    @ForEachExecutor
    void scheduleWithFixedDelayAfterShutdownIsRejected(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            s.executor().shutdown();
            assertThrows(RejectedExecutionException.class,
                    () -> s.executor().scheduleWithFixedDelay(NOOP, 1, 1, MILLISECONDS));
        }
    }

    /** A shut-down executor rejects execute, the three submits, invokeAll and invokeAny; nothing runs. */
    @ForEachExecutor
    void executeSubmitAndInvokeAfterShutdownAreRejected(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            e.shutdownNow();
            CountDownLatch ran = new CountDownLatch(1);
            for (Executable submission : everySubmission(e, ran).subList(4, 8)) {
                assertThrows(RejectedExecutionException.class, submission);
            }
            assertThrows(RejectedExecutionException.class, () -> e.invokeAll(List.of(() -> 1)));
            assertThrows(RejectedExecutionException.class, () -> e.invokeAny(List.of(() -> 1)));
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertNotReleased(ran);
        }
    }

    /** The default handler is an AbortPolicy; setRejectedExecutionHandler replaces it. */
    @ForEachExecutor
    void handlerDefaultsToAbortPolicyAndCanBeReplaced(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            assertInstanceOf(ThreadPoolExecutor.AbortPolicy.class, s.getRejectedExecutionHandler());
            RejectedExecutionHandler discard = new ThreadPoolExecutor.DiscardPolicy();
            s.setRejectedExecutionHandler(discard);
            assertSame(discard, s.getRejectedExecutionHandler());
            s.executor().shutdown();
            s.executor().schedule(NOOP, 1, MILLISECONDS); // discarded, no exception
        }
    }

    /** The handler given to the constructor is the one used. */
    @ForEachExecutor
    void constructorHandlerIsUsed(SchedulerFactory f) {
        RejectedExecutionHandler discard = new ThreadPoolExecutor.DiscardPolicy();
        try (ManagedScheduler s = f.create(SchedulerFactory.Options.DEFAULTS.handler(discard))) {
            assertSame(discard, s.getRejectedExecutionHandler());
        }
    }

    /** With an explicit AbortPolicy every kind of submission after shutdown throws and nothing runs. */
    @ForEachExecutor
    void abortPolicyRejectsEverySubmission(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create(
                SchedulerFactory.Options.DEFAULTS.handler(new ThreadPoolExecutor.AbortPolicy()))) {
            s.executor().shutdown();
            CountDownLatch ran = new CountDownLatch(1);
            for (Executable submission : everySubmission(s.executor(), ran)) {
                assertThrows(RejectedExecutionException.class, submission);
            }
            assertTrue(s.executor().awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertNotReleased(ran);
        }
    }

    /** CallerRunsPolicy after shutdown drops the task (the JDK policy only runs it while not shut down). */
    @ForEachExecutor
    void callerRunsPolicyAfterShutdownDropsTasks(SchedulerFactory f) throws Throwable {
        assertPolicyDropsEverySubmissionAfterShutdown(f, new ThreadPoolExecutor.CallerRunsPolicy());
    }

    /** DiscardPolicy after shutdown drops every task silently. */
    @ForEachExecutor
    void discardPolicyDropsTasks(SchedulerFactory f) throws Throwable {
        assertPolicyDropsEverySubmissionAfterShutdown(f, new ThreadPoolExecutor.DiscardPolicy());
    }

    /** DiscardOldestPolicy after shutdown drops the new task and leaves the kept delayed task alone. */
    @ForEachExecutor
    void discardOldestPolicyAfterShutdownDropsTasks(SchedulerFactory f) throws Throwable {
        assertPolicyDropsEverySubmissionAfterShutdown(f, new ThreadPoolExecutor.DiscardOldestPolicy());
    }

    private void assertPolicyDropsEverySubmissionAfterShutdown(SchedulerFactory f, RejectedExecutionHandler policy)
            throws Throwable {
        try (ManagedScheduler s = f.create(SchedulerFactory.Options.DEFAULTS.handler(policy))) {
            ScheduledExecutorService e = s.executor();
            CountDownLatch keptRan = new CountDownLatch(1);
            ScheduledFuture<?> kept = e.schedule(countDowner(keptRan), SHORT_DELAY_MS, MILLISECONDS);
            e.shutdown();
            CountDownLatch ran = new CountDownLatch(1);
            for (Executable submission : everySubmission(e, ran)) {
                submission.execute(); // no exception
            }
            await(keptRan); // the delayed task kept by the default policy still runs, then the executor terminates
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertNotReleased(ran);
            assertFalse(kept.isCancelled());
        }
    }

    /**
     * The handler receives the rejected task (for schedule: the very future schedule then returns) and an executor
     * view that reports the shutdown and answers getQueue().
     */
    @ForEachExecutor
    void handlerReceivesTheRejectedFutureAndAnExecutor(SchedulerFactory f) {
        AtomicReference<Runnable> rejectedTask = new AtomicReference<>();
        AtomicInteger calls = new AtomicInteger();
        RejectedExecutionHandler handler = (r, executor) -> {
            calls.incrementAndGet();
            rejectedTask.set(r);
            assertNotNull(executor);
            assertTrue(executor.isShutdown());
            assertNotNull(executor.getQueue());
            assertTrue(executor.getQueue().isEmpty());
        };
        try (ManagedScheduler s = f.create(SchedulerFactory.Options.DEFAULTS.handler(handler))) {
            s.executor().shutdown();
            ScheduledFuture<?> future = s.executor().schedule(NOOP, 1, HOURS);
            assertEquals(1, calls.get());
            assertSame(future, rejectedTask.get());
            s.executor().execute(NOOP);
            s.executor().scheduleAtFixedRate(NOOP, 1, 1, HOURS);
            assertEquals(3, calls.get());
            assertNotNull(rejectedTask.get());
        }
    }

    /** A handler's exception propagates to the caller of the rejected submission. */
    @ForEachExecutor
    void handlerExceptionPropagatesToCaller(SchedulerFactory f) {
        IllegalStateException failure = new IllegalStateException("from the handler");
        try (ManagedScheduler s = f.create(SchedulerFactory.Options.DEFAULTS.handler((r, e) -> {
            throw failure;
        }))) {
            s.executor().shutdown();
            assertSame(failure, assertThrows(IllegalStateException.class,
                    () -> s.executor().schedule(NOOP, 1, MILLISECONDS)));
        }
    }
}
