package io.timingwheel;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The master's early turn ({@code MasterLoop.turnEarlyIfPlannedBy}): a worker about to wait for a deadline offers the
 * master to take its next turn now, and the master, parked for a turn planned within that reach, wakes for it; a turn
 * planned later is left alone.
 */
class EarlyTurnTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    /** A worker that starts to lead a wait offers the master the turns it planned up to the reach from then. */
    @Test
    void aWorkerAboutToWaitForADeadlineOffersTheMasterItsTurn() throws Exception {
        long[] offered = {TimingWheel.NONE};
        PlainDispatcherHost host = new PlainDispatcherHost() {
            @Override
            public void letMasterTurnBy(long time) {
                offered[0] = time;
            }
        };
        WorkerPool pool = new WorkerPool("test", host, newRunner(host), new OrderGate(),
                new PoolSettings(1, daemons("early-turn-test-worker")));
        long before = host.now();
        RunnableTask task = new RunnableTask(new PlainTaskHost(), () -> { }, before + TimeUnit.SECONDS.toNanos(30));
        assertTrue(pool.dispatch(task));
        pool.prestart();
        TimingWheelExecutorTest.await("the worker offers a turn", () -> offered[0] != TimingWheel.NONE);
        long after = host.now();
        assertTrue(offered[0] >= before + WorkerWaits.EARLY_TURN_REACH_NANOS
                && offered[0] <= after + WorkerWaits.EARLY_TURN_REACH_NANOS,
                "the turns planned up to the reach from the start of the wait: " + offered[0]);
        task.cancel(false);
        pool.close(() -> true);
    }

    /** The master parked for its next hand-over wakes for an offer that reaches its planned turn, and only then. */
    @Test
    void theMasterTakesAnOfferedTurnOnlyIfItIsPlannedWithinTheOffer() throws Exception {
        FrozenTimeHost host = new FrozenTimeHost();
        OrderGate gate = new OrderGate();
        WorkerPool pool = new WorkerPool("test", new PlainDispatcherHost(), newRunner(new PlainDispatcherHost()), gate,
                new PoolSettings(1, daemons("early-turn-test-worker")));
        long lead = WorkerPool.HAND_OVER_AHEAD_NANOS - WorkerPool.HAND_OVER_AHEAD_NANOS / 10;
        MasterLoop master = new MasterLoop("early-turn-test", host, new TimingWheel<>(MS, 64), pool, gate,
                WorkerPool.HAND_OVER_AHEAD_NANOS, WorkerPool.STRAIGHT_REACH_NANOS, MS, false, null);
        long deadline = 1_000_000 * MS; // far: the master parks for its next look at the wheel, long before it
        master.inbox().offerTo(0, new RunnableTask(new PlainTaskHost(), () -> { }, deadline));
        assertTrue(master.startThread());
        // After the turn that drained the task, a short look again (the lazy wake); then the long park.
        TimingWheelExecutorTest.await("the master parks for its turn",
                () -> master.plannedTurn() != TimingWheel.NONE && master.plannedTurn() > 1_000 * MS);
        long planned = master.plannedTurn();
        assertTrue(planned <= deadline - lead, "planned no later than the lead before the deadline: " + planned);

        // Each turn replaces the gate's state (the master announces on it): the same state, no turn.
        OrderGate.Horizon parked = gate.state();
        master.turnEarlyIfPlannedBy(planned - 1);
        assertTrue(master.plannedTurn() == planned && gate.state() == parked,
                "an offer short of the planned turn leaves the master parked");

        master.turnEarlyIfPlannedBy(planned);
        TimingWheelExecutorTest.await("the master wakes, turns and parks for the same turn again",
                () -> gate.state() != parked && master.plannedTurn() == planned);
    }

    /** The master's host: a time that stands still, so the master's planned turn is known; a running executor. */
    private static final class FrozenTimeHost extends PlainDispatcherHost implements MasterHost {
        @Override
        public long now() {
            return 0;
        }

        @Override
        public boolean workerDue() {
            return false;
        }

        @Override
        public boolean leaderOverdue(long now) {
            return false;
        }

        @Override
        public boolean workersStarved() {
            return false;
        }

        @Override
        public void retryWorkerStart() {
        }
    }

    private static TaskRunner newRunner(PlainDispatcherHost host) {
        return new TaskRunner(new CountingHooks(), new Decorations(), new Instrumentation("test", host.clock, -1));
    }

    private static ThreadFactory daemons(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
