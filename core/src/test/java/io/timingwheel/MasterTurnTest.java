package io.timingwheel;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One turn of the master ({@code MasterLoop.drainAndHandOver}) driven step by step, with a time the test sets and no
 * master thread: what it drains and how far it opens the order gate.
 */
class MasterTurnTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    /** The master's host: a time the test sets, and the rest as the pool's plain host (a running executor). */
    private static final class SetTimeHost extends PlainDispatcherHost implements MasterHost {
        long time;

        @Override
        public long now() {
            return time;
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

    /**
     * A turn that stops short of its mark, at a node its producer has claimed but not yet written (its deadline unknown:
     * it may be due before the turn's announcement), leaves the gate where the turns before left it; the turn that
     * drains that node opens it up to the node's deadline.
     */
    @Test
    void aTurnThatStopsShortOfItsMarkDoesNotOpenTheGateForWhatItHasNotDrained() {
        SetTimeHost host = new SetTimeHost();
        OrderGate gate = new OrderGate();
        PlainDispatcherHost poolHost = new PlainDispatcherHost();
        TaskRunner runner = new TaskRunner(new CountingHooks(), new Decorations(),
                new Instrumentation("test", poolHost.clock, -1));
        WorkerPool pool = new WorkerPool("test", poolHost, runner, gate, new PoolSettings(1, Thread::new));
        MasterLoop master = new MasterLoop("test", host, new TimingWheel<>(MS, 64), pool, gate,
                WorkerPool.HAND_OVER_AHEAD_NANOS, WorkerPool.STRAIGHT_REACH_NANOS, MS, false, null);
        master.drainAndHandOver(0); // announces the straight reach, 50 ms, and drains nothing

        RunnableTask far = new RunnableTask(new PlainTaskHost(), () -> { }, 10_000 * MS);
        master.inbox().offerTo(0, far);
        FetchAddQueue<ScheduledTask<?>> stripe = master.inbox().stripe(0);
        stripe.head.claimed++; // the next offer's claim, whose node is not written yet
        host.time = 100 * MS;
        master.drainAndHandOver(host.time); // announces 150 ms, drains the far task, stops at the claimed slot
        assertTrue(far.isInWheel(), "the written node before the mark was drained");
        assertFalse(gate.isOpenFor(120 * MS), "the gate stays short of what the turn announced: a node before the"
                + " mark is not drained yet, and it may be due at 120 ms");

        RunnableTask soon = new RunnableTask(new PlainTaskHost(), () -> { }, 120 * MS);
        stripe.head.slots[1] = soon; // the producer's write
        host.time = 101 * MS;
        master.drainAndHandOver(host.time);
        assertTrue(soon.isInWheel(), "drained now");
        assertTrue(gate.isOpenFor(120 * MS - 1), "open up to the first deadline the master holds");
        assertFalse(gate.isOpenFor(120 * MS), "and not past it: it is not handed over yet");
    }
}
