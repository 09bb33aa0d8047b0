package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.testing.NullPointerTester;
import io.timingwheel.TimingWheelExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * What only TimingWheelExecutor has, so there is no reference to run against: the builder's validation, its full
 * public surface under NullPointerTester, and the pending-task limit with the four JDK rejection policies.
 */
class TimingWheelOnlyTest extends TckTestCase {

    /** Closes the executor the way the suite does: shutdownNow, then insist on termination. */
    private static void stop(TimingWheelExecutor e) throws InterruptedException {
        e.shutdownNow();
        assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS), "did not terminate: " + e);
    }

    /** The builder rejects a non-positive tick, a wheel size that is not a positive power of two, a negative worker
     * count and a non-positive pending-task limit. */
    @Test
    void builderRejectsInvalidSettings() {
        assertThrows(IllegalArgumentException.class, () -> TimingWheelExecutor.builder().tick(0, MILLISECONDS));
        assertThrows(IllegalArgumentException.class, () -> TimingWheelExecutor.builder().tick(-1, MILLISECONDS));
        assertThrows(IllegalArgumentException.class, () -> TimingWheelExecutor.builder().wheelSize(0));
        assertThrows(IllegalArgumentException.class, () -> TimingWheelExecutor.builder().wheelSize(100));
        assertThrows(IllegalArgumentException.class, () -> TimingWheelExecutor.builder().wheelSize(-512));
        assertThrows(IllegalArgumentException.class, () -> TimingWheelExecutor.builder().workerThreads(-1));
        assertThrows(IllegalArgumentException.class, () -> TimingWheelExecutor.builder().maxPendingTasks(0));
        assertThrows(IllegalArgumentException.class, () -> new TimingWheelExecutor(-1));
    }

    /** Every public constructor and static method rejects each null argument with NullPointerException. */
    @Test
    void constructorsAndStaticMethodsRejectNulls() {
        NullPointerTester tester = NullArgumentsTest.newTester();
        tester.testAllPublicConstructors(TimingWheelExecutor.class);
        tester.testAllPublicStaticMethods(TimingWheelExecutor.class);
    }

    /**
     * Every public instance method rejects each null argument with NullPointerException, except where STPE accepts a
     * null: submit's result, and remove(null), which returns false.
     */
    @Test
    void instanceMethodsRejectNulls() throws Exception {
        TimingWheelExecutor e = new TimingWheelExecutor(1);
        try {
            NullPointerTester tester = NullArgumentsTest.newTester();
            // submit(Runnable, T result): a null result is legal.
            tester.ignore(TimingWheelExecutor.class.getMethod("submit", Runnable.class, Object.class));
            // remove(null): STPE returns false, and so must a drop-in (ManagementTest checks it on both).
            tester.ignore(TimingWheelExecutor.class.getMethod("remove", Runnable.class));
            tester.testAllPublicInstanceMethods(e);
        } finally {
            stop(e);
        }
    }

    /** Every public method of the builder rejects each null argument with NullPointerException. */
    @Test
    void builderMethodsRejectNulls() {
        NullPointerTester tester = NullArgumentsTest.newTester();
        tester.testAllPublicInstanceMethods(TimingWheelExecutor.builder());
    }

    /** A builder with every setting gives an executor that reports them and runs tasks. */
    @Test
    void builderSettingsAreApplied() throws Exception {
        ManagementTest.RecordingThreadFactory threads = new ManagementTest.RecordingThreadFactory();
        RejectedExecutionHandler handler = new ThreadPoolExecutor.DiscardPolicy();
        TimingWheelExecutor e = TimingWheelExecutor.builder()
                .tick(2, MILLISECONDS).wheelSize(64).workerThreads(3)
                .threadFactory(threads).masterThreadFactory(threads)
                .rejectedExecutionHandler(handler).maxPendingTasks(1_000)
                .build();
        try {
            assertEquals(3, e.getCorePoolSize());
            assertSame(threads, e.getThreadFactory());
            assertSame(handler, e.getRejectedExecutionHandler());
            long t0 = System.nanoTime();
            get(e.schedule(task(() -> assertNotEarly(t0, 5, MILLISECONDS)), 5, MILLISECONDS));
        } finally {
            stop(e);
        }
    }

    /** Fills a maxPendingTasks(2) executor with two distant tasks under {@code handler}. */
    private static TimingWheelExecutor full(RejectedExecutionHandler handler, ScheduledFuture<?>[] pending) {
        TimingWheelExecutor e = TimingWheelExecutor.builder().maxPendingTasks(2).rejectedExecutionHandler(handler)
                .build();
        pending[0] = e.schedule(NOOP, 1, HOURS);
        pending[1] = e.schedule(NOOP, 2, HOURS);
        return e;
    }

    /** Beyond maxPendingTasks the default AbortPolicy throws RejectedExecutionException; nothing is lost silently. */
    @Test
    void pendingLimitWithAbortPolicyThrows() throws Exception {
        ScheduledFuture<?>[] pending = new ScheduledFuture<?>[2];
        TimingWheelExecutor e = full(new ThreadPoolExecutor.AbortPolicy(), pending);
        try {
            CountDownLatch ran = new CountDownLatch(1);
            assertThrows(RejectedExecutionException.class, () -> e.schedule(countDowner(ran), 1, MILLISECONDS));
            assertEquals(2, e.getQueue().size());
            assertTrue(pending[0].cancel(false));
            ScheduledFuture<?> accepted = e.schedule(countDowner(ran), 1, MILLISECONDS); // room again
            get(accepted);
        } finally {
            stop(e);
        }
    }

    /** Beyond maxPendingTasks DiscardPolicy drops the new task: it never runs and the pending ones stay. */
    @Test
    void pendingLimitWithDiscardPolicyDropsNewTask() throws Exception {
        ScheduledFuture<?>[] pending = new ScheduledFuture<?>[2];
        TimingWheelExecutor e = full(new ThreadPoolExecutor.DiscardPolicy(), pending);
        try {
            CountDownLatch ran = new CountDownLatch(1);
            ScheduledFuture<?> dropped = e.schedule(countDowner(ran), 1, MILLISECONDS);
            assertFalse(e.getQueue().contains(dropped));
            spin(5); // well past the dropped task's deadline (immediate tasks count as pending too: the limit is full)
            assertFalse(pending[0].isDone());
            assertFalse(pending[1].isDone());
            assertNotReleased(ran);
        } finally {
            stop(e);
        }
    }

    /**
     * Beyond maxPendingTasks CallerRunsPolicy runs the task in the caller but never before its delay (the caller
     * waits for the deadline: back-pressure; STPE never reaches this path while running), and the pending tasks are
     * untouched.
     */
    @Test
    void pendingLimitWithCallerRunsPolicyNeverRunsEarly() throws Exception {
        ScheduledFuture<?>[] pending = new ScheduledFuture<?>[2];
        TimingWheelExecutor e = full(new ThreadPoolExecutor.CallerRunsPolicy(), pending);
        try {
            AtomicReference<Thread> ranOn = new AtomicReference<>();
            long start = System.nanoTime();
            e.schedule(() -> ranOn.set(Thread.currentThread()), 200, MILLISECONDS);
            long elapsed = System.nanoTime() - start;
            assertSame(Thread.currentThread(), ranOn.get(), "CallerRunsPolicy ran it in the caller");
            assertTrue(elapsed >= MILLISECONDS.toNanos(200), "but not before its delay: " + elapsed + " ns");
            assertFalse(pending[0].isDone());
            assertFalse(pending[1].isDone());
        } finally {
            stop(e);
        }
    }

    /** Beyond maxPendingTasks DiscardOldestPolicy cancels the task due first to make room; the later one stays. */
    @Test
    void pendingLimitWithDiscardOldestPolicyCancelsTheEarliest() throws Exception {
        ScheduledFuture<?>[] pending = new ScheduledFuture<?>[2];
        TimingWheelExecutor e = full(new ThreadPoolExecutor.DiscardOldestPolicy(), pending);
        try {
            e.schedule(NOOP, 3, HOURS); // no exception
            assertTrue(pending[0].isCancelled());
            assertFalse(pending[1].isDone());
            assertTrue(e.getQueue().contains(pending[1]));
            assertTrue(e.getQueue().size() <= 2);
        } finally {
            stop(e);
        }
    }

    /**
     * With the default AbortPolicy, a task rejected because the pending-task limit is reached gets a message that
     * names the limit and its value, so an operator can tell overload from shutdown; a rejection after shutdown keeps
     * the JDK's message.
     */
    @Test
    void pendingLimitRejectionSaysSo() throws Exception {
        ScheduledFuture<?>[] pending = new ScheduledFuture<?>[2];
        TimingWheelExecutor e = full(new ThreadPoolExecutor.AbortPolicy(), pending);
        try {
            RejectedExecutionException full = assertThrows(RejectedExecutionException.class,
                    () -> e.schedule(NOOP, 1, HOURS));
            assertTrue(full.getMessage().contains("the pending-task limit of 2 is reached"), full.getMessage());
            e.shutdown();
            RejectedExecutionException shut = assertThrows(RejectedExecutionException.class, () -> e.execute(NOOP));
            assertTrue(shut.getMessage().matches("Task .* rejected from .*"), shut.getMessage());
            assertFalse(shut.getMessage().contains("limit"), shut.getMessage());
        } finally {
            stop(e);
        }
    }

    /**
     * Tasks handed to an external executor that has not started them are tasks that wait, like those in the wheel:
     * shutdown() cancels the periodic ones among them at once (they leave getQueue()), keeps the one-shot ones, and a
     * thread of that executor that comes to a cancelled task later does nothing.
     */
    @Test
    void shutdownAppliesThePoliciesToTasksWaitingInAnExternalExecutor() throws Exception {
        ManualExecutor threads = new ManualExecutor();
        TimingWheelExecutor e = TimingWheelExecutor.builder().workerExecutor(threads).build();
        try {
            AtomicInteger periodicRuns = new AtomicInteger();
            ScheduledFuture<?> periodic = e.scheduleAtFixedRate(periodicRuns::incrementAndGet, 0, 1, MILLISECONDS);
            CountDownLatch oneShotRan = new CountDownLatch(1);
            Future<?> oneShot = e.submit(countDowner(oneShotRan));
            assertEquals(2, threads.waiting());
            assertEquals(2, e.getQueue().size());
            e.shutdown();
            assertTrue(periodic.isCancelled(), "cancelled by shutdown() itself");
            assertFalse(oneShot.isDone());
            assertEquals(List.of(oneShot), List.copyOf(e.getQueue()));
            threads.runAll();
            await(oneShotRan);
            assertTrue(e.awaitTermination(LONG_DELAY_MS, MILLISECONDS));
            assertEquals(0, periodicRuns.get());
        } finally {
            stop(e);
        }
    }

    /**
     * shutdownNow() on an executor that runs its tasks on an external executor returns exactly the tasks that no
     * thread of it has started, uncancelled, and a thread that comes to one of them later leaves it alone.
     */
    @Test
    void shutdownNowReturnsTheTasksAnExternalExecutorHasNotStarted() throws Exception {
        ManualExecutor threads = new ManualExecutor();
        TimingWheelExecutor e = TimingWheelExecutor.builder().workerExecutor(threads).build();
        try {
            AtomicInteger runs = new AtomicInteger();
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                futures.add(e.submit(runs::incrementAndGet));
            }
            threads.runNext(); // the first one starts and ends
            assertTrue(futures.get(0).isDone());
            List<Runnable> returned = e.shutdownNow();
            assertEquals(3, returned.size());
            assertTrue(returned.containsAll(futures.subList(1, 4)), "returned " + returned);
            assertTrue(e.isTerminated(), "nothing runs, nothing waits: terminated, whatever the external threads do");
            threads.runAll(); // the executor's threads come to them after all
            assertEquals(1, runs.get());
            for (Future<?> f : futures.subList(1, 4)) {
                assertFalse(f.isDone(), "returned tasks are left as they were, as the JDK leaves them");
            }
        } finally {
            stop(e);
        }
    }

    /** An {@link Executor} whose "threads" are the test's own calls: it only queues what it is given. */
    private static final class ManualExecutor implements Executor {
        private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();

        @Override
        public void execute(Runnable command) {
            queue.add(command);
        }

        int waiting() {
            return queue.size();
        }

        void runNext() {
            queue.remove().run();
        }

        void runAll() {
            for (Runnable r; (r = queue.poll()) != null; ) {
                r.run();
            }
        }
    }
}
