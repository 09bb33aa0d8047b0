package io.timingwheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The leader's spin for a deadline near ({@code WorkerPool.spinUntil}): it spins only for a deadline within the pool's
 * spin, parks for a later one, and, not counted as waiting, watches for what would otherwise signal it: a publisher's
 * task, the master's published hand-over, a due task the master queues under the lock, the pool's closing; and a turn
 * robbed of its core (another thread held it for a slice) sends the leader to park for near deadlines for a while, and
 * a follower takes what is due in the place of a leader held off its core, spinning or parked. The pools here spin for
 * deadlines up to a minute away, so a spin that missed any of them would outlast the test's wait.
 */
class DeadlineSpinTest {
    private static final long SPIN = TimeUnit.SECONDS.toNanos(60);
    private static final long TOLERANCE = TimeUnit.MICROSECONDS.toNanos(100);

    /** How far the deadline a test's leader spins for is: beyond the test's waits, so only a look ends the spin. */
    private static final long SPUN_FOR = TimeUnit.SECONDS.toNanos(50);

    /** For the back-off's test: a robbed turn, and the back-off after it, in the host's time (its clock jumps). */
    private static final long ROBBED_TURN = TimeUnit.SECONDS.toNanos(10);
    private static final long BACK_OFF = TimeUnit.SECONDS.toNanos(20);

    /** For the deputy's test: a robbed turn in real time, far longer than any yield, and the spin's deadline. */
    private static final long REAL_ROBBED_TURN = TimeUnit.SECONDS.toNanos(1);
    private static final long SPUN_FOR_BRIEFLY = TimeUnit.MILLISECONDS.toNanos(500);
    private static final long PARKED_FOR = TimeUnit.SECONDS.toNanos(2);
    private static final long LEADER_LATE_BY = TimeUnit.SECONDS.toNanos(60);

    private final JumpingHost host = new JumpingHost();
    private final AtomicReference<Thread> workerThread = new AtomicReference<>();
    private final List<Thread> workerThreads = new CopyOnWriteArrayList<>();

    @Test
    void theLeaderParksForADeadlineBeyondTheSpinAndSpinsForOneWithinIt() throws Exception {
        WorkerPool pool = newPool(TimeUnit.SECONDS.toNanos(10));
        RunnableTask far = lead(pool, TimeUnit.SECONDS.toNanos(30));
        TimingWheelExecutorTest.await("the leader parks for a deadline 30 s away",
                () -> workerThread.get().getState() == Thread.State.TIMED_WAITING);

        RunnableTask near = task(host.now() + TimeUnit.SECONDS.toNanos(5), () -> { });
        assertTrue(pool.dispatch(near)); // due before the leader wakes: its publisher wakes it
        TimingWheelExecutorTest.await("the leader leads the wait for the deadline 5 s away", () -> leads(pool, near));
        assertEquals(Thread.State.RUNNABLE, workerThread.get().getState(), "it spins for it");

        far.cancel(false);
        near.cancel(false);
        close(pool, near);
    }

    @Test
    void aSpinningLeaderRunsATaskDueNowAsItArrives() throws Exception {
        WorkerPool pool = newPool(SPIN);
        CountDownLatch ran = new CountDownLatch(1);
        RunnableTask spunFor = lead(pool, SPUN_FOR);
        assertEquals(Thread.State.RUNNABLE, workerThread.get().getState(), "it spins");

        // Its publisher wakes no one: no worker is counted as waiting. The spinner sees its claim.
        assertTrue(pool.dispatch(task(host.now(), ran::countDown)));
        assertTrue(ran.await(10, TimeUnit.SECONDS), "the spinning leader saw the arrival and ran it");
        assertTrue(spunFor.isPending(), "the task it spins for is not due");
        TimingWheelExecutorTest.await("it spins for its deadline again", () -> leads(pool, spunFor));

        spunFor.cancel(false);
        close(pool, spunFor);
    }

    @Test
    void aSpinningLeaderMovesInTheMastersPublishedHandOver() throws Exception {
        WorkerPool pool = newPool(SPIN);
        RunnableTask spunFor = lead(pool, SPUN_FOR);

        // Not due, and small: the master publishes it without the lock and wakes nobody, as no worker is counted as
        // waiting. The spinner moves it in and spins for its earlier deadline.
        RunnableTask handedOver = task(host.now() + SPUN_FOR / 2, () -> { });
        pool.dispatchAll(handOverOf(handedOver));
        TimingWheelExecutorTest.await("the leader spins for the hand-over's earlier deadline",
                () -> leads(pool, handedOver));

        spunFor.cancel(false);
        handedOver.cancel(false);
        close(pool, handedOver);
    }

