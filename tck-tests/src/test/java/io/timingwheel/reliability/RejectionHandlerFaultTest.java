package io.timingwheel.reliability;

import io.timingwheel.TimingWheelExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rejection handlers that throw, run the task themselves or discard others. Expected: the handler's throwable reaches
 * the caller of {@code schedule} unchanged (as in the JDK), a rejected task never runs, and a rejection never leaks
 * pending-limit capacity or loses an accepted task.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@SuppressWarnings("try") // the resource only shuts the executor down; the body uses the executor
class RejectionHandlerFaultTest {

    static Stream<Arguments> subjectsAndThrowables() {
        List<Arguments> args = new ArrayList<>();
        for (Subject s : Subject.values()) {
            args.add(Arguments.of(s, new IllegalStateException("handler fails")));
            args.add(Arguments.of(s, new TaskFailureTest.InjectedError("handler fails")));
        }
        return args.stream();
    }

    /**
     * After {@code shutdown()}, a handler that throws a {@link RuntimeException} or an {@link Error} has that very
     * throwable thrown out of {@code schedule}, the task never runs, and the executor still terminates.
     */
    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("subjectsAndThrowables")
    void throwingHandlerReachesTheCallerUnchanged(Subject subject, Throwable thrown) throws Exception {
        AtomicInteger calls = new AtomicInteger();
        RejectedExecutionHandler handler = (r, executor) -> {
            calls.incrementAndGet();
            sneakyThrow(thrown);
        };
        ScheduledExecutorService e = subject.create(Subject.config().handler(handler));
        AtomicInteger ran = new AtomicInteger();
        try (Closing<?> c = Closing.of(e)) {
            e.shutdown();
            for (long delay : new long[] {0, 5}) {
                Throwable t = assertThrows(Throwable.class,
                        () -> e.schedule(ran::incrementAndGet, delay, TimeUnit.MILLISECONDS));
                assertSame(thrown, t);
                t = assertThrows(Throwable.class,
                        () -> e.scheduleAtFixedRate(ran::incrementAndGet, delay, 1, TimeUnit.MILLISECONDS));
                assertSame(thrown, t);
            }
            assertEquals(4, calls.get());
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
            assertEquals(0, ran.get(), "a rejected task never runs");
        }
    }

    /**
     * Ours only (the pending limit exists only here): rejections by a handler that throws do not leak capacity:
     * after a thousand of them and the cancellation of the tasks that filled the limit, exactly the limit's worth of
     * tasks is accepted again, and the next one is rejected.
     */
    @Test
    void throwingHandlerLeaksNoCapacity() throws Exception {
        int limit = 100;
        AtomicInteger rejected = new AtomicInteger();
        TimingWheelExecutor e = TimingWheelExecutor.builder().maxPendingTasks(limit)
                .rejectedExecutionHandler((r, executor) -> {
                    rejected.incrementAndGet();
                    throw new IllegalStateException("handler fails");
                })
                .build();
        try (Closing<?> c = Closing.of(e)) {
            List<ScheduledFuture<?>> filling = fill(e, limit);
            for (int i = 0; i < 1_000; i++) {
                long delay = i % 2;
                assertThrows(IllegalStateException.class, () -> e.schedule(() -> { }, delay, TimeUnit.HOURS));
            }
            assertEquals(1_000, rejected.get());
            filling.forEach(f -> assertTrue(f.cancel(false)));
            e.purge(); // cancelled tasks are released promptly anyway; purge waits until it has happened
            fill(e, limit);
            assertThrows(IllegalStateException.class, () -> e.schedule(() -> { }, 1, TimeUnit.HOURS));
            assertEquals(1_001, rejected.get());
            assertEquals(limit, e.shutdownNow().size(), "the second filling is all there");
        }
    }

