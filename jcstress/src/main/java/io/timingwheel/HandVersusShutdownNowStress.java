package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Race site: {@code WorkerPool}'s "lone worker's hand" ("a task in a hand is not claimed: it stays pending, and is
 * claimed with a CAS on its state only as the worker starts it ... once the executor stops, the worker starts nothing
 * more from its hand and leaves the rest to the drain"). A real executor with one worker, held in a first task while
 * three tasks due at once queue behind it; the worker is let go (it takes the first of the three and the other two into
 * its hand) against {@code shutdownNow()}: each of the three is either run or returned, never both, never neither.
 *
 * <p>Result: (how many of the three ran, how many shutdownNow returned, how many were both or neither; 9, 9, 9 if
 * the executor did not terminate in 10 s, or in the milliseconds of the system property
 * {@code timingwheel.stress.terminationWaitMillis}: a mutation that strands tasks makes every such sample wait that
 * long, so checks of mutations set it lower).
 */
@JCStressTest
@Description("a lone worker running its hand of due tasks against shutdownNow()")
@Outcome(id = "3, 0, 0", expect = ACCEPTABLE, desc = "all three ran before the stop")
@Outcome(id = "2, 1, 0", expect = ACCEPTABLE, desc = "two ran, the last was returned")
@Outcome(id = "1, 2, 0", expect = ACCEPTABLE, desc = "one ran, two were returned")
@Outcome(id = "0, 3, 0", expect = ACCEPTABLE, desc = "the stop came first: all three returned")
@Outcome(id = "9, 9, 9", expect = FORBIDDEN, desc = "the executor never terminated: a task stranded")
@Outcome(expect = FORBIDDEN, desc = "a task run and returned, or lost")
@State
public class HandVersusShutdownNowStress {
    private static final int TASKS = 3;
    private static final long TERMINATION_WAIT_MILLIS =
            Long.getLong("timingwheel.stress.terminationWaitMillis", 10_000);

    private final TimingWheelExecutor executor = new TimingWheelExecutor(1);
    private final AtomicIntegerArray ran = new AtomicIntegerArray(TASKS);
    private final Future<?>[] futures = new Future<?>[TASKS];
    private volatile boolean holding = true;
    private volatile boolean held;
    private List<Runnable> returned;

    /** The worker is held in a first task (shutdownNow's interrupt must not free it) as the three queue behind it. */
    public HandVersusShutdownNowStress() {
        executor.execute(() -> {
            held = true;
            while (holding) {
                Thread.onSpinWait();
            }
        });
        while (!held) {
            Thread.onSpinWait();
        }
        for (int i = 0; i < TASKS; i++) {
            int index = i;
            futures[i] = executor.submit(() -> ran.incrementAndGet(index));
        }
    }

    @Actor
    public void letTheWorkerGo() {
        holding = false;
    }

    @Actor
    public void shutdownNow() {
        returned = executor.shutdownNow();
    }

    @Arbiter
    public void arbiter(III_Result r) {
        holding = false;
        boolean terminated = StressTermination.awaited(executor, TERMINATION_WAIT_MILLIS);
        if (!terminated) {
            r.r1 = r.r2 = r.r3 = 9;
            return;
        }
        int runs = 0;
        int returns = 0;
        int wrong = 0;
        for (int i = 0; i < TASKS; i++) {
            boolean wasRun = ran.get(i) == 1;
            boolean wasReturned = returned.contains(futures[i]);
            runs += wasRun ? 1 : 0;
            returns += wasReturned ? 1 : 0;
            wrong += wasRun == wasReturned || ran.get(i) > 1 ? 1 : 0;
        }
        r.r1 = runs;
        r.r2 = returns;
        r.r3 = wrong;
    }
}
