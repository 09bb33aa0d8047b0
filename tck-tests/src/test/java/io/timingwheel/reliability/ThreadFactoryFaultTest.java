package io.timingwheel.reliability;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Thread factories that fail: return null, throw a {@link RuntimeException}, throw
 * {@code new OutOfMemoryError("unable to create native thread")} from {@code newThread}, or hand out a thread whose
 * {@code start()} throws that error (where the JVM really throws it). Expected: nothing accepted is lost; accepted
 * tasks wait and run once the factory recovers.
 *
 * <p>Neither executor ever needs to <em>replace</em> a worker because of a task: a task's {@link Error} or
 * {@link StackOverflowError} is caught by its future, so the factory is asked again only to grow the pool (checked in
 * {@link TaskFailureTest}, where the factory's count stays put). Growth is therefore where a failing factory is met
 * after the start, and that is tested here.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@SuppressWarnings("try") // the resource only shuts the executor down; the body uses the executor
class ThreadFactoryFaultTest {

    /** How the factory fails. */
    enum Failure {
        RETURNS_NULL,
        THROWS_RUNTIME_EXCEPTION,
        THROWS_OUT_OF_MEMORY,
        START_THROWS_OUT_OF_MEMORY
    }

    /**
     * A factory that returns null while failing: tasks scheduled meanwhile (due now and due later) are accepted
     * without an exception, and all of them run once the factory works again and a new task arrives to start a
     * thread (the JDK starts threads only when a task arrives).
     */
    @ParameterizedTest
    @EnumSource(Subject.class)
    void nullFromFactoryAtStartDelaysButLosesNothing(Subject subject) throws Exception {
        FlakyFactory factory = new FlakyFactory(Failure.RETURNS_NULL);
        ScheduledExecutorService e = subject.create(Subject.config().threads(2).factory(factory));
        try (Closing<?> c = Closing.of(e)) {
            List<Future<Integer>> futures = scheduleWhileFailing(e, 40);
            assertEquals(0, factory.started.get());
            assertTrue(factory.failures.get() > 0, "the factory was asked");

            factory.recover();
            futures.add(e.schedule(() -> -1, 0, TimeUnit.MILLISECONDS)); // the JDK needs a new task to try again
            assertAllRan(futures);
            e.shutdown();
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    /**
     * Ours only, because the JDK throws the factory's throwable out of {@code schedule} after it has queued the task
     * (so the caller takes an accepted task for a rejected one): a factory that throws, even {@code
     * OutOfMemoryError("unable to create native thread")} from {@code newThread} or from {@code start}, leaves {@code
     * schedule} returning normally, is reported to the calling thread's uncaught-exception handler, and every task runs
     * once the factory recovers.
     */
    @ParameterizedTest
    @EnumSource(value = Failure.class, names = "RETURNS_NULL", mode = EnumSource.Mode.EXCLUDE)
    void throwingFactoryAtStartNeitherThrowsToCallerNorLosesTasks(Failure failure) throws Exception {
        FlakyFactory factory = new FlakyFactory(failure);
        ScheduledExecutorService e = Subject.TWE.create(Subject.config().threads(2).factory(factory));
        Queue<Throwable> reported = new ConcurrentLinkedQueue<>();
        Thread me = Thread.currentThread();
        Thread.UncaughtExceptionHandler saved = me.getUncaughtExceptionHandler();
        me.setUncaughtExceptionHandler((t, ex) -> reported.add(ex));
        try (Closing<?> c = Closing.of(e)) {
            List<Future<Integer>> futures;
            try {
                futures = scheduleWhileFailing(e, 40);
            } finally {
                me.setUncaughtExceptionHandler(saved);
            }
            assertEquals(0, factory.started.get());
            assertTrue(reported.stream().anyMatch(FlakyFactory::isInjected),
                    () -> "the factory's failure was not reported: " + reported);

            factory.recover();
            futures.add(e.schedule(() -> -1, 0, TimeUnit.MILLISECONDS));
            assertAllRan(futures);
            e.shutdown();
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    /**
     * A factory that makes the first thread and then returns null: the pool cannot grow, but every task still runs
     * on the one worker it has, and the executor terminates (the JSR-166 TCK's "execution continues if there is at
     * least one thread").
     */
    @ParameterizedTest
    @EnumSource(Subject.class)
    void nullFromFactoryWhenGrowingLeavesOneWorkerServing(Subject subject) throws Exception {
        growWithFailingFactory(subject, Failure.RETURNS_NULL);
    }

    /**
     * Ours only (the JDK throws the factory's throwable out of {@code schedule} once the task is queued, see above):
     * a factory that makes the first thread and then throws, in each way, leaves that worker serving every task.
     */
    @ParameterizedTest
    @EnumSource(value = Failure.class, names = "RETURNS_NULL", mode = EnumSource.Mode.EXCLUDE)
    void throwingFactoryWhenGrowingLeavesOneWorkerServing(Failure failure) throws Exception {
        Thread me = Thread.currentThread();
        Thread.UncaughtExceptionHandler saved = me.getUncaughtExceptionHandler();
        me.setUncaughtExceptionHandler((t, ex) -> { }); // reported there; checked in the test above
        try {
            growWithFailingFactory(Subject.TWE, failure);
        } finally {
            me.setUncaughtExceptionHandler(saved);
        }
    }

    /**
     * Ours only: a master-thread factory that fails in any way is replaced by the default, so the master always runs
     * and delayed tasks fire (the JDK has no master thread).
     */
    @ParameterizedTest
    @EnumSource(Failure.class)
    void failingMasterFactoryFallsBackToTheDefault(Failure failure) throws Exception {
        FlakyFactory masterFactory = new FlakyFactory(failure);
        Thread me = Thread.currentThread();
        Thread.UncaughtExceptionHandler saved = me.getUncaughtExceptionHandler();
        Queue<Throwable> reported = new ConcurrentLinkedQueue<>();
        me.setUncaughtExceptionHandler((t, ex) -> reported.add(ex));
        ScheduledExecutorService e = Subject.TWE.create(Subject.config().masterFactory(masterFactory));
        try (Closing<?> c = Closing.of(e)) {
            List<Future<Integer>> futures = new ArrayList<>();
            try {
                for (int i = 0; i < 20; i++) {
                    int value = i;
                    // 100..104 ms: delays the master hands over (up to 50 ms, tasks go to the workers straight)
                    futures.add(e.schedule(() -> value, 100 + i % 5, TimeUnit.MILLISECONDS));
                }
            } finally {
                me.setUncaughtExceptionHandler(saved);
            }
            assertAllRan(futures);
            assertTrue(masterFactory.failures.get() > 0, "the master factory was asked");
            e.shutdown();
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    /**
     * Ours only, stricter than the JDK (which starts threads only when a task arrives, so after {@code shutdown()} its
     * waiting tasks never run and it never terminates): once a factory that failed for tasks due now has recovered,
     * {@code shutdown()} still gets every accepted task run and the executor terminates.
     */
    @Test
    void recoveredFactoryLetsShutdownRunEverythingAndTerminate() throws Exception {
        FlakyFactory factory = new FlakyFactory(Failure.RETURNS_NULL);
        ScheduledExecutorService e = Subject.TWE.create(Subject.config().threads(2).factory(factory));
        try (Closing<?> c = Closing.of(e)) {
            List<Future<Integer>> futures = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                int value = i;
                futures.add(e.submit(() -> value)); // due now: each one asks the factory, in vain
            }
            assertEquals(0, factory.started.get());
            factory.recover();
            e.shutdown();
            assertTrue(e.awaitTermination(5, TimeUnit.SECONDS),
                    () -> "accepted tasks wait for a thread nobody starts: " + e);
            assertAllRan(futures);
        }
    }

    // -- helpers ----------------------------------------------------------------------------------------------------

    private static void growWithFailingFactory(Subject subject, Failure failure) throws Exception {
        FlakyFactory factory = new FlakyFactory(null);
        factory.failAfterFirst = failure;
        ScheduledExecutorService e = subject.create(Subject.config().threads(4).factory(factory));
        try (Closing<?> c = Closing.of(e)) {
            List<Future<Integer>> futures = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                int value = i;
                futures.add(e.schedule(() -> value, i % 3, TimeUnit.MILLISECONDS));
            }
            assertAllRan(futures);
            assertEquals(1, factory.started.get(), "only the first thread could be made");
            assertTrue(factory.failures.get() > 0, "the pool tried to grow");
            e.shutdown();
            assertTrue(e.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    /** Schedules {@code n} tasks, half due now and half in 1-3 ms, none of which may be rejected. */
    private static List<Future<Integer>> scheduleWhileFailing(ScheduledExecutorService e, int n) {
        List<Future<Integer>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int value = i;
            futures.add(e.schedule(() -> value, i % 2 == 0 ? 0 : 1 + i % 3, TimeUnit.MILLISECONDS));
        }
        return futures;
    }

    private static void assertAllRan(List<Future<Integer>> futures) throws Exception {
        for (int i = 0; i < futures.size(); i++) {
            Integer v = futures.get(i).get(10, TimeUnit.SECONDS);
            assertTrue(v == i || v == -1, "task " + i + " returned " + v);
        }
    }

    /** A factory that fails as told until {@link #recover()}; it counts failures and started threads. */
    static final class FlakyFactory implements ThreadFactory {
        static final String PREFIX = "flaky-factory-";
        private static final String MESSAGE = "injected: unable to create native thread";

        volatile Failure failing;
        volatile Failure failAfterFirst;
        final AtomicInteger failures = new AtomicInteger();
        final AtomicInteger started = new AtomicInteger();
        private final AtomicInteger made = new AtomicInteger();

        FlakyFactory(Failure failing) {
            this.failing = failing;
        }

        void recover() {
            failing = null;
            failAfterFirst = null;
        }

        static boolean isInjected(Throwable t) {
            for (Throwable c = t; c != null; c = c.getCause()) {
                if (MESSAGE.equals(c.getMessage())) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public Thread newThread(Runnable r) {
            Failure f = failing;
            if (f == null && failAfterFirst != null && made.get() > 0) {
                f = failAfterFirst;
            }
            if (f == null) {
                return thread(r, false);
            }
            failures.incrementAndGet();
            switch (f) {
                case RETURNS_NULL:
                    return null;
                case THROWS_RUNTIME_EXCEPTION:
                    throw new IllegalStateException(MESSAGE);
                case THROWS_OUT_OF_MEMORY:
                    throw new OutOfMemoryError(MESSAGE);
                default:
                    return thread(r, true);
            }
        }

        private Thread thread(Runnable r, boolean startFails) {
            // Counted when the thread runs, not in start(): on Java 21+ ThreadPoolExecutor starts its workers through
            // a thread container, which bypasses an overridden start().
            Runnable counted = () -> {
                started.incrementAndGet();
                r.run();
            };
            Thread t = new Thread(counted, PREFIX + made.incrementAndGet()) {
                @Override
                public synchronized void start() {
                    if (startFails) {
                        throw new OutOfMemoryError(MESSAGE); // where the JVM really throws it
                    }
                    super.start();
                }
            };
            t.setDaemon(true);
            return t;
        }
    }
}
