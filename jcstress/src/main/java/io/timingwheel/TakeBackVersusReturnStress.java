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
 * Race site: {@code ScheduledTask.takeBack} and {@code Lifecycle} note 1 ("if the task may no longer stay, the
 * producer takes it back by a CAS out of NEW and rejects it; if the CAS fails, shutdownNow's drain ... already owns
 * it"). A producer that published as the executor stopped takes its task back while shutdownNow's drain returns it
 * ({@code markReturned}): one CAS on NEW each, exactly one wins.
 *
 * <p>Result: (the producer took the task back and rejects it: 1; shutdownNow returned it: 1).
 */
@JCStressTest
@Description("a producer taking back its task published during shutdownNow against the drain returning it")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "taken back: the schedule throws RejectedExecutionException, shutdownNow does not list the task")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "returned by shutdownNow: the schedule was accepted")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "both: rejected to its caller and handed back by shutdownNow")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "neither: accepted, never run, never returned")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class TakeBackVersusReturnStress {
    private final RunnableTask task = new RunnableTask(new StressTaskHost(), () -> { }, 10);

    @Actor
    public void producer(II_Result r) {
        r.r1 = task.takeBack() ? 1 : 0;
    }

    @Actor
    public void shutdownNow(II_Result r) {
        r.r2 = task.markReturned() ? 1 : 0;
    }
}
