package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/** {@code invokeAll} and {@code invokeAny}, timed and untimed, with failing and slow tasks. */
class InvokeTest extends TckTestCase {

    private static final String TEST_STRING = "a test string";

    private static Callable<String> stringTask() {
        return () -> TEST_STRING;
    }

    private static Callable<String> npeTask() {
        return () -> {
            throw new NullPointerException("expected by the test");
        };
    }

    /** A task that waits until interrupted or released: "slow". Interruption is its normal end. */
    private static Callable<String> slowTask(CountDownLatch release, AtomicBoolean started, CountDownLatch interrupted) {
        return () -> {
            started.set(true);
            try {
                release.await(LONG_DELAY_MS, MILLISECONDS);
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
            return "slow";
        };
    }

    /** invokeAny(null) throws NullPointerException. */
    @ForEachExecutor
    void invokeAnyNullCollectionThrowsNpe(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            assertThrows(NullPointerException.class, () -> s.executor().invokeAny(null));
        }
    }

    /** invokeAny of an empty collection throws IllegalArgumentException. */
    @ForEachExecutor
    void invokeAnyEmptyCollectionThrowsIae(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            assertThrows(IllegalArgumentException.class,
                    () -> s.executor().invokeAny(new ArrayList<Callable<String>>()));
        }
    }

    /** invokeAny of a collection holding a null throws NullPointerException. */
    @ForEachExecutor
    void invokeAnyNullElementThrowsNpe(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            CountDownLatch release = new CountDownLatch(1);
            s.releaseOnClose(release);
            List<Callable<String>> l = Arrays.asList(slowTask(release, new AtomicBoolean(), new CountDownLatch(1)), null);
            assertThrows(NullPointerException.class, () -> s.executor().invokeAny(l));
        }
    }

    /** invokeAny throws ExecutionException when every task fails. */
    @ForEachExecutor
    void invokeAnyAllFailingThrowsExecutionException(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> s.executor().invokeAny(List.of(npeTask(), npeTask())));
            assertInstanceOf(NullPointerException.class, e.getCause());
        }
    }

    /** invokeAny returns the result of a task that completed. */
    @ForEachExecutor
    void invokeAnyReturnsACompletedResult(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            assertEquals(TEST_STRING, s.executor().invokeAny(List.of(stringTask(), stringTask())));
            assertEquals(TEST_STRING, s.executor().invokeAny(List.of(npeTask(), stringTask())));
        }
    }

    /** invokeAny returns the fast result and cancels (interrupting) a slow task that had started. */
    @ForEachExecutor
    void invokeAnyCancelsTheSlowTasks(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            CountDownLatch release = new CountDownLatch(1);
            s.releaseOnClose(release);
            AtomicBoolean started = new AtomicBoolean();
            CountDownLatch interrupted = new CountDownLatch(1);
            String result = s.executor().invokeAny(List.of(stringTask(), slowTask(release, started, interrupted)));
            assertEquals(TEST_STRING, result);
            eventually().until(() -> !started.get() || interrupted.getCount() == 0);
        }
    }

    /** invokeAll(null) throws NullPointerException. */
    @ForEachExecutor
    void invokeAllNullCollectionThrowsNpe(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            assertThrows(NullPointerException.class, () -> s.executor().invokeAll(null));
        }
    }

    /** invokeAll of an empty collection returns an empty list. */
    @ForEachExecutor
    void invokeAllEmptyCollectionReturnsEmptyList(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            assertTrue(s.executor().invokeAll(Collections.<Callable<String>>emptyList()).isEmpty());
        }
    }

    /** invokeAll of a collection holding a null throws NullPointerException. */
    @ForEachExecutor
    void invokeAllNullElementThrowsNpe(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            List<Callable<String>> l = Arrays.asList(stringTask(), null);
            assertThrows(NullPointerException.class, () -> s.executor().invokeAll(l));
        }
    }

    /** The future of a failing task in invokeAll throws ExecutionException from get(). */
    @ForEachExecutor
    void invokeAllFailingTaskSurfacesInItsFuture(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            List<Future<String>> futures = s.executor().invokeAll(List.of(npeTask()));
            assertEquals(1, futures.size());
            ExecutionException e = assertThrows(ExecutionException.class, () -> futures.get(0).get());
            assertInstanceOf(NullPointerException.class, e.getCause());
        }
    }

    /** invokeAll returns only when every task is done, with each task's result in order. */
    @ForEachExecutor
    void invokeAllReturnsAllResults(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            List<Callable<Integer>> tasks = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                int value = i;
                tasks.add(() -> value);
            }
            List<Future<Integer>> futures = s.executor().invokeAll(tasks);
            assertEquals(10, futures.size());
            for (int i = 0; i < 10; i++) {
                assertTrue(futures.get(i).isDone());
                assertEquals(i, futures.get(i).get());
            }
        }
    }

    /** Timed invokeAny with a null collection or a null unit throws NullPointerException. */
    @ForEachExecutor
    void timedInvokeAnyNullArgumentsThrowNpe(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            assertThrows(NullPointerException.class, () -> e.invokeAny(null, LONG_DELAY_MS, MILLISECONDS));
            assertThrows(NullPointerException.class, () -> e.invokeAny(List.of(stringTask()), LONG_DELAY_MS, null));
        }
    }

    /** Timed invokeAny of an empty collection throws IllegalArgumentException. */
    @ForEachExecutor
    void timedInvokeAnyEmptyCollectionThrowsIae(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            assertThrows(IllegalArgumentException.class, () -> s.executor()
                    .invokeAny(new ArrayList<Callable<String>>(), LONG_DELAY_MS, MILLISECONDS));
        }
    }

    /** Timed invokeAny of a collection holding a null throws NullPointerException. */
    @ForEachExecutor
    void timedInvokeAnyNullElementThrowsNpe(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            CountDownLatch release = new CountDownLatch(1);
            s.releaseOnClose(release);
            List<Callable<String>> l = Arrays.asList(slowTask(release, new AtomicBoolean(), new CountDownLatch(1)), null);
            assertThrows(NullPointerException.class, () -> s.executor().invokeAny(l, LONG_DELAY_MS, MILLISECONDS));
        }
    }

    /** Timed invokeAny throws ExecutionException when every task fails. */
    @ForEachExecutor
    void timedInvokeAnyAllFailingThrowsExecutionException(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> s.executor().invokeAny(List.of(npeTask()), LONG_DELAY_MS, MILLISECONDS));
            assertInstanceOf(NullPointerException.class, e.getCause());
        }
    }

    /** Timed invokeAny returns the result of a task that completed. */
    @ForEachExecutor
    void timedInvokeAnyReturnsACompletedResult(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            assertEquals(TEST_STRING,
                    s.executor().invokeAny(List.of(stringTask(), stringTask()), LONG_DELAY_MS, MILLISECONDS));
        }
    }

    /** Timed invokeAny throws TimeoutException, not before its timeout, when no task completes in time. */
    @ForEachExecutor
    void timedInvokeAnyTimesOut(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            CountDownLatch release = new CountDownLatch(1);
            s.releaseOnClose(release);
            AtomicBoolean started = new AtomicBoolean();
            CountDownLatch interrupted = new CountDownLatch(1);
            long t0 = System.nanoTime();
            assertThrows(TimeoutException.class, () -> s.executor().invokeAny(
                    List.of(slowTask(release, started, interrupted)), SHORT_DELAY_MS, MILLISECONDS));
            assertNotEarly(t0, SHORT_DELAY_MS, MILLISECONDS);
            eventually().until(() -> !started.get() || interrupted.getCount() == 0);
        }
    }

    /** Timed invokeAll with a null collection or a null unit throws NullPointerException. */
    @ForEachExecutor
    void timedInvokeAllNullArgumentsThrowNpe(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            assertThrows(NullPointerException.class, () -> e.invokeAll(null, LONG_DELAY_MS, MILLISECONDS));
            assertThrows(NullPointerException.class, () -> e.invokeAll(List.of(stringTask()), LONG_DELAY_MS, null));
        }
    }

    /** Timed invokeAll of an empty collection returns an empty list. */
    @ForEachExecutor
    void timedInvokeAllEmptyCollectionReturnsEmptyList(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            assertTrue(s.executor()
                    .invokeAll(Collections.<Callable<String>>emptyList(), LONG_DELAY_MS, MILLISECONDS).isEmpty());
        }
    }

    /** Timed invokeAll of a collection holding a null throws NullPointerException. */
    @ForEachExecutor
    void timedInvokeAllNullElementThrowsNpe(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            List<Callable<String>> l = Arrays.asList(stringTask(), null);
            assertThrows(NullPointerException.class, () -> s.executor().invokeAll(l, LONG_DELAY_MS, MILLISECONDS));
        }
    }

    /** The future of a failing task in timed invokeAll throws ExecutionException; the others succeed. */
    @ForEachExecutor
    void timedInvokeAllMixedResults(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            List<Future<String>> futures =
                    s.executor().invokeAll(List.of(stringTask(), npeTask()), LONG_DELAY_MS, MILLISECONDS);
            assertEquals(2, futures.size());
            assertEquals(TEST_STRING, futures.get(0).get());
            assertThrows(ExecutionException.class, () -> futures.get(1).get());
        }
    }

    /**
     * Timed invokeAll cancels the tasks not done when the timeout expires and returns, not before the timeout;
     * tasks done in time keep their results. As in the TCK, the timeout doubles until the fast task made it.
     */
    @ForEachExecutor
    void timedInvokeAllCancelsTasksNotDoneInTime(SchedulerFactory f) throws Exception {
        for (long timeout = SHORT_DELAY_MS; ; timeout *= 2) {
            try (ManagedScheduler s = f.create()) {
                CountDownLatch release = new CountDownLatch(1);
                s.releaseOnClose(release);
                AtomicBoolean started = new AtomicBoolean();
                CountDownLatch interrupted = new CountDownLatch(1);
                long t0 = System.nanoTime();
                List<Future<String>> futures = s.executor().invokeAll(
                        List.of(stringTask(), slowTask(release, started, interrupted), stringTask()),
                        timeout, MILLISECONDS);
                assertNotEarly(t0, timeout, MILLISECONDS);
                assertEquals(3, futures.size());
                for (Future<String> future : futures) {
                    assertTrue(future.isDone());
                }
                if (futures.get(0).isCancelled()) {
                    assertTrue(timeout < LONG_DELAY_MS, "a trivial task did not complete in " + timeout + " ms");
                    continue; // the machine is too loaded for this timeout: try a longer one
                }
                assertEquals(TEST_STRING, futures.get(0).get());
                assertTrue(futures.get(1).isCancelled());
                eventually().until(() -> !started.get() || interrupted.getCount() == 0);
                return;
            }
        }
    }
}
