package io.timingwheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * The hint the master reads to give way to a late worker ({@code MasterLoop.giveWayToLateWorker}): a worker that
 * leads the wait for the first deadline says when that wait ends, and the pool reports it overdue only past that end
 * and the tolerance, and never while no worker waits for a deadline. Publishers read the same hint
 * ({@link Dispatcher#publisherGivesWay}), at most once per interval. A publisher of a task that comes straight reads it
 * too: it wakes the leader only for a task due before the leader wakes, or due now.
 */
class LeaderWakeUpTest {
    private static final long TOLERANCE = TimeUnit.MICROSECONDS.toNanos(100);

    /** A clock the pool must not read: while no worker leads a wait, the master's look costs no clock reading. */
    private static final LongSupplier CLOCK_NOT_TO_READ = () -> {
        throw new AssertionError("the clock was read while no worker leads a wait");
    };

    @Test
    void aLeaderIsOverdueOnlyPastTheEndOfItsWaitAndTheTolerance() throws Exception {
        PlainDispatcherHost host = new PlainDispatcherHost();
        WorkerPool pool = newPool(host);
        assertFalse(pool.deadlineWaitOverdue(() -> host.now() + TimeUnit.DAYS.toNanos(1), TOLERANCE),
                "no worker waits for a deadline yet");
        assertFalse(pool.deadlineWaitOverdue(CLOCK_NOT_TO_READ, TOLERANCE), "and the clock is not read for it");

        RunnableTask task = leadAWaitOf30Seconds(pool, host);
        long due = task.deadline;
        // The worker leads the wait for the task's deadline: overdue well after it, not before it.
        assertFalse(pool.deadlineWaitOverdue(host::now, TOLERANCE), "the wait has 30 s to go");
        assertFalse(pool.deadlineWaitOverdue(() -> due + TOLERANCE, TOLERANCE), "within the tolerance after its end");
        assertTrue(pool.deadlineWaitOverdue(() -> due + TOLERANCE + TimeUnit.MILLISECONDS.toNanos(1), TOLERANCE));

        endTheWait(pool, task);
        assertFalse(pool.deadlineWaitOverdue(CLOCK_NOT_TO_READ, TOLERANCE), "no clock read once no worker leads");
    }

    @Test
    void aPublisherGivesWayToAnOverdueLeaderAtMostOncePerInterval() throws Exception {
        PlainDispatcherHost host = new PlainDispatcherHost();
        WorkerPool pool = newPool(host);
        long far = host.now() + TimeUnit.DAYS.toNanos(1);
        assertFalse(pool.publisherGivesWay(far), "no worker waits for a deadline: nothing to give way to");

        RunnableTask task = leadAWaitOf30Seconds(pool, host);
        long due = task.deadline;
        assertFalse(pool.publisherGivesWay(host.now()), "the wait has 30 s to go");
        assertFalse(pool.publisherGivesWay(due + TOLERANCE), "within the tolerance after its end");
        long late = due + TimeUnit.MILLISECONDS.toNanos(1);
        assertTrue(pool.publisherGivesWay(late), "overdue: the publisher yields");
        assertFalse(pool.publisherGivesWay(late + TimeUnit.MICROSECONDS.toNanos(10)), "not again so soon");
        assertTrue(pool.publisherGivesWay(late + TimeUnit.MICROSECONDS.toNanos(60)), "again after the interval");

        endTheWait(pool, task);
        assertFalse(pool.publisherGivesWay(far), "no worker leads a wait any more");
    }

    @Test
    void aPublisherWakesTheLeaderOnlyForATaskDueBeforeItWakes() throws Exception {
        PlainDispatcherHost host = new PlainDispatcherHost();
        WorkerPool pool = newPool(host);
        RunnableTask first = leadAWaitOf30Seconds(pool, host);

        RunnableTask later = new RunnableTask(new PlainTaskHost(), () -> { },
                first.deadline + TimeUnit.SECONDS.toNanos(10));
        assertTrue(pool.dispatch(later));
        assertTrue(pool.holdsArrivals(), "due after the leader wakes: the publisher left it for the leader to move in");
        assertFalse(pool.wakeUpPendingForStress(), "and woke nobody");

        RunnableTask sooner = new RunnableTask(new PlainTaskHost(), () -> { },
                first.deadline - TimeUnit.SECONDS.toNanos(20));
        assertTrue(pool.dispatch(sooner));
        assertFalse(pool.holdsArrivals(), "due before the leader wakes: the publisher moved both in");
        TimingWheelExecutorTest.await("the leader, woken, leads the wait for the sooner deadline",
                () -> pool.deadlineWaitOverdue(() -> sooner.deadline + TOLERANCE + 1, TOLERANCE));

        later.cancel(false);
        sooner.cancel(false);
        endTheWait(pool, first);
    }

    @Test
    void aPublisherWakesALeaderWhoseWaitIsOverForATaskDueNow() throws Exception {
        ShiftedClockHost host = new ShiftedClockHost();
        WorkerPool pool = newPool(host);
        CountDownLatch ran = new CountDownLatch(2);
        RunnableTask first = leadAWaitOf30Seconds(pool, host, ran::countDown);

        // By the pool's clock the leader's wait is over, as when the kernel lets a timed wait overrun; in real time it
        // has 30 s to go.
        host.shift.set(TimeUnit.SECONDS.toNanos(31));
        RunnableTask later = new RunnableTask(new PlainTaskHost(), () -> { },
                first.deadline + TimeUnit.SECONDS.toNanos(10));
        assertTrue(pool.dispatch(later));
        assertTrue(pool.holdsArrivals(), "not due yet: waking the leader would run nothing sooner");

        RunnableTask dueNow = new RunnableTask(new PlainTaskHost(), ran::countDown, host.now());
        assertTrue(pool.dispatch(dueNow));
        assertFalse(pool.holdsArrivals(), "due now: the publisher took the lock to wake the leader");
        assertTrue(ran.await(10, TimeUnit.SECONDS), "woken, the leader ran the task it waited for and the new one");
        TimingWheelExecutorTest.await("the leader leads the wait for the later task",
                () -> pool.deadlineWaitOverdue(() -> later.deadline + TOLERANCE + 1, TOLERANCE));

        endTheWait(pool, later);
    }

    /** Queues a task due in 30 s and starts the worker: returns the task once the worker leads the wait for it. */
    private static RunnableTask leadAWaitOf30Seconds(WorkerPool pool, PlainDispatcherHost host) throws Exception {
        return leadAWaitOf30Seconds(pool, host, () -> { });
    }

    /** The same, with the task's action. */
    private static RunnableTask leadAWaitOf30Seconds(WorkerPool pool, PlainDispatcherHost host, Runnable action)
            throws Exception {
        long due = host.now() + TimeUnit.SECONDS.toNanos(30);
        RunnableTask task = new RunnableTask(new PlainTaskHost(), action, due);
        assertTrue(pool.dispatch(task));
        pool.prestart();
        TimingWheelExecutorTest.await("the worker leads the wait",
                () -> pool.deadlineWaitOverdue(() -> due + TimeUnit.SECONDS.toNanos(1), TOLERANCE));
        return task;
    }

    /** The task is cancelled and the pool closes: returns once the leader has woken and left its wait. */
    private static void endTheWait(WorkerPool pool, RunnableTask task) throws Exception {
        task.cancel(false);
        assertEquals(Dispatcher.Closing.THREADS_LEAVING, pool.close(() -> true));
        TimingWheelExecutorTest.await("the leader has left its wait",
                () -> !pool.deadlineWaitOverdue(() -> task.deadline + TimeUnit.SECONDS.toNanos(1), TOLERANCE));
    }

    private static WorkerPool newPool(PlainDispatcherHost host) {
        TaskRunner runner = new TaskRunner(new CountingHooks(), new Decorations(),
                new Instrumentation("test", host.clock, -1));
        ThreadFactory daemons = runnable -> {
            Thread thread = new Thread(runnable, "leader-wake-up-test-worker");
            thread.setDaemon(true);
            return thread;
        };
        return new WorkerPool("test", host, runner, new OrderGate(), new PoolSettings(1, daemons), 0);
    }
}
