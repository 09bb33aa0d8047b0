package io.timingwheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A worker that leads the wait for the first deadline says when that wait ends ({@link WorkerWaits}), and a publisher
 * of a task that comes straight reads it: it wakes the leader only for a task due before the leader wakes, or due now.
 */
class LeaderWakeUpTest {
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
                () -> pool.leaderWakeUpForTests() == sooner.deadline);

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
                () -> pool.leaderWakeUpForTests() == later.deadline);

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
                () -> pool.leaderWakeUpForTests() == due);
        return task;
    }

    /** The task is cancelled and the pool closes: returns once the leader has woken and left its wait. */
    private static void endTheWait(WorkerPool pool, RunnableTask task) throws Exception {
        task.cancel(false);
        assertEquals(Dispatcher.Closing.THREADS_LEAVING, pool.close(() -> true));
        TimingWheelExecutorTest.await("the leader has left its wait",
                () -> pool.leaderWakeUpForTests() == TimingWheel.NONE);
    }

    private static WorkerPool newPool(PlainDispatcherHost host) {
        TaskRunner runner = new TaskRunner(new CountingHooks(), new Decorations(),
                new Instrumentation("test", host.clock, -1));
        ThreadFactory daemons = runnable -> {
            Thread thread = new Thread(runnable, "leader-wake-up-test-worker");
            thread.setDaemon(true);
            return thread;
        };
        return new WorkerPool("test", host, runner, new OrderGate(), new PoolSettings(1, daemons));
    }
}
