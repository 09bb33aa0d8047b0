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
 * Race site: {@code MasterLoop}, "Sleeping and waking" ("Before parking, the master publishes wakeAt, then looks at
 * the inbox once more, then confirms wakeAt by a CAS that sets CONFIRMED; a producer offers and then reads wakeAt ...
 * no wake-up is lost"), and the order gate that reads the confirmed time ({@code hasHandedThrough}). The real
 * {@link MasterLoop}: the master prepares to sleep until 1 ms while a producer submits a task due at 10 ns.
 *
 * <p>Result: (the master confirmed its sleep, the confirmed time still stands once both are done: the master would
 * sleep to 1 ms, and the gate would let workers pass tasks due before it, although the task is in its inbox).
 */
@JCStressTest
@Description("the master confirming its sleep against a producer submitting a task due before the wake-up time")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the master saw the task, or the producer's swap made its confirmation fail: it does not sleep")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "confirmed, then the producer swapped the time to AWAKE and unparked the master")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "a lost wake-up: the master sleeps to 1 ms with a task due at 10 ns in its inbox, and the gate is open past it")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class WakeUpVersusSubmitStress {
    private static final long WAKE = 1_000_000;

    private final MasterLoop master = StressMasterHost.terminatingMaster();
    private final RunnableTask task = new RunnableTask(new StressTaskHost(), () -> { }, 10);

    @Actor
    public void master(II_Result r) {
        r.r1 = master.confirmSleepUntil(WAKE) ? 1 : 0;
    }

    @Actor
    public void producer() {
        master.submit(task);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r2 = master.hasHandedThrough(WAKE - 1) ? 1 : 0;
    }
}