    @Test
    void aSpinningLeaderRunsADueTaskTheMasterQueuesUnderTheLock() throws Exception {
        WorkerPool pool = newPool(SPIN);
        CountDownLatch ran = new CountDownLatch(1);
        RunnableTask spunFor = lead(pool, SPUN_FOR);

        pool.dispatchAll(handOverOf(task(host.now(), ran::countDown))); // due: queued under the lock, no publication
        assertTrue(ran.await(10, TimeUnit.SECONDS), "the master's queuing told the spinning leader, which ran it");

        spunFor.cancel(false);
        close(pool, spunFor);
    }

    @Test
    void aLeaderRobbedOfItsCoreParksForNearDeadlinesUntilTheBackOffIsOver() throws Exception {
        WorkerPool pool = newPool(SPIN, ROBBED_TURN, BACK_OFF);
        RunnableTask spunFor = lead(pool, SPUN_FOR);
        assertEquals(Thread.State.RUNNABLE, workerThread.get().getState(), "it spins");

        // A turn of the spin that took a robbed turn's length: the host's clock jumps while the leader spins.
        host.jump(ROBBED_TURN + TimeUnit.SECONDS.toNanos(1));
        TimingWheelExecutorTest.await("the robbed leader parks for the same near deadline",
                () -> workerThread.get().getState() == Thread.State.TIMED_WAITING && leads(pool, spunFor));

        // The back-off is over: for a task due before the leader wakes, its publisher wakes it, and it spins again.
        host.jump(BACK_OFF + TimeUnit.SECONDS.toNanos(1));
        RunnableTask nearer = task(host.now() + TimeUnit.SECONDS.toNanos(5), () -> { });
        assertTrue(pool.dispatch(nearer));
        TimingWheelExecutorTest.await("the leader leads the wait for the nearer deadline", () -> leads(pool, nearer));
        assertEquals(Thread.State.RUNNABLE, workerThread.get().getState(), "it spins for it");

        spunFor.cancel(false);
        nearer.cancel(false);
        close(pool, nearer);
    }

    @Test
    void aFollowerTakesTheDueTaskOfASpinningLeaderHeldOffItsCore() throws Exception {
        WorkerPool pool = newPool(SPIN, REAL_ROBBED_TURN, BACK_OFF, 2);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);
        RunnableTask spunFor = task(host.now() + SPUN_FOR_BRIEFLY, () -> {
            ranOn.set(Thread.currentThread());
            ran.countDown();
        });
        assertTrue(pool.dispatch(spunFor));
        pool.prestart();
        pool.prestart();
        TimingWheelExecutorTest.await("one worker spins for the deadline, the other follows",
                () -> workerThreads.size() == 2 && leads(pool, spunFor) && spinning() != null);
        Thread spinner = spinning();

