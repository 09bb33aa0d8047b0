package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;

/**
 * {@code close()} with Java 19 semantics: shutdown, wait for termination, on interrupt shutdownNow and keep waiting,
 * then restore the interrupt status. On Java 17 the reference runs the JDK 19 algorithm (see the adapter).
 */
class CloseTest extends TckTestCase {

    /** close() waits for a delayed one-shot task (kept by the default policy) to run. */
    @ForEachExecutor
    void closeWaitsForDelayedTasks(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            long t0 = System.nanoTime();
            CountDownLatch ran = new CountDownLatch(1);
            s.executor().schedule(task(() -> {
                assertNotEarly(t0, SHORT_DELAY_MS, MILLISECONDS);
                ran.countDown();
            }), SHORT_DELAY_MS, MILLISECONDS);
            s.closeExecutor();
            assertEquals(0, ran.getCount());
            assertTrue(s.executor().isTerminated());
        }
    }

    /** close() waits for a running task to finish, without interrupting it. */
    @ForEachExecutor
    void closeWaitsForRunningTask(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch finished = new CountDownLatch(1);
            s.releaseOnClose(release);
            s.executor().execute(task(() -> {
                started.countDown();
                await(release);
                assertFalse(Thread.currentThread().isInterrupted());
                finished.countDown();
            }));
            await(started);
            Thread releaser = startThread(() -> {
                eventually().until(() -> s.executor().isShutdown());
                release.countDown();
            });
            s.closeExecutor();
            assertEquals(0, finished.getCount());
            assertTrue(s.executor().isTerminated());
            releaser.join(LONG_DELAY_MS);
        }
    }

    /** close() cancels periodic tasks (default policy) and returns. */
    @ForEachExecutor
    void closeCancelsPeriodicTasks(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            CountDownLatch ran = new CountDownLatch(1);
            ScheduledFuture<?> periodic = s.executor().scheduleAtFixedRate(countDowner(ran), 0, 1, MILLISECONDS);
            await(ran);
            s.closeExecutor();
            assertTrue(periodic.isCancelled(), () -> "not cancelled: " + periodic + " by " + s.executor());
            assertTrue(s.executor().isTerminated());
        }
    }

    /** close() of a terminated executor returns at once; close() twice is harmless. */
    @ForEachExecutor
    void closeIsIdempotent(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            s.closeExecutor();
            assertTrue(s.executor().isTerminated());
            s.closeExecutor();
            assertTrue(s.executor().isTerminated());
        }
    }

    /**
     * Interrupting the thread blocked in close() makes it call shutdownNow() (interrupting the running task), wait for
     * termination, and return with the interrupt status set.
     */
    @ForEachExecutor
    void interruptDuringCloseStopsTasksAndRestoresInterruptStatus(SchedulerFactory f) throws Exception {
        try (ManagedScheduler s = f.create()) {
            ScheduledExecutorService e = s.executor();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch interrupted = new CountDownLatch(1);
            CountDownLatch never = new CountDownLatch(1);
            s.releaseOnClose(never);
            e.execute(() -> {
                started.countDown();
                try {
                    never.await(LONG_DELAY_MS, MILLISECONDS);
                } catch (InterruptedException expected) {
                    interrupted.countDown();
                }
            });
            await(started);
            Thread closer = Thread.currentThread();
            Thread interrupter = startThread(() -> {
                eventually().until(() -> e.isShutdown() && closer.getState() != Thread.State.RUNNABLE);
                closer.interrupt();
            });
            s.closeExecutor();
            assertTrue(Thread.interrupted(), "close() did not restore the interrupt status");
            assertTrue(e.isTerminated());
            assertEquals(0, interrupted.getCount(), "the running task was not interrupted");
            interrupter.join(LONG_DELAY_MS);
        }
    }

    /**
     * close() called with the interrupt status already set does not hang on a pending delayed task: it calls
     * shutdownNow() and returns with the interrupt status still set.
     */
    @ForEachExecutor
    void closeWhenAlreadyInterruptedDropsPendingTasks(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            ScheduledFuture<?> pending = s.executor().schedule(NOOP, 1, HOURS);
            Thread.currentThread().interrupt();
            s.closeExecutor();
            assertTrue(Thread.interrupted(), "close() did not keep the interrupt status");
            assertTrue(s.executor().isTerminated());
            assertFalse(pending.isDone() && !pending.isCancelled(), "the pending task ran");
        }
    }
}
