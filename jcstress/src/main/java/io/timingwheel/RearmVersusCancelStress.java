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
 * Race site: {@code ScheduledTask} "STARTED -> NEW: a periodic run that ended well" against "STARTED -> CANCELLED".
 * A periodic task's run has ended well and its worker re-arms it ({@code resetForNextRun}) while another thread
 * cancels it. A cancel that returns true must stop the series: the task must not be NEW (due to run again) after it.
 *
 * <p>Result: (the re-arm succeeded, cancel returned true, the task is pending again afterwards).
 */
@JCStressTest
@Description("a periodic task's re-arm after a run against a cancel")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "re-armed, then cancelled while pending: no further run")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "cancelled during the run: the re-arm fails, no further run")
@Outcome(id = ".*, 1, 1", expect = FORBIDDEN, desc = "cancel returned true, yet the task is due to run again")
@Outcome(expect = FORBIDDEN, desc = "a cancel of an unfinished task must succeed")
@State
public class RearmVersusCancelStress {
    private final PeriodicTask task = new PeriodicTask(new StressTaskHost(), () -> { }, 1_000, 10);

    public RearmVersusCancelStress() {
        TaskRunner.claim(task, true); // the run has started; the actors act as it ends
    }

    @Actor
    public void worker(III_Result r) {
        r.r1 = task.resetForNextRun() ? 1 : 0;
    }

    @Actor
    public void canceller(III_Result r) {
        r.r2 = task.cancel(false) ? 1 : 0;
    }

    @Arbiter
    public void arbiter(III_Result r) {
        r.r3 = task.isPending() ? 1 : 0;
    }
}
