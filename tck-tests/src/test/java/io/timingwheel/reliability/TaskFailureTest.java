package io.timingwheel.reliability;

import io.timingwheel.TimingWheelExecutor;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tasks that throw: a {@link RuntimeException}, an {@link Error}, a checked exception and a real
 * {@link StackOverflowError}. Expected, as in the JDK: the failure is held in the task's own future (the very
 * throwable, as the cause of {@link ExecutionException}), it costs no worker thread, and the executor keeps serving.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@SuppressWarnings("try") // the resource only shuts the executor down; the body uses the executor
class TaskFailureTest {

    /** What a failing task throws. */
    enum Fault {
        RUNTIME_EXCEPTION(() -> new IllegalStateException("injected")),
        ERROR(() -> new InjectedError("injected")),
        CHECKED_EXCEPTION(() -> new java.io.IOException("injected")),
        STACK_OVERFLOW(null);

        private final Supplier<Throwable> make;

        Fault(Supplier<Throwable> make) {
            this.make = make;
        }

        /** Throws the fault; for STACK_OVERFLOW, by recursing until the stack is exhausted. */
        Object raise() throws Exception {
            if (make == null) {
                return recurse(0);
            }
            Throwable t = make.get();
            if (t instanceof Exception) {
                throw (Exception) t;
            }
            throw (Error) t;
        }

        void assertCause(Throwable cause) {
            if (make == null) {
                assertInstanceOf(StackOverflowError.class, cause);
            } else {
                assertEquals(make.get().getClass(), cause.getClass());
                assertEquals("injected", cause.getMessage());
            }
        }
    }

    static Stream<Arguments> subjectsAndFaults() {
        List<Arguments> args = new ArrayList<>();
        for (Subject s : Subject.values()) {
            for (Fault f : Fault.values()) {
                args.add(Arguments.of(s, f));
            }
        }
        return args.stream();
    }

