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
 * Race site: {@code WorkerPool.enterAwaitMaster} against {@code MasterLoop.openGateThrough} (the order gate, see
 * {@code WorkerPool}'s class comment): a worker held back by the gate raises the count of workers waiting for the
 * master, then reads the gate again, and waits only if it is still shut; the master moves the gate, then reads the
 * count and signals if it is not zero. Both are volatile, so one sees the other. The real {@link WorkerPool} and
 * {@link MasterLoop}: the worker wants a task due at 10 ns, the master's turn hands over everything due by 20 ns.
 *
 * <p>The wait itself blocks, so it is not run here: the worker's side is its step up to the wait. That the master's
 * signal cannot fall between the worker's read and its wait is the pool's lock (the wait releases it, the signal
 * takes it), which this test does not exercise.
 *
 * <p>Result: (the worker found the gate still shut and would wait: 1, or open: 0; the master saw a waiting worker and
 * signalled: 1, or saw none: 0).
 */
@JCStressTest
@Description("a worker registering to wait for the order gate against the master opening it")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the gate opened first: the worker takes its task, the master had no one to signal")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "both saw the other: the worker takes its task; a spare signal")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the worker registered first: it waits, the master signals it")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "a lost signal: the worker waits for a gate that has opened, and the master saw no one to wake")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class WorkerAwaitsMasterStress {
    private static final long TASK_DEADLINE = 10;
    private static final long TURN_TIME = 20;

    private final WorkerPool pool;
    private final MasterLoop master;

    public WorkerAwaitsMasterStress() {
        StressDispatcherHost host = new StressDispatcherHost();
        pool = host.workerPool(r -> new Thread(r)); // no thread is started: nothing is dispatched
        master = StressMasterHost.masterOver(pool);
        host.orderGate = master;
    }

    @Actor
    public void worker(II_Result r) {
        r.r1 = pool.enterAwaitMaster(TASK_DEADLINE) ? 1 : 0;
    }

    @Actor
    public void master(II_Result r) {
        r.r2 = master.openGateThrough(TURN_TIME) ? 1 : 0;
    }
}
