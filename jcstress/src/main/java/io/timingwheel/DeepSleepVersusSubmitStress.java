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
 * Race site: {@code OrderGate}, the master's deep sleep ("A deep sleep (prepared as such) is replaced by the first
 * publisher of work that can wait ...: its confirmation fails, or the master is woken once"), against a producer of
 * such work. The real {@link MasterLoop} ({@code confirmSleep}, deep) and its {@code submit}: the master prepares to
 * sleep deeply until its first deadline, 1 s, while a producer submits a task due at 2 s, after that deadline, which
 * lowers nothing. A turn at time 0, taken before the race, has drained the inbox. (Before the sleep word was one, the
 * deep sleep was a flag of its own, and a wake-up through it could be lost: see MasterLoop.sleep.)
 *
 * <p>Result: (the master confirmed its sleep; once both are done, the state still says the master sleeps).
 */
@JCStressTest
@Description("the master confirming a deep sleep against a producer submitting work that can wait")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the master saw the task, or the producer replaced the prepared state: it does not sleep")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "confirmed, then the producer woke the master out of its deep sleep, once")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "a lost wake-up: the master sleeps deeply with a task in its inbox that nobody will wake it for")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class DeepSleepVersusSubmitStress {
    private static final long FIRST_HELD = 1_000_000_000;
    private static final long DUE = 2_000_000_000;

    private final MasterLoop master = StressMasterHost.terminatingMaster();
    private final RunnableTask task = new RunnableTask(new StressTaskHost(), () -> { }, DUE);

    public DeepSleepVersusSubmitStress() {
        master.drainAndHandOver(0);
    }

    @Actor
    public void master(II_Result r) {
        r.r1 = master.confirmSleep(FIRST_HELD, true) != null ? 1 : 0;
    }

    @Actor
    public void producer() {
        master.submit(task);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r2 = master.gate().state().asleep ? 1 : 0;
    }
}
