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
 * Race site: the settle signal of a stepped advance ({@code VirtualClock.advanceStepped}: the advance registered
 * before its first step; {@code VirtualSteps.step}: the worker that ends the last run under way, with nothing
 * left to take, steps; {@code MasterLoop.stepIfIdle}: the dispatcher's look under the turn lock; the step that finds
 * nothing due by the target wakes the advance), against two runs that end at once. A real executor with two workers on
 * a fresh {@link VirtualClock}; its tasks A1 and A2, due at time 0, have started and wait, one on each worker. The two
 * actors meet ({@link StressMeeting}), then one lets A1 and A2 go, one right after the other (each then schedules its
 * B with a delay of 1 ms, and ends, on its own worker), and the other calls {@code clock.advance(2 ms)}: time cannot
 * move while an A runs, so both Bs are due at 1 ms; one of the two workers, whichever ends last, or the advance's own
 * first step, must step to 1 ms; and once the advance returns both Bs have run and read exactly 1 ms. A step no thread
 * takes makes the advance give up after the real-time limit. (Two actors, not one per A: jcstress runs no test with
 * more actors than the machine has CPUs.)
 *
 * <p>The scenario is {@link StressHeldRuns}'s. Result, read right after the advance returned: (B1 ran and read 1 ms: 1, ran and read another time: 2, did not
 * run: 0; the same for B2; the advance returned: 1, gave up: 8). 9, 9, 9 if the executor did not start both As, or did
 * not terminate after {@code shutdownNow()}, in 10 s, or in the milliseconds of the system property
 * {@code timingwheel.stress.terminationWaitMillis}, which bounds every wait of a sample (the clock's real-time limit
 * too), so that checks of mutations that strand a step can set it lower.
 */
@JCStressTest
@Description("a stepped advance against two runs that end at once")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "both Bs ran within the advance, at their deadline, 1 ms")
@Outcome(id = ".*, .*, 8", expect = FORBIDDEN, desc = "the advance gave up: no thread took a step it could take")
@Outcome(id = "9, 9, 9", expect = FORBIDDEN, desc = "an A never started, or the executor never terminated")
@Outcome(expect = FORBIDDEN, desc = "a B had not run when the advance returned, or read another time than 1 ms")
@State
public class VirtualClockStepVersusRunEndsStress {
    private final StressHeldRuns runs = new StressHeldRuns(1, 1);

    @Actor
    public void letBothGo() {
        runs.letBothGo();
    }

    @Actor
    public void advance(III_Result r) {
        runs.advance(2, r);
    }

    @Arbiter
    public void arbiter(III_Result r) {
        runs.arbiter(r);
    }
}
