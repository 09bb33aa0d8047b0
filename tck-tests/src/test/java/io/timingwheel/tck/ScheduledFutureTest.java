package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Method;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@code ScheduledFuture} a schedule call returns: getDelay, compareTo, get, timed get, cancel with and without
 * interrupt, isDone/isCancelled, and on Java 19+ state(), resultNow(), exceptionNow().
 */
class ScheduledFutureTest extends TckTestCase {

    /** getDelay starts at most at the requested delay and counts down as time passes. */
    @ForEachExecutor
    void getDelayCountsDown(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            long t0 = System.nanoTime();
            ScheduledFuture<?> future = s.executor().schedule(NOOP, 1, HOURS);
            long d1 = future.getDelay(NANOSECONDS);
            assertTrue(d1 <= HOURS.toNanos(1), "delay " + d1 + " exceeds the requested hour");
            assertTrue(d1 >= HOURS.toNanos(1) - (System.nanoTime() - t0) - MILLISECONDS.toNanos(LONG_DELAY_MS));
            spin(2);
            long d2 = future.getDelay(NANOSECONDS);
            assertTrue(d2 < d1, "delay did not count down: " + d1 + " then " + d2);
            assertTrue(future.cancel(false));
        }
    }

    /** getDelay converts to the unit asked for, and is at most zero once the task has run. */
    @ForEachExecutor
    void getDelayConvertsUnitsAndIsNotPositiveOnceDue(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledFuture<?> far = s.executor().schedule(NOOP, 90, MINUTES);
            long minutes = far.getDelay(MINUTES);
            assertTrue(minutes == 89 || minutes == 90, "getDelay(MINUTES) = " + minutes);
            long seconds = far.getDelay(SECONDS);
            assertTrue(seconds > 89 * 60 && seconds <= 90 * 60, "getDelay(SECONDS) = " + seconds);
            assertTrue(far.cancel(false));

            ScheduledFuture<?> near = s.executor().schedule(NOOP, 1, MILLISECONDS);
            get(near);
            assertTrue(near.getDelay(NANOSECONDS) <= 0);
            assertTrue(near.getDelay(MILLISECONDS) <= 0);
        }
    }

    /** compareTo orders futures by deadline, consistently in both directions, and a future equals itself. */
    @ForEachExecutor
    void compareToOrdersByDeadline(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            ScheduledFuture<?> one = e.schedule(NOOP, 1, HOURS);
            ScheduledFuture<?> two = e.schedule(() -> "x", 2, HOURS);
            ScheduledFuture<?> rate = e.scheduleAtFixedRate(NOOP, 3, 1, HOURS);
            assertTrue(one.compareTo(two) < 0);
            assertTrue(two.compareTo(one) > 0);
            assertTrue(two.compareTo(rate) < 0);
            assertTrue(rate.compareTo(one) > 0);
            assertEquals(0, one.compareTo(one));
            one.cancel(false);
            two.cancel(false);
            rate.cancel(false);
        }
    }

    /** compareTo against a foreign Delayed compares the remaining delays. */
    @ForEachExecutor
    void compareToWorksWithForeignDelayed(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledFuture<?> future = s.executor().schedule(NOOP, 1, HOURS);
            Delayed later = new FixedDelayed(MINUTES.toNanos(90));
            Delayed sooner = new FixedDelayed(MINUTES.toNanos(30));
            assertTrue(future.compareTo(later) < 0);
            assertTrue(future.compareTo(sooner) > 0);
            future.cancel(false);
        }
    }

    /** A Delayed that is always {@code nanos} away. */
    private record FixedDelayed(long nanos) implements Delayed {
        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(nanos, NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(nanos, o.getDelay(NANOSECONDS));
        }
    }

    /** get() blocks until the task has run, and then returns its result. */
    @ForEachExecutor
    void getWaitsForTheResult(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            long t0 = System.nanoTime();
            ScheduledFuture<String> future = s.executor().schedule(() -> "result", SHORT_DELAY_MS, MILLISECONDS);
            assertEquals("result", future.get());
            assertNotEarly(t0, SHORT_DELAY_MS, MILLISECONDS);
            assertEquals("result", future.get(0, NANOSECONDS));
        }
    }

    /** A timed get on a pending task throws TimeoutException after (not before) its timeout. */
    @ForEachExecutor
    void timedGetTimesOut(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledFuture<?> future = s.executor().schedule(NOOP, 1, HOURS);
            assertThrows(TimeoutException.class, () -> future.get(0, NANOSECONDS));
            long t0 = System.nanoTime();
            assertThrows(TimeoutException.class, () -> future.get(SHORT_DELAY_MS, MILLISECONDS));
            assertNotEarly(t0, SHORT_DELAY_MS, MILLISECONDS);
            assertFalse(future.isDone());
            assertTrue(future.cancel(false));
        }
    }

    /** get() on an interrupted thread throws InterruptedException and clears the interrupt status. */
    @ForEachExecutor
    void getOnInterruptedThreadThrowsInterruptedException(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledFuture<?> future = s.executor().schedule(NOOP, 1, HOURS);
            Thread.currentThread().interrupt();
            assertThrows(InterruptedException.class, () -> future.get());
            assertFalse(Thread.interrupted());
            Thread.currentThread().interrupt();
            assertThrows(InterruptedException.class, () -> future.get(LONG_DELAY_MS, MILLISECONDS));
            assertFalse(Thread.interrupted());
            assertTrue(future.cancel(false));
        }
    }

    /** Cancelling a pending task succeeds once: it is cancelled and done, never runs, and get() throws. */
    @ForEachExecutor
    void cancelBeforeRunPreventsTheRun(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            CountDownLatch ran = new CountDownLatch(1);
            ScheduledFuture<?> future = s.executor().schedule(countDowner(ran), MEDIUM_DELAY_MS, MILLISECONDS);
            assertTrue(future.cancel(false));
            assertTrue(future.isCancelled());
            assertTrue(future.isDone());
            assertFalse(future.cancel(false));
            assertFalse(future.cancel(true));
            assertThrows(CancellationException.class, () -> future.get());
            assertThrows(CancellationException.class, () -> future.get(1, MILLISECONDS));
            get(s.executor().schedule(NOOP, MEDIUM_DELAY_MS + SHORT_DELAY_MS, MILLISECONDS)); // past its deadline
            assertNotReleased(ran);
        }
    }

    /** Cancelling a completed task fails and leaves it done, not cancelled, with its result. */
    @ForEachExecutor
    void cancelAfterCompletionFails(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledFuture<Integer> future = s.executor().schedule(() -> 42, 0, MILLISECONDS);
            assertEquals(42, get(future));
            assertFalse(future.cancel(false));
            assertFalse(future.cancel(true));
            assertFalse(future.isCancelled());
            assertTrue(future.isDone());
            assertEquals(42, future.get());
        }
    }

    /** cancel(true) interrupts the thread running the task. */
    @ForEachExecutor
    void cancelWithInterruptInterruptsRunningTask(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch interrupted = new CountDownLatch(1);
            CountDownLatch never = new CountDownLatch(1);
            s.releaseOnClose(never);
            ScheduledFuture<?> future = s.executor().schedule(() -> {
                started.countDown();
                try {
                    never.await(LONG_DELAY_MS, MILLISECONDS);
                } catch (InterruptedException expected) {
                    interrupted.countDown();
                }
            }, 0, MILLISECONDS);
            await(started);
            assertTrue(future.cancel(true));
            assertTrue(future.isCancelled());
            assertTrue(future.isDone());
            await(interrupted);
            assertThrows(CancellationException.class, () -> future.get());
        }
    }

    /** cancel(false) on a running task marks it cancelled but lets the run finish without an interrupt. */
    @ForEachExecutor
    void cancelWithoutInterruptLetsRunningTaskFinish(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch proceed = new CountDownLatch(1);
            CountDownLatch finished = new CountDownLatch(1);
            s.releaseOnClose(proceed);
            ScheduledFuture<?> future = s.executor().schedule(task(() -> {
                started.countDown();
                await(proceed);
                assertFalse(Thread.currentThread().isInterrupted(), "cancel(false) interrupted the task");
                finished.countDown();
            }), 0, MILLISECONDS);
            await(started);
            assertTrue(future.cancel(false));
            assertTrue(future.isCancelled());
            assertTrue(future.isDone());
            assertThrows(CancellationException.class, () -> future.get());
            proceed.countDown();
            await(finished);
            assertTrue(future.isCancelled());
        }
    }

    /** One-shot futures are non-periodic RunnableScheduledFutures; periodic ones say they are periodic. */
    @ForEachExecutor
    void futuresAreRunnableScheduledFutures(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            ScheduledFuture<?> runnable = e.schedule(NOOP, 1, HOURS);
            ScheduledFuture<?> callable = e.schedule(() -> 1, 1, HOURS);
            ScheduledFuture<?> rate = e.scheduleAtFixedRate(NOOP, 1, 1, HOURS);
            ScheduledFuture<?> delay = e.scheduleWithFixedDelay(NOOP, 1, 1, HOURS);
            assertFalse(assertInstanceOf(RunnableScheduledFuture.class, runnable).isPeriodic());
            assertFalse(assertInstanceOf(RunnableScheduledFuture.class, callable).isPeriodic());
            assertTrue(assertInstanceOf(RunnableScheduledFuture.class, rate).isPeriodic());
            assertTrue(assertInstanceOf(RunnableScheduledFuture.class, delay).isPeriodic());
            for (ScheduledFuture<?> future : new ScheduledFuture<?>[] {runnable, callable, rate, delay}) {
                assertFalse(future.isDone());
                assertTrue(future.cancel(false));
            }
        }
    }

    /** A task whose run is still pending is neither done nor cancelled. */
    @ForEachExecutor
    void pendingTaskIsNotDone(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            ScheduledFuture<?> future = s.executor().schedule(NOOP, 1, HOURS);
            assertFalse(future.isDone());
            assertFalse(future.isCancelled());
            assertTrue(future.cancel(false));
        }
    }

    // --- Java 19+: Future.state(), resultNow(), exceptionNow() (called reflectively: the build targets 17) ---

    private static Method java19(String name) {
        Method m = java19FutureMethod(name);
        assumeTrue(m != null, "Future." + name + "() needs Java 19+");
        return m;
    }

    /** state() is RUNNING while pending and SUCCESS after; resultNow() only works once it succeeded. */
    @ForEachExecutor
    void java19StateAndResultNowOfSuccessfulTask(SchedulerFactory f) throws Throwable {
        Method state = java19("state");
        Method resultNow = java19("resultNow");
        Method exceptionNow = java19("exceptionNow");
        try (ManagedScheduler s = f.create()) {
            CountDownLatch release = new CountDownLatch(1);
            s.releaseOnClose(release);
            ScheduledFuture<String> future = s.executor().schedule(callable(() -> {
                await(release);
                return "ok";
            }), 0, MILLISECONDS);
            assertEquals("RUNNING", invoke(state, future).toString());
            assertThrows(IllegalStateException.class, () -> invoke(resultNow, future));
            assertThrows(IllegalStateException.class, () -> invoke(exceptionNow, future));
            release.countDown();
            get(future);
            assertEquals("SUCCESS", invoke(state, future).toString());
            assertEquals("ok", invoke(resultNow, future));
            assertThrows(IllegalStateException.class, () -> invoke(exceptionNow, future));
        }
    }

    /** state() is FAILED after the task threw; exceptionNow() returns what it threw. */
    @ForEachExecutor
    void java19StateAndExceptionNowOfFailedTask(SchedulerFactory f) throws Throwable {
        Method state = java19("state");
        Method resultNow = java19("resultNow");
        Method exceptionNow = java19("exceptionNow");
        try (ManagedScheduler s = f.create()) {
            ArithmeticException failure = new ArithmeticException("expected by the test");
            ScheduledFuture<?> future = s.executor().schedule(() -> {
                throw failure;
            }, 1, MILLISECONDS);
            assertThrows(ExecutionException.class, () -> get(future));
            assertEquals("FAILED", invoke(state, future).toString());
            assertSame(failure, invoke(exceptionNow, future));
            assertThrows(IllegalStateException.class, () -> invoke(resultNow, future));
        }
    }

    /** state() is CANCELLED after cancel (one-shot and periodic); resultNow() and exceptionNow() both throw. */
    @ForEachExecutor
    void java19StateOfCancelledTask(SchedulerFactory f) throws Throwable {
        Method state = java19("state");
        Method resultNow = java19("resultNow");
        Method exceptionNow = java19("exceptionNow");
        try (ManagedScheduler s = f.create()) {
            ScheduledFuture<?> oneShot = s.executor().schedule(NOOP, 1, HOURS);
            ScheduledFuture<?> periodic = s.executor().scheduleAtFixedRate(NOOP, 0, 1, HOURS);
            assertEquals("RUNNING", invoke(state, periodic).toString());
            for (ScheduledFuture<?> future : new ScheduledFuture<?>[] {oneShot, periodic}) {
                assertTrue(future.cancel(false));
                assertEquals("CANCELLED", invoke(state, future).toString());
                assertThrows(IllegalStateException.class, () -> invoke(resultNow, future));
                assertThrows(IllegalStateException.class, () -> invoke(exceptionNow, future));
            }
        }
    }

    /** get() of a task that was cancelled while a thread waited in get() wakes that thread with CancellationException. */
    @ForEachExecutor
    void cancelWakesWaitingGetters(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledFuture<?> future = s.executor().schedule(NOOP, 1, HOURS);
            AtomicBoolean woke = new AtomicBoolean();
            CountDownLatch waiting = new CountDownLatch(1);
            Thread getter = startThread(() -> {
                waiting.countDown();
                assertThrows(CancellationException.class, () -> future.get(LONG_DELAY_MS, MILLISECONDS));
                woke.set(true);
            });
            await(waiting);
            eventually().until(() -> getter.getState() != Thread.State.RUNNABLE);
            assertTrue(future.cancel(false));
            getter.join(LONG_DELAY_MS);
            assertTrue(woke.get());
        }
    }
}
