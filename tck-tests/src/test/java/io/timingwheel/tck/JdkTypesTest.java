package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.timingwheel.TimingWheelExecutor;
import io.timingwheel.tck.ExecutorKind.Subject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import org.junit.jupiter.api.Test;

/**
 * Code written against the JDK's types works on ours unchanged: variables and parameters declared as
 * {@code ScheduledThreadPoolExecutor}, {@code ThreadPoolExecutor}, {@code AbstractExecutorService},
 * {@code ExecutorService}, {@code ScheduledExecutorService} or {@code Executor}; the JDK's unconfigurable wrapper; and
 * rejection handlers, which receive the executor itself.
 */
class JdkTypesTest extends TckTestCase {

    /**
     * Each public constructor of TimingWheelExecutor gives a value of each JDK type, usable through it (for STPE this
     * holds by definition, so it is only checked for ours).
     */
    @Test
    void constructorsGiveTheJdkTypes() throws Exception {
        ThreadFactory threads = Executors.defaultThreadFactory();
        RejectedExecutionHandler handler = new ThreadPoolExecutor.AbortPolicy();
        ScheduledThreadPoolExecutor stpe = new TimingWheelExecutor(2);
        ThreadPoolExecutor tpe = new TimingWheelExecutor(2, threads);
        AbstractExecutorService aes = new TimingWheelExecutor(2, handler);
        ExecutorService es = new TimingWheelExecutor(2, threads, handler);
        ScheduledExecutorService ses = TimingWheelExecutor.builder().workerThreads(2).build();
        Executor executor = new TimingWheelExecutor(1);
        List<ExecutorService> all = List.of(stpe, tpe, aes, es, ses, (ExecutorService) executor);
        try {
            assertEquals("stpe", get(stpe.schedule(() -> "stpe", 1, MILLISECONDS)));
            assertEquals(2, tpe.getCorePoolSize());
            assertEquals(List.of(1, 2), values(aes.invokeAll(List.of(() -> 1, () -> 2))));
            assertEquals("es", get(es.submit(() -> "es")));
            assertEquals("ses", get(ses.schedule(() -> "ses", 1, MILLISECONDS)));
            CountDownLatch executed = new CountDownLatch(1);
            executor.execute(countDowner(executed));
            await(executed);
        } finally {
            for (ExecutorService e : all) {
                e.shutdown();
            }
            for (ExecutorService e : all) {
                assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS), e::toString);
            }
        }
    }

    private static <T> List<T> values(List<Future<T>> futures) throws Exception {
        List<T> values = new ArrayList<>();
        for (Future<T> f : futures) {
            values.add(get(f));
        }
        return values;
    }

    /** The executor works through a variable of each JDK type it is assignable to. */
    @ForEachKind
    void worksThroughEveryJdkType(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(2)) {
            ScheduledThreadPoolExecutor stpe = s.executor;
            ThreadPoolExecutor tpe = stpe;
            AbstractExecutorService aes = tpe;
            ExecutorService es = aes;
            ScheduledExecutorService ses = stpe;
            Executor executor = es;

            CountDownLatch executed = new CountDownLatch(1);
            executor.execute(countDowner(executed));
            await(executed);
            assertEquals("es", get(es.submit(() -> "es")));
            assertEquals(List.of(1, 2), values(aes.invokeAll(List.of(() -> 1, () -> 2))));
            assertEquals(Integer.valueOf(3), aes.invokeAny(List.of(() -> 3)));
            assertEquals("ses", get(ses.schedule(() -> "ses", 1, MILLISECONDS)));
            CountDownLatch runs = new CountDownLatch(3);
            ScheduledFuture<?> periodic = stpe.scheduleAtFixedRate(countDowner(runs), 0, 1, MILLISECONDS);
            await(runs);
            assertTrue(periodic.cancel(false));
            assertEquals(2, tpe.getCorePoolSize());
            assertEquals(Integer.MAX_VALUE, tpe.getMaximumPoolSize());
            tpe.shutdown();
            assertTrue(es.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertTrue(stpe.isTerminated());
        }
    }

    /** The settings a caller makes through a method that takes the JDK's type, as libraries write it. */
    private static void configure(ScheduledThreadPoolExecutor e) {
        e.setRemoveOnCancelPolicy(true);
        e.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        e.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        e.setCorePoolSize(3);
        e.setKeepAliveTime(1, SECONDS);
    }

    /**
     * A method that takes a ScheduledThreadPoolExecutor configures ours: every setting reads back through the JDK's
     * type and acts (a cancelled task leaves the queue; shutdown cancels the delayed tasks).
     */
    @ForEachKind
    void aMethodTakingTheJdkTypeConfiguresIt(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(1)) {
            ScheduledThreadPoolExecutor e = s.executor;
            configure(e);
            assertTrue(e.getRemoveOnCancelPolicy());
            assertFalse(e.getExecuteExistingDelayedTasksAfterShutdownPolicy());
            assertFalse(e.getContinueExistingPeriodicTasksAfterShutdownPolicy());
            assertEquals(3, e.getCorePoolSize());
            assertEquals(1000, e.getKeepAliveTime(MILLISECONDS));
            ScheduledFuture<?> cancelled = e.schedule(NOOP, 1, HOURS);
            assertTrue(cancelled.cancel(false));
            assertFalse(e.getQueue().contains(cancelled));
            ScheduledFuture<?> delayed = e.schedule(NOOP, 1, HOURS);
            ScheduledFuture<?> periodic = e.scheduleWithFixedDelay(NOOP, 1, 1, HOURS);
            assertEquals("ran", get(e.submit(() -> "ran")));
            e.shutdown();
            assertTrue(delayed.isCancelled());
            assertTrue(periodic.isCancelled());
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
        }
    }

    /**
     * Executors.unconfigurableScheduledExecutorService(executor) hides the class and keeps the behaviour: schedule,
     * periodic tasks, execute, submit, invokeAll, and shutdown with awaitTermination through the wrapper.
     */
    @ForEachKind
    void unconfigurableWrapperWorks(ExecutorKind kind) throws Exception {
        try (Subject s = kind.create(2)) {
            ScheduledExecutorService u = Executors.unconfigurableScheduledExecutorService(s.executor);
            assertFalse(u instanceof ThreadPoolExecutor);
            long t0 = System.nanoTime();
            assertEquals("scheduled", get(u.schedule(() -> "scheduled", SHORT_DELAY_MS, MILLISECONDS)));
            assertNotEarly(t0, SHORT_DELAY_MS, MILLISECONDS);
            CountDownLatch runs = new CountDownLatch(3);
            ScheduledFuture<?> periodic = u.scheduleWithFixedDelay(countDowner(runs), 0, 1, MILLISECONDS);
            await(runs);
            assertTrue(periodic.cancel(false));
            CountDownLatch executed = new CountDownLatch(1);
            u.execute(countDowner(executed));
            await(executed);
            assertEquals("submitted", get(u.submit(() -> "submitted")));
            assertEquals(List.of(1, 2), values(u.invokeAll(List.of(() -> 1, () -> 2))));
            u.shutdown();
            assertTrue(s.executor.isShutdown());
            assertTrue(u.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertTrue(u.isTerminated());
            assertThrows(RejectedExecutionException.class, () -> u.execute(NOOP));
        }
    }

    /**
     * After shutdown, the rejection handler, set through the ThreadPoolExecutor type, receives the executor itself (not
     * a view) for every way to submit, with each of the JDK's four policies: AbortPolicy throws, CallerRunsPolicy,
     * DiscardPolicy and DiscardOldestPolicy drop the task (they act only while the executor runs).
     */
    @ForEachKind
    void rejectionHandlerReceivesTheExecutorItself(ExecutorKind kind) throws Exception {
        List<RejectedExecutionHandler> policies = List.of(new ThreadPoolExecutor.AbortPolicy(),
                new ThreadPoolExecutor.CallerRunsPolicy(), new ThreadPoolExecutor.DiscardPolicy(),
                new ThreadPoolExecutor.DiscardOldestPolicy());
        for (RejectedExecutionHandler policy : policies) {
            try (Subject s = kind.create(1)) {
                List<ThreadPoolExecutor> seen = new ArrayList<>();
                RejectedExecutionHandler recording = (r, executor) -> {
                    seen.add(executor);
                    policy.rejectedExecution(r, executor);
                };
                ThreadPoolExecutor tpe = s.executor;
                tpe.setRejectedExecutionHandler(recording);
                assertSame(recording, tpe.getRejectedExecutionHandler());
                tpe.shutdown();
                Runnable r = task(() -> fail("a rejected task ran"));
                List<Runnable> submissions = List.of(
                        () -> s.executor.schedule(r, 0, MILLISECONDS),
                        () -> s.executor.schedule(() -> 1, 1, HOURS),
                        () -> s.executor.scheduleAtFixedRate(r, 0, 1, MILLISECONDS),
                        () -> s.executor.scheduleWithFixedDelay(r, 0, 1, MILLISECONDS),
                        () -> s.executor.execute(r),
                        () -> s.executor.submit(r),
                        () -> s.executor.submit(r, "result"),
                        () -> s.executor.submit(() -> 1));
                for (Runnable submission : submissions) {
                    if (policy instanceof ThreadPoolExecutor.AbortPolicy) {
                        assertThrows(RejectedExecutionException.class, submission::run);
                    } else {
                        submission.run();
                    }
                }
                assertEquals(submissions.size(), seen.size(), policy.getClass().getSimpleName());
                for (ThreadPoolExecutor executor : seen) {
                    assertSame(s.executor, executor, policy.getClass().getSimpleName());
                }
                assertTrue(tpe.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            }
        }
    }
}
