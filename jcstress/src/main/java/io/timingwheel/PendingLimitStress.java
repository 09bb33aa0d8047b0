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
 * Race site: {@code PendingLimit} "a place is reserved before a task is published and released when the task leaves
 * NEW", and "a CAS loop rather than add-then-undo, so the count never shows more". Under a limit of one, with one
 * pending task: a producer reserves a place while another thread cancels that task (which releases its place) and
 * then reserves one itself. Exactly one of the two must get the one free place.
 *
 * <p>Result: (the producer got a place, the cancelling thread got a place, the count afterwards).
 */
@JCStressTest
@Description("a reservation under a limit of one against the cancel of the pending task and a second reservation")
@Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "the producer took the released place")
@Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "the producer came before the release; the canceller took the place")
@Outcome(id = "1, 1, .*", expect = FORBIDDEN, desc = "two places under a limit of one")
@Outcome(id = "0, 0, .*", expect = FORBIDDEN, desc = "a free place that nobody got: the release was lost")
@Outcome(expect = FORBIDDEN, desc = "the count does not match the places taken")
@State
public class PendingLimitStress {
    private final PendingLimit limit = new PendingLimit(1);
    private final RunnableTask pending = new RunnableTask(new StressTaskHost(limit), () -> { }, 1_000);

    public PendingLimitStress() {
        limit.reserve(); // the pending task's place
    }

    @Actor
    public void producer(III_Result r) {
        r.r1 = limit.reserve() ? 1 : 0;
    }

    @Actor
    public void cancellerThenProducer(III_Result r) {
        pending.cancel(false);
        r.r2 = limit.reserve() ? 1 : 0;
    }

    @Arbiter
    public void arbiter(III_Result r) {
        r.r3 = (int) limit.count();
    }
}
