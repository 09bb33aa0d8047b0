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
 * Race site: {@code WorkerPool.dispatchAll} publishing a hand-over without the lock against a worker's step into a
 * spin for a deadline near ({@code WorkerPool.beginSpin}: it reads the count of publications, looks at the arrivals
 * and the published hand-over as a worker about to wait does, then leads the wait uncounted). The spinner is not
 * counted as waiting, so the master, whose hand-over holds no task due now, wakes nobody: the worker must either find
 * the hand-over in its look, or see the count of publications move while it spins. The real {@link WorkerPool} (no
 * thread of it runs): the hand-over's timer is due before the deadline the worker spins for.
 *
 * <p>The spin itself loops, so it is not run here: the arbiter makes one look of it, after both actors.
 *
 * <p>Result: (the worker found the hand-over in its look: 0, or would spin: 1; the spin, looking once the master is
 * done, ends: 1, or goes on: 0; 1 too when the worker does not spin).
 */
@JCStressTest
@Description("the master's hand-over published without the lock against a worker stepping into a spin")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the hand-over came first: the worker found it and does not spin")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the worker began to spin first: the publication ends the spin")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "a hand-over missed: the worker spins on past its timer")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class PublicationVersusSpinStress {
    private static final long TIMER_DEADLINE = 1_000_020_000;
    private static final long SPUN_FOR = 1_000_040_000;

    private final StressDispatcherHost host = new StressDispatcherHost();
    private final WorkerPool pool = host.workerPoolWithoutThreads();
    private final HandOver handOver = new HandOver(host.gate, () -> { });
    private long claims;

    public PublicationVersusSpinStress() {
        handOver.accept(new RunnableTask(new StressTaskHost(), () -> { }, TIMER_DEADLINE));
        handOver.opening(TimingWheel.NONE, TimingWheel.NONE, 0);
    }

    @Actor
    public void worker(II_Result r) {
        claims = pool.beginSpinForStress(SPUN_FOR);
        r.r1 = claims < 0 ? 0 : 1;
    }

    @Actor
    public void master() {
        pool.dispatchAll(handOver);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r2 = claims < 0 || pool.spinShouldEndForStress(claims) ? 1 : 0;
    }
}