        // The spinner is held off its core, as by a compiler thread's slice: its next look at the clock waits. Only a
        // follower can run the task now: the one that waits no longer than a robbed turn past the spin's deadline.
        host.stall(spinner);
        try {
            assertTrue(ran.await(10, TimeUnit.SECONDS), "a follower ran the task the held leader spun for");
            assertNotSame(spinner, ranOn.get(), "not the held leader");
        } finally {
            host.release();
        }
        close(pool, spunFor);
    }

    @Test
    void aFollowerTakesTheDueTaskOfAParkedLeaderThatComesBackLate() throws Exception {
        WorkerPool pool = newPool(0, REAL_ROBBED_TURN, BACK_OFF, 2); // no spin: the leader parks
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);
        RunnableTask parkedFor = task(host.now() + PARKED_FOR, () -> {
            ranOn.set(Thread.currentThread());
            ran.countDown();
        });
        // The first worker's clock runs behind: it comes back from its park far past the deadline, as a leader whose
        // wake-up is queued on a core another thread holds does, a slice later.
        host.lagFirstOf(workerThreads, LEADER_LATE_BY);
        assertTrue(pool.dispatch(parkedFor));
        pool.prestart();
        TimingWheelExecutorTest.await("the first worker leads the wait for the deadline", () -> leads(pool, parkedFor));
        pool.prestart(); // the second follows

        assertTrue(ran.await(10, TimeUnit.SECONDS), "a follower ran the task the late leader waited for");
        assertSame(workerThreads.get(1), ranOn.get(), "the follower, not the late leader");
        close(pool, parkedFor);
    }

    /** @return the one worker that runs while the other waits, or null if that is not so */
    private Thread spinning() {
        Thread runnable = null;
        for (Thread thread : workerThreads) {
            Thread.State state = thread.getState();
            if (state == Thread.State.RUNNABLE) {
                if (runnable != null) {
                    return null;
                }
                runnable = thread;
            } else if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
                return null;
            }
        }
        return runnable;
    }

    /** Queues a task due {@code nanos} from now and starts the worker: returns once the worker leads the wait for it. */
    private RunnableTask lead(WorkerPool pool, long nanos) throws Exception {
        RunnableTask task = task(host.now() + nanos, () -> { });
        assertTrue(pool.dispatch(task));
        pool.prestart();
        TimingWheelExecutorTest.await("the worker leads the wait", () -> leads(pool, task));
        return task;
    }

    /** @return whether a worker leads the wait for {@code task}'s deadline, and for no earlier one */
    private static boolean leads(WorkerPool pool, RunnableTask task) {
        return pool.deadlineWaitOverdue(() -> task.deadline + TOLERANCE + 1, TOLERANCE)
                && !pool.deadlineWaitOverdue(() -> task.deadline + TOLERANCE, TOLERANCE);
    }

    /** The pool closes, its tasks cancelled: returns once the leader has left its wait for {@code last}. */
    private static void close(WorkerPool pool, RunnableTask last) throws Exception {
        // BUSY until the worker has booked the end of a run it just made
        TimingWheelExecutorTest.await("the pool closes",
                () -> pool.close(() -> true) == Dispatcher.Closing.THREADS_LEAVING);
        TimingWheelExecutorTest.await("the leader has left its wait, told by the closing",
                () -> !pool.deadlineWaitOverdue(() -> last.deadline + TimeUnit.SECONDS.toNanos(1), TOLERANCE));
    }

    private static RunnableTask task(long deadline, Runnable action) {
        return new RunnableTask(new PlainTaskHost(), action, deadline);
    }

    private static HandOver handOverOf(RunnableTask task) {
        HandOver handOver = new HandOver(new OrderGate(), () -> { });
        handOver.accept(task);
        return handOver;
    }

    /** A pool whose spin is never robbed: a turn of a real yield, however long on a loaded machine, counts as one. */
    private WorkerPool newPool(long spinNanos) {
        return newPool(spinNanos, Long.MAX_VALUE, BACK_OFF);
    }

    private WorkerPool newPool(long spinNanos, long robbedTurnNanos, long backOffNanos) {
        return newPool(spinNanos, robbedTurnNanos, backOffNanos, 1);
    }

    private WorkerPool newPool(long spinNanos, long robbedTurnNanos, long backOffNanos, int workers) {
        TaskRunner runner = new TaskRunner(new CountingHooks(), new Decorations(),
                new Instrumentation("test", host.clock, -1));
        return new WorkerPool("test", host, runner, new OrderGate(), new PoolSettings(workers, runnable -> {
            Thread thread = new Thread(runnable, "deadline-spin-test-worker");
            thread.setDaemon(true);
            workerThread.set(thread);
            workerThreads.add(thread);
            return thread;
        }), spinNanos, robbedTurnNanos, backOffNanos);
    }

    /**
     * The real clock's time plus the jumps a test made; a stalled thread's look at it waits until released, and the
     * first of a list of threads sees it run behind.
     */
    private static final class JumpingHost extends PlainDispatcherHost {
        private volatile long jumped;
        private volatile Thread stalled;
        private final CountDownLatch released = new CountDownLatch(1);
        private volatile List<Thread> lagging = List.of();
        private volatile long lagNanos;

        void jump(long nanos) {
            jumped += nanos; // the test's thread alone jumps
        }

        void stall(Thread thread) {
            stalled = thread;
        }

        void release() {
            released.countDown();
        }

        /** The first thread of {@code threads} (a list filled later, as threads are made) sees the clock run behind. */
        void lagFirstOf(List<Thread> threads, long nanos) {
            lagNanos = nanos;
            lagging = threads;
        }

        @Override
        public long now() {
            Thread current = Thread.currentThread();
            if (current == stalled) {
                Uninterruptibly.await(released::await, () -> { });
            }
            List<Thread> threads = lagging;
            long lag = !threads.isEmpty() && threads.get(0) == current ? lagNanos : 0;
            return super.now() + jumped - lag;
        }
    }
}
