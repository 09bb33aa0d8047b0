package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Race site: {@code WorkerPool.dispatch} against a worker's step into a spin for a deadline near
 * ({@code WorkerPool.beginSpin}: it reads the arrivals' claims, looks at the arrivals as a worker about to wait does,
 * then leads the wait uncounted). A spinning worker is not counted as waiting, so the publisher of a task due now
 * (here, due before the spin ends) may wake nobody: the worker must either find the task in its look, or see its claim
 * in the count it watches while it spins. The real {@link WorkerPool} (no thread of it runs).
 *
 * <p>The spin itself loops, so it is not run here: the arbiter makes one look of it, after both actors, when the
 * publisher's claim is over.
 *
 * <p>Result: (the worker found the task in its look: 0, or would spin: 1; the spin, looking once the publisher is done,
 * ends: 1, or goes on: 0; 1 too when the worker does not spin).
 */
@JCStressTest
@Description("a task arriving lock-free, due now, against a worker stepping into a spin for its deadline")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the task arrived first: the worker found it and does not spin")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the worker began to spin first: the claim ends the spin")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "a task missed: the worker spins on past it, and no one woke it")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class ArrivalVersusSpinStress {
    private static final long TASK_DEADLINE = 1_000_000_000;
    private static final long SPUN_FOR = 1_000_040_000;

    private final StressDispatcherHost host = new StressDispatcherHost();
    private final WorkerPool pool = host.workerPoolWithoutThreads();
    private final RunnableTask task = new RunnableTask(new StressTaskHost(), () -> { }, TASK_DEADLINE);
    private long claims;

    @Actor
    public void worker(II_Result r) {
        claims = pool.beginSpinForStress(SPUN_FOR);
        r.r1 = claims < 0 ? 0 : 1;
    }

    @Actor
    public void publisher() {
        pool.dispatch(task);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r2 = claims < 0 || pool.spinShouldEndForStress(claims) ? 1 : 0;
    }
}
