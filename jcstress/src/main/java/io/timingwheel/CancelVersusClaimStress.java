package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Race site: {@code ScheduledTask} "the race between cancel, firing, taking back and shutdownNow is decided by one CAS
 * on NEW". A worker claims a due task and starts it with one CAS ({@code claimAndStart}, the path without hooks) and
 * runs it, while another thread cancels it.
 *
 * <p>Result: (the action ran, cancel returned true, how the cancel was reported: 1 as a cancel of a pending task,
 * 0 of a started one, -1 not at all).
 */
@JCStressTest
@Description("cancel(false) against a worker's claim-and-start of the same task")
@Outcome(id = "1, 0, -1", expect = ACCEPTABLE, desc = "the worker won and the run completed before the cancel: cancel returns false")
@Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "the cancel won while the task was pending: it never ran")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE_INTERESTING, desc = "the cancel came between the claim and the start of the action: it never runs")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE_INTERESTING, desc = "the cancel came while the action ran: it returns true, as FutureTask's does, and the run finishes")
@Outcome(id = "1, 1, 1", expect = FORBIDDEN, desc = "both: cancelled as pending, yet it ran")
@Outcome(id = "0, 0, -1", expect = FORBIDDEN, desc = "neither: the worker lost the claim, yet the cancel failed")
@Outcome(expect = FORBIDDEN, desc = "any other outcome breaks the one-owner rule")
@State
public class CancelVersusClaimStress {
    private final StressTaskHost host = new StressTaskHost();
    private int runs;
    private final RunnableTask task = new RunnableTask(host, () -> runs++, 0);

    @Actor
    public void worker() {
        if (TaskRunner.claim(task, true)) {
            task.runAction();
        }
    }

    @Actor
    public void canceller(III_Result r) {
        r.r2 = task.cancel(false) ? 1 : 0;
    }

    @Arbiter
    public void arbiter(III_Result r) {
        r.r1 = runs;
        r.r3 = host.cancelledWasPending;
    }
}