    /**
     * Ours only: under a pending limit, {@code CallerRunsPolicy} runs each rejected task on the caller, so every one
     * of a thousand tasks runs exactly once, on a worker or on the caller, and none is lost.
     */
    @Test
    void callerRunsUnderTheLimitLosesNothing() throws Exception {
        TimingWheelExecutor e = TimingWheelExecutor.builder().maxPendingTasks(10).workerThreads(1)
                .rejectedExecutionHandler(new ThreadPoolExecutor.CallerRunsPolicy())
                .build();
        Thread caller = Thread.currentThread();
        AtomicInteger onCaller = new AtomicInteger();
        AtomicInteger runs = new AtomicInteger();
        try (Closing<?> c = Closing.of(e)) {
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                futures.add(e.schedule(() -> {
                    runs.incrementAndGet();
                    if (Thread.currentThread() == caller) {
                        onCaller.incrementAndGet();
                    }
                }, 1, TimeUnit.MILLISECONDS));
            }
            for (Future<?> f : futures) {
                f.get(10, TimeUnit.SECONDS);
            }
            assertEquals(1_000, runs.get());
            assertTrue(onCaller.get() > 0, "the limit was never reached");
            System.out.printf("[reliability] CallerRunsPolicy under limit 10: 1000 tasks, %d ran on the caller, "
                    + "lost=0%n", onCaller.get());
            e.shutdown();
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    /**
     * Ours only (the JDK rejects only after shutdown, when {@code CallerRunsPolicy} does nothing): a task rejected by
     * the pending limit and run by {@code CallerRunsPolicy} still does not run before its delay, the executor's first
     * timing promise, although the README combines this policy with {@code maxPendingTasks}.
     */
    @Test
    void callerRunsUnderTheLimitNeverRunsATaskBeforeItsDelay() throws Exception {
        TimingWheelExecutor e = TimingWheelExecutor.builder().maxPendingTasks(1)
                .rejectedExecutionHandler(new ThreadPoolExecutor.CallerRunsPolicy())
                .build();
        try (Closing<?> c = Closing.of(e)) {
            e.schedule(() -> { }, 1, TimeUnit.HOURS); // fills the limit
            long delay = TimeUnit.MILLISECONDS.toNanos(200);
            long start = System.nanoTime();
            AtomicLong ranAt = new AtomicLong();
            ScheduledFuture<?> f = e.schedule(() -> ranAt.set(System.nanoTime()), delay, TimeUnit.NANOSECONDS);
            if (!f.isCancelled()) {
                try {
                    f.get(10, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.CancellationException ignore) {
                    // not run at all is fine here: the property is "not early"
                }
            }
            long ran = ranAt.get();
            assertTrue(ran == 0 || ran - start >= delay, () -> "ran " + (ran - start) / 1_000
                    + " us after the schedule call; its delay is " + delay / 1_000 + " us");
        }
    }

    /**
     * Ours only (the JDK can reject only after shutdown, when {@code DiscardOldestPolicy} does nothing): under a full
     * pending limit, each schedule through {@code DiscardOldestPolicy} discards exactly one pending task, the one due
     * first, and the new task is accepted with its own deadline: it does not run before its delay.
     */
    @Test
    void discardOldestUnderTheLimitDiscardsOneAndKeepsTheDeadline() throws Exception {
        int limit = 50;
        TimingWheelExecutor e = TimingWheelExecutor.builder().maxPendingTasks(limit)
                .rejectedExecutionHandler(new ThreadPoolExecutor.DiscardOldestPolicy())
                .build();
        try (Closing<?> c = Closing.of(e)) {
            List<ScheduledFuture<?>> filling = new ArrayList<>();
            for (int i = 0; i < limit; i++) {
                filling.add(e.schedule(() -> { }, 1 + i, TimeUnit.HOURS)); // the first is due first
            }
            long delay = TimeUnit.MILLISECONDS.toNanos(200);
            long start = System.nanoTime();
            AtomicLong ranAt = new AtomicLong();
            ScheduledFuture<?> newcomer = e.schedule(() -> ranAt.set(System.nanoTime()), delay,
                    TimeUnit.NANOSECONDS);
            long discarded = filling.stream().filter(Future::isCancelled).count();
            boolean firstDiscarded = filling.get(0).isCancelled();
            newcomer.get(10, TimeUnit.SECONDS);
            long ranAfter = ranAt.get() - start;
            assertAll(
                () -> assertEquals(1, discarded, "one overflow discards one task"),
                () -> assertTrue(firstDiscarded, "the one discarded is the one due first"),
                () -> assertTrue(ranAfter >= delay, () -> "the newcomer ran " + ranAfter / 1_000
                        + " us after the schedule call; its delay is " + delay / 1_000 + " us"));
            assertFalse(newcomer.isCancelled());
        }
    }

    // -- helpers ----------------------------------------------------------------------------------------------------

    private static List<ScheduledFuture<?>> fill(ScheduledExecutorService e, int n) {
        List<ScheduledFuture<?>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            futures.add(e.schedule(() -> { }, 1, TimeUnit.HOURS));
        }
        return futures;
    }

    private static void sneakyThrow(Throwable t) {
        RejectionHandlerFaultTest.<RuntimeException>uncheck(t);
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> void uncheck(Throwable t) throws E {
        throw (E) t;
    }
}
