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
 * Race sites: {@code ScheduledTask} (one CAS on NEW decides) and {@code ExternalDispatcher} ("the claim is a CAS on
 * the task's state, and so is shutdownNow's return of a task, so exactly one of them wins"). A worker claims a task
 * for a run with hooks ({@code claim}, then {@code run}) while shutdownNow returns it ({@code markReturned}).
 *
 * <p>Result: (the worker's claim succeeded, shutdownNow returned the task, the action ran).
 */
@JCStressTest
@Description("shutdownNow's return of a task against a worker's claim of it")
@Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "the worker claimed it first and ran it; shutdownNow does not return it")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "shutdownNow returned it first; the worker leaves it, it never runs")
@Outcome(id = "1, 1, .*", expect = FORBIDDEN, desc = "both own it: returned and run")
@Outcome(id = "0, 0, .*", expect = FORBIDDEN, desc = "neither owns it: the task is lost")
@Outcome(expect = FORBIDDEN, desc = "a claimed task that did not run, or a run without a claim")
@State
public class ReturnVersusClaimStress {
    private int runs;
    private final RunnableTask task = new RunnableTask(new StressTaskHost(), () -> runs++, 0);

    @Actor
    public void worker(III_Result r) {
        if (TaskRunner.claim(task, false)) {
            r.r1 = 1;
            task.run();
        }
    }

    @Actor
    public void shutdownNow(III_Result r) {
        r.r2 = task.markReturned() ? 1 : 0;
    }

    @Arbiter
    public void arbiter(III_Result r) {
        r.r3 = runs;
    }
}
