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
 * Race site: {@code ScheduledTask.letInterruptingCancelFinish} ("returns once no cancel(true) is between its CAS to
 * INTERRUPTING and the interrupt it then sends, so that the interrupt lands in this task's run ... and never in the
 * worker's next task") and {@code interruptRunner} (the runner published just after the CAS to STARTED). A worker
 * claims and runs a one-shot task, then clears its interrupt as it does before taking its next task, against
 * {@code cancel(true)}.
 *
 * <p>Result: (cancel returned true, the worker found itself interrupted when the run ended, the worker's thread was
 * interrupted after that: the interrupt leaked into whatever it runs next).
 */
@JCStressTest
@Description("cancel(true) against the end of the run it interrupts")
@Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "the run ended first: cancel returned false, nobody was interrupted")
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "cancelled before the worker claimed it: it never ran")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "cancelled while running: the interrupt landed in the run")
@Outcome(id = ".*, .*, 1", expect = FORBIDDEN, desc = "the interrupt came after the run ended: it reaches the worker's next task")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class InterruptingCancelVersusRunEndStress {
    private final RunnableTask task = new RunnableTask(new StressTaskHost(), () -> { }, 0);
    private volatile Thread worker;

    @Actor
    public void worker(III_Result r) {
        Thread.interrupted();
        worker = Thread.currentThread();
        if (TaskRunner.claim(task, true)) {
            task.runAction();
        }
        r.r2 = Thread.interrupted() ? 1 : 0; // the worker clears what is left before it takes its next task
    }

    @Actor
    public void cancel(III_Result r) {
        r.r1 = task.cancel(true) ? 1 : 0;
    }

    @Arbiter
    public void arbiter(III_Result r) {
        r.r3 = worker.isInterrupted() ? 1 : 0;
    }
}
