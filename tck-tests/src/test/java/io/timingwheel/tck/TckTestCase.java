package io.timingwheel.tck;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;

/**
 * Base of every test class, in the manner of the JSR-166 TCK: time bounds, task wrappers that report failures on task
 * threads back to the test, and helpers. JUnit makes a new instance for each test invocation.
 */
abstract class TckTestCase {

    /**
     * The bound for anything that should happen "soon": generous, so that a loaded 2-core machine does not fail a
     * correct executor. Tests wait for events (latches, Awaitility), so a correct run never waits this long.
     */
    static final long LONG_DELAY_MS = 10_000;

    /** The same bound as a Duration, for Awaitility. */
    static final Duration LONG_DELAY = Duration.ofMillis(LONG_DELAY_MS);

    /** A delay short enough to keep tests fast, long enough to be distinguishable from "now" on every tick. */
    static final long SHORT_DELAY_MS = 30;

    /**
     * A delay that cannot expire between two consecutive calls of a test, even on a loaded machine, yet short enough
     * to wait for: for tests that act on a pending task and then check that it never ran.
     */
    static final long MEDIUM_DELAY_MS = 200;

    /** A delay that no test lives to see expire. */
    static final long HOUR_MS = TimeUnit.HOURS.toMillis(1);

    private final TaskFailures failures = new TaskFailures();

    /** A body that may throw anything; failures are recorded for the test thread. */
    @FunctionalInterface
    interface Action {
        void run() throws Throwable;
    }

    /** A value-returning body that may throw anything. */
    @FunctionalInterface
    interface Supplier<T> {
        T get() throws Throwable;
    }

    /** Fails the test with anything thrown on a task thread, and if the test left the thread interrupted. */
    @AfterEach
    final void checkTaskFailuresAndInterruptStatus() {
        boolean interrupted = Thread.interrupted();
        failures.rethrow();
        if (interrupted) {
            fail("the test left the test thread's interrupt status set");
        }
    }

    /** A Runnable running {@code body}; anything it throws fails the test (and is rethrown into the executor). */
    final Runnable task(Action body) {
        return () -> {
            try {
                body.run();
            } catch (Throwable t) {
                failures.record(t);
                throw sneaky(t);
            }
        };
    }

    /** A Callable running {@code body}; anything it throws fails the test. */
    final <T> Callable<T> callable(Supplier<T> body) {
        return () -> {
            try {
                return body.get();
            } catch (Throwable t) {
                failures.record(t);
                throw sneaky(t);
            }
        };
    }

    /** Runs {@code body} on a new thread started now; anything it throws fails the test. */
    final Thread startThread(Action body) {
        Thread t = new Thread(task(body), "tck-test-helper");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Records a failure on any thread. */
    final void recordFailure(Throwable t) {
        failures.record(t);
    }

    /** A Runnable that waits (at most LONG_DELAY_MS) for {@code latch}; interruption fails the test. */
    final Runnable awaiter(CountDownLatch latch) {
        return task(() -> await(latch));
    }

    /** A Runnable that counts {@code latch} down. */
    static Runnable countDowner(CountDownLatch latch) {
        return latch::countDown;
    }

    /** Keeps the executor's one worker busy until the returned latch is released (by the test or at close). */
    static CountDownLatch holdTheWorker(ExecutorKind.Subject s) throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch busy = new CountDownLatch(1);
        s.executor.execute(() -> {
            busy.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        await(busy);
        return release;
    }

    /** A task that does nothing. */
    static final Runnable NOOP = () -> { };

    /** Waits at most LONG_DELAY_MS for {@code latch}, failing if it is not released in time. */
    static void await(CountDownLatch latch) throws InterruptedException {
        if (!latch.await(LONG_DELAY_MS, TimeUnit.MILLISECONDS)) {
            fail("timed out waiting for a latch (" + latch.getCount() + " counts left)");
        }
    }

    /** Awaitility with the suite's bound, polling every millisecond (the default 100 ms would slow the suite). */
    static ConditionFactory eventually() {
        return Awaitility.await()
                .atMost(LONG_DELAY)
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(1));
    }

    /** {@code future.get()} bounded by LONG_DELAY_MS: a hang fails the test instead of stalling the suite. */
    static <T> T get(Future<T> future) throws InterruptedException, ExecutionException {
        try {
            return future.get(LONG_DELAY_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("future not done after " + LONG_DELAY_MS + " ms: " + future, e);
        }
    }

    /** Milliseconds elapsed since {@code startNanos} (a System.nanoTime() value). */
    static long millisElapsedSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    /**
     * Asserts that at least {@code delay} of {@code unit} elapsed since {@code startNanos}: a task never runs before
     * its delay. Exact to the nanosecond, no tolerance: early is wrong however little.
     */
    static void assertNotEarly(long startNanos, long delay, TimeUnit unit) {
        assertNotEarly(Timeline.REAL, startNanos, delay, unit);
    }

    /**
     * Asserts that at least {@code delay} of {@code unit} of {@code timeline}'s time elapsed since {@code startNanos}
     * (a {@code timeline.nanoTime()} value): {@link #assertNotEarly(long, long, TimeUnit)} in the executor's time.
     */
    static void assertNotEarly(Timeline timeline, long startNanos, long delay, TimeUnit unit) {
        long elapsed = timeline.nanoTime() - startNanos;
        long required = unit.toNanos(delay);
        assertTrue(elapsed >= required,
                () -> "ran " + (required - elapsed) + " ns early (elapsed " + elapsed + " ns, delay " + required + " ns)");
    }

    /**
     * Lets {@code amount} of {@code timeline}'s time pass in two steps: all but its last nanosecond, after which, on a
     * virtual timeline, {@code latch} must not have been released yet (the virtual kinds' exactness: not a nanosecond
     * early; in real time the task checks "never early" itself, since a look from the test's thread may come late),
     * then the last nanosecond.
     */
    static void passCheckingNothingRanEarly(Timeline timeline, long amount, TimeUnit unit, CountDownLatch latch)
            throws InterruptedException {
        long nanos = unit.toNanos(amount);
        timeline.pass(nanos - 1, TimeUnit.NANOSECONDS);
        if (timeline.isVirtual()) {
            assertTrue(latch.getCount() > 0, "released a nanosecond before its time, at " + timeline.nanoTime() + " ns");
        }
        timeline.pass(1, TimeUnit.NANOSECONDS);
    }

    /**
     * Busy-waits {@code millis}: makes a task run for a while without being interruptible (a sleep would turn the
     * suite's shutdownNow() at the end of a test into a failure), or lets time pass before a negative check.
     */
    static void spin(long millis) {
        long t0 = System.nanoTime();
        while (System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(millis)) {
            Thread.onSpinWait();
        }
    }

    /** Asserts that {@code latch} has not been released: used after an event that proves enough time has passed. */
    static void assertNotReleased(CountDownLatch latch) {
        assertTrue(latch.getCount() > 0, "latch was released");
    }

    /** The Java 19+ method of {@code Future} with that name and no parameters, or null on an older runtime. */
    static Method java19FutureMethod(String name) {
        try {
            return Future.class.getMethod(name);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** Invokes {@code method} on {@code target}, unwrapping the exception it throws. */
    static Object invoke(Method method, Object target) throws Throwable {
        try {
            return method.invoke(target);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
        throw (E) t;
    }
}
