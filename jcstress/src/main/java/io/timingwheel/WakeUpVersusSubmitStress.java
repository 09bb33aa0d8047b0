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
 * Race site: {@code OrderGate}, the master's sleep ("Before parking, the master announces the first deadline it holds,
 * looks at its inbox and commands once more, then confirms ... unless a publisher or wakeMaster replaced the state
 * meanwhile"), against a publisher ("offers its task to the inbox, then reads the state: a task due before announced
 * ... lowers open and floor to the task's deadline, and wakes the master if the state said it was asleep"). The real
 * {@link MasterLoop} ({@code confirmSleep}) and its {@code submit}: the master prepares to sleep until 1 ms while a
 * producer submits a task due at 10 ns. A turn at time 0, taken before the race, has drained the inbox.
 *
 * <p>Result: (the master confirmed its sleep; once both are done, the gate is open past the task; the state still
 * says the master sleeps). The producer unparks the master when its lowering replaced a state that said asleep.
 */
@JCStressTest
@Description("the master confirming its sleep against a producer submitting a task due before the wake-up time")
@Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "the master saw the task, or the producer's lowering made its confirmation fail: it does not sleep")
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "confirmed, then the producer lowered the gate to its task and unparked the master")
@Outcome(id = "1, 1, 1", expect = FORBIDDEN, desc = "a lost wake-up: the master sleeps to 1 ms with a task due at 10 ns in its inbox, and the gate is open past it")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class WakeUpVersusSubmitStress {
    private static final long WAKE = 1_000_000;
    private static final long DUE = 10;

    private final MasterLoop master = StressMasterHost.terminatingMaster();
    private final RunnableTask task = new RunnableTask(new StressTaskHost(), () -> { }, DUE);

    public WakeUpVersusSubmitStress() {
        master.drainAndHandOver(0);
    }

    @Actor
    public void master(III_Result r) {
        r.r1 = master.confirmSleep(WAKE, false) != null ? 1 : 0;
    }

    @Actor
    public void producer() {
        master.submit(task);
    }

    @Arbiter
    public void arbiter(III_Result r) {
        OrderGate.Horizon state = master.gate().state();
        r.r2 = state.open > DUE ? 1 : 0;
        r.r3 = state.asleep ? 1 : 0;
    }
}
