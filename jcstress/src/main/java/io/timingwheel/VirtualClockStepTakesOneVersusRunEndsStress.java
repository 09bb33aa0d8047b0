package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Race site: a step that gives the one task due at its time to the worker that takes the step
 * ({@code MasterLoop.stepTurn}, {@code WorkerPool.giveToStepper}: the task claimed and its worker counted active under
 * the pool's lock, within the step), against two runs that end at once and the advance's own first step. As
 * {@link VirtualClockStepVersusRunEndsStress}, but A1's B is due at 1 ms and A2's at 2 ms, and the clock advances
 * 3 ms: each step then has one task due, which the worker that steps takes itself, with nothing queued. A step that
 * saw that worker idle before its task had started would move time on, and the B would read a later time than its
 * deadline.
 *
 * <p>The scenario is {@link StressHeldRuns}'s. Result, read right after the advance returned: (B1 ran and read 1 ms: 1, ran and read another time: 2, did not
 * run: 0; B2 the same, with 2 ms; the advance returned: 1, gave up: 8). 9, 9, 9 if the executor did not start both As,
 * or did not terminate after {@code shutdownNow()}, in 10 s, or in the milliseconds of the system property
 * {@code timingwheel.stress.terminationWaitMillis}.
 */
@JCStressTest
@Description("a step that gives its one due task to the worker that steps, against two runs that end at once")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "both Bs ran within the advance, each at its deadline")
@Outcome(id = ".*, .*, 8", expect = FORBIDDEN, desc = "the advance gave up: no thread took a step it could take")
@Outcome(id = "9, 9, 9", expect = FORBIDDEN, desc = "an A never started, or the executor never terminated")
@Outcome(expect = FORBIDDEN, desc = "a B had not run when the advance returned, or read another time than 1 ms")
@State
public class VirtualClockStepTakesOneVersusRunEndsStress {
    private final StressHeldRuns runs = new StressHeldRuns(1, 2);

    @Actor
    public void letBothGo() {
        runs.letBothGo();
    }

    @Actor
    public void advance(III_Result r) {
        runs.advance(3, r);
    }

    @Arbiter
    public void arbiter(III_Result r) {
        runs.arbiter(r);
    }
}