    /**
     * A one-shot task that throws completes its future exceptionally with that throwable, whether due now or later,
     * and the same worker then runs the next task: no thread is lost or replaced.
     */
    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("subjectsAndFaults")
    void failingOneShotFailsOnlyItsOwnFuture(Subject subject, Fault fault) throws Exception {
        CountingFactory factory = new CountingFactory();
        ScheduledExecutorService e = subject.create(Subject.config().threads(1).factory(factory));
        try (Closing<?> c = Closing.of(e)) {
            Callable<Object> failing = fault::raise;
            Future<Object> now = e.submit(failing);
            ScheduledFuture<Object> later = e.schedule(failing, 2, TimeUnit.MILLISECONDS);
            for (Future<Object> f : List.of(now, later)) {
                ExecutionException ex = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
                fault.assertCause(ex.getCause());
                assertTrue(f.isDone());
                assertFalse(f.isCancelled());
            }
            assertEquals("still serving", e.schedule(() -> "still serving", 1, TimeUnit.MILLISECONDS)
                    .get(10, TimeUnit.SECONDS));
            assertEquals(1, factory.created.get(), "a task's failure must not cost a worker thread");

            e.shutdown();
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    /**
     * Ten thousand tasks, every other one failing with {@code fault}, all end: the successes with their values, the
     * failures with their throwables, on the two workers created at the start.
     */
    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("subjectsAndFaults")
    void manyFailuresLoseNothing(Subject subject, Fault fault) throws Exception {
        CountingFactory factory = new CountingFactory();
        ScheduledExecutorService e = subject.create(Subject.config().threads(2).factory(factory));
        int n = fault == Fault.STACK_OVERFLOW ? 100 : 10_000; // a stack overflow costs a few milliseconds
        try (Closing<?> c = Closing.of(e)) {
            List<Future<Object>> futures = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                Integer value = i;
                Callable<Object> task = i % 2 == 0 ? () -> value : fault::raise;
                futures.add(e.schedule(task, i % 3, TimeUnit.MILLISECONDS));
            }
            int failed = 0;
            for (int i = 0; i < n; i++) {
                try {
                    assertEquals(i, futures.get(i).get(10, TimeUnit.SECONDS));
                } catch (ExecutionException ex) {
                    assertEquals(1, i % 2, "task " + i + " was not meant to fail");
                    fault.assertCause(ex.getCause());
                    failed++;
                }
            }
            assertEquals(n / 2, failed);
            assertEquals(2, factory.created.get(), "failures must not cost worker threads");
            System.out.printf("[reliability] %s %s: %d tasks, %d injected failures, lost=0%n", subject, fault, n,
                    failed);
            e.shutdown();
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    /**
     * A periodic task whose third run throws stops: no fourth run ever starts, {@code get()} throws
     * {@link ExecutionException} with that very throwable, the future is done and not cancelled (the failure is
     * observable through the future, never silent), and the executor keeps running other tasks.
     */
    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("subjectsAndFaults")
    void failingPeriodicTaskStopsAndReportsItsCause(Subject subject, Fault fault) throws Exception {
        ScheduledExecutorService e = subject.create(Subject.config().threads(2));
        try (Closing<?> c = Closing.of(e)) {
            for (boolean fixedRate : new boolean[] {true, false}) {
                AtomicInteger runs = new AtomicInteger();
                Runnable failingThird = () -> {
                    if (runs.incrementAndGet() == 3) {
                        sneakyThrow(fault);
                    }
                };
                ScheduledFuture<?> f = fixedRate
                        ? e.scheduleAtFixedRate(failingThird, 0, 1, TimeUnit.MILLISECONDS)
                        : e.scheduleWithFixedDelay(failingThird, 1, 1, TimeUnit.MILLISECONDS);
                ExecutionException ex = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
                fault.assertCause(ex.getCause());
                assertTrue(f.isDone());
                assertFalse(f.isCancelled());
                // Twenty periods later there is still no fourth run (a later run would have been due long ago).
                e.schedule(() -> null, 20, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS);
                assertEquals(3, runs.get(), "the series must stop at the run that threw");
            }
            e.shutdown();
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    /**
     * Ours only (the JDK has no such hook and its periodic tasks stop silently unless someone calls {@code get()}):
     * the {@link io.timingwheel.TaskFailureHandler} hears of every failed run, one-shot and periodic, with the very
     * future and throwable, on the thread that ran it; a handler that itself throws is reported to that thread's
     * uncaught-exception handler and costs no worker.
     */
    @ParameterizedTest
    @EnumSource(Fault.class)
    void failureHandlerHearsOfEveryFailure(Fault fault) throws Exception {
        Queue<Object[]> heard = new ConcurrentLinkedQueue<>();
        Queue<Throwable> uncaught = new ConcurrentLinkedQueue<>();
        CountingFactory factory = new CountingFactory(uncaught);
        CountDownLatch periodicHeard = new CountDownLatch(1);
        TimingWheelExecutor e = TimingWheelExecutor.builder()
                .workerThreads(1)
                .threadFactory(factory)
                .taskFailureHandler((future, failure) -> {
                    heard.add(new Object[] {future, failure, Thread.currentThread()});
                    if (heard.size() == 1) {
                        throw new IllegalStateException("the failure handler fails too");
                    }
                    periodicHeard.countDown();
                })
                .build();
        try (Closing<?> c = Closing.of(e)) {
            Future<Object> oneShot = e.submit((Callable<Object>) fault::raise);
            assertThrows(ExecutionException.class, () -> oneShot.get(10, TimeUnit.SECONDS));
            AtomicInteger runs = new AtomicInteger();
            ScheduledFuture<?> periodic = e.scheduleAtFixedRate(() -> {
                if (runs.incrementAndGet() == 2) {
                    sneakyThrow(fault);
                }
            }, 1, 1, TimeUnit.MILLISECONDS);
            assertThrows(ExecutionException.class, () -> periodic.get(10, TimeUnit.SECONDS));
            assertTrue(periodicHeard.await(10, TimeUnit.SECONDS), "the periodic failure was not reported");

            List<Object[]> calls = new ArrayList<>(heard);
            assertEquals(2, calls.size());
            assertSame(oneShot, calls.get(0)[0]);
            assertSame(periodic, calls.get(1)[0]);
            for (Object[] call : calls) {
                fault.assertCause((Throwable) call[1]);
                assertTrue(((Thread) call[2]).getName().startsWith(CountingFactory.PREFIX));
            }
            Threads.await(() -> !uncaught.isEmpty());
            assertTrue(uncaught.stream().anyMatch(t -> hasCause(t, "the failure handler fails too")),
                    () -> "the handler's own failure was not reported: " + uncaught);
            assertEquals("still serving", e.submit(() -> "still serving").get(10, TimeUnit.SECONDS));
            assertEquals(1, factory.created.get(), "a failing handler must not cost a worker thread");
            e.shutdown();
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    // -- helpers ----------------------------------------------------------------------------------------------------

    private static int recurse(int depth) {
        return recurse(depth + 1) + 1;
    }

    private static void sneakyThrow(Fault fault) {
        try {
            fault.raise();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw TaskFailureTest.<RuntimeException>uncheck(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E uncheck(Throwable t) throws E {
        throw (E) t;
    }

    private static boolean hasCause(Throwable t, String message) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (message.equals(c.getMessage())) {
                return true;
            }
        }
        return false;
    }

    /** An {@link Error} of our own, so that nothing else could have thrown it. */
    static final class InjectedError extends Error {
        private static final long serialVersionUID = 1L;

        InjectedError(String message) {
            super(message);
        }
    }

    /** Counts the threads it makes and collects what reaches their uncaught-exception handler. */
    static final class CountingFactory implements ThreadFactory {
        static final String PREFIX = "failure-test-worker-";
        final AtomicInteger created = new AtomicInteger();
        private final Queue<Throwable> uncaught;

        CountingFactory() {
            this(new ConcurrentLinkedQueue<>());
        }

        CountingFactory(Queue<Throwable> uncaught) {
            this.uncaught = uncaught;
        }

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, PREFIX + created.incrementAndGet());
            t.setDaemon(true);
            t.setUncaughtExceptionHandler((thread, ex) -> uncaught.add(ex));
            return t;
        }
    }
}
