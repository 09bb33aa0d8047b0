package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.J_Result;

/**
 * Race site: {@code WorkerPool.dispatchAll} publishing a hand-over without the lock and opening the order gate,
 * against {@code WorkerPool.take} (the pool's "The master's hand-overs" comment: "a worker reads the gate before it
 * moves the published hand-over in, and the master publishes before it opens"). The real {@link WorkerPool} and
 * {@link OrderGate} (no thread of the pool runs). A task came straight, due at 1.4 s; the gate stands at 1.1 s (a task
 * due then reached the master). The master, its clock at 1 s, hands over a timer due at 1.2 s and opens the gate to
 * 1.9 s; the worker, whose clock reads 2 s (time has passed), takes its next task.
 *
 * <p>Result: the deadline of the task the worker took, or -1 if none.
 */
@JCStressTest
@Description("the master's hand-over published without the lock against a worker's take: the gate keeps the order")
@Outcome(id = "1200000000", expect = ACCEPTABLE, desc = "the worker found the hand-over and the gate open: it takes the timer first")
@Outcome(id = "-1", expect = ACCEPTABLE, desc = "the worker found the gate shut: it waits for the master's signal")
@Outcome(id = "1400000000", expect = FORBIDDEN, desc = "the task that came straight passed the earlier timer: the worker read the gate open but missed the hand-over")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class HandOverVersusTakeStress {
    private static final long STRAIGHT_DEADLINE = 1_400_000_000;
    private static final long TIMER_DEADLINE = 1_200_000_000;
    private static final long GATE_SHUT_AT = 1_100_000_000;
    private static final long OPENED_TO = 1_900_000_000;

    private final StressDispatcherHost host = new StressDispatcherHost();
    private final WorkerPool pool = host.workerPoolWithoutThreads();
    private final HandOver handOver = new HandOver(host.gate, () -> { });

    public HandOverVersusTakeStress() {
        host.gate.published(GATE_SHUT_AT);
        pool.dispatch(new RunnableTask(new StressTaskHost(), () -> { }, STRAIGHT_DEADLINE));
        handOver.accept(new RunnableTask(new StressTaskHost(), () -> { }, TIMER_DEADLINE));
        // the task that shut the gate was drained: the floor is lifted
        handOver.opening(OPENED_TO, TimingWheel.NONE, host.gate.state().lowerings);
    }

    @Actor
    public void worker(J_Result r) {
        host.laterThread = Thread.currentThread();
        r.r1 = pool.takeForStress();
    }

    @Actor
    public void master() {
        pool.dispatchAll(handOver);
    }
}
