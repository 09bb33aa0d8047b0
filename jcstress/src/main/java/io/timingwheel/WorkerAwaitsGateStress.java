package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Race site: {@code OrderGate.enterWait} against {@code OrderGate.open} and {@code hasWaiters} (the order gate's class
 * comment: "One that finds the gate shut registers and reads it again before it waits; the master reads the count of
 * such workers after every opening and signals them: one of the two sees the other"), and
 * {@code OrderGate.wakeWaiters}, which reads the count and has the pool signal its waiting workers. The real {@link OrderGate} and {@link WorkerPool} (no thread
 * of it runs): a task published due at 5 ns has shut the gate for a worker's task due at 10 ns; the master, having
 * handed over everything due before 20 ns and drained past the publication, opens it to 20 ns, then tells the pool.
 *
 * <p>The wait itself blocks, so it is not run here: the worker's side is its step up to the wait. That the master's
 * signal cannot fall between the worker's read and its wait is the pool's lock (the wait releases it, the signal
 * takes it), which this test does not exercise.
 *
 * <p>Result: (the worker found the gate still shut and would wait: 1, or open: 0; the master saw a waiting worker and
 * would signal: 1, or saw none: 0).
 */
@JCStressTest
@Description("a worker registering to wait for the order gate against the master opening it")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the gate opened first: the worker takes its task, the master had no one to signal")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "both saw the other: the worker takes its task; a spare signal")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the worker registered first: it waits, the master signals it")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "a lost signal: the worker waits for a gate that has opened, and the master saw no one to wake")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class WorkerAwaitsGateStress {
    private static final long TASK_DEADLINE = 10;
    private static final long HANDED_THROUGH = 20;

    private final StressDispatcherHost host = new StressDispatcherHost();
    private final WorkerPool pool = host.workerPool(r -> new Thread(r));
    private final OrderGate gate = host.gate;
    private final long lowerings;

    public WorkerAwaitsGateStress() {
        gate.published(5); // a task due at 5 ns reached the master: the gate stands at 5
        lowerings = gate.state().lowerings;
    }

    @Actor
    public void worker(II_Result r) {
        r.r1 = gate.enterWait(TASK_DEADLINE) ? 0 : 1;
    }

    @Actor
    public void master(II_Result r) {
        gate.open(HANDED_THROUGH, TimingWheel.NONE, lowerings); // the 5 ns task was drained: the floor is lifted
        r.r2 = gate.wakeWaiters() ? 1 : 0;
    }
}
