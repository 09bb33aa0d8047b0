package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.ArrayList;
import java.util.List;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Race site: {@code ExternalDispatcher} ("a thread that finds the executor stopping leaves its task where it is, for
 * shutdownNow to return"; {@code runHandedOver}): a thread of the user's executor starts a task handed over to it,
 * while {@code shutdownNow} moves the run state to STOP and drains the dispatcher's waiting tasks. The real
 * {@link ExternalDispatcher}; the executor it hands to keeps the runnable, which the first actor runs.
 *
 * <p>Result: (the task's action ran, shutdownNow returned the task, the task was cancelled).
 */
@JCStressTest
@Description("an external executor's thread starting a handed-over task against shutdownNow's drain of the dispatcher")
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "the thread claimed it first and ran it; shutdownNow does not return it")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "shutdownNow returned it; the thread left it alone, it never runs")
@Outcome(id = "1, 1, .*", expect = FORBIDDEN, desc = "both: run and returned")
@Outcome(id = "0, 0, 1", expect = FORBIDDEN, desc = "cancelled: shutdownNow must return a task that had not started")
@Outcome(id = "0, 0, 0", expect = FORBIDDEN, desc = "neither run nor returned: lost")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class ExternalRunVersusDrainStress {
    private final StressDispatcherHost host = new StressDispatcherHost();
    private final ExternalDispatcher dispatcher;
    private final RunnableTask task;
    private final List<ScheduledTask<?>> returned = new ArrayList<>();
    private Runnable handedOver;
    private int runs;

    public ExternalRunVersusDrainStress() {
        dispatcher = host.externalDispatcher(command -> handedOver = command);
        task = new RunnableTask(new StressTaskHost(), () -> runs++, 0);
        dispatcher.dispatch(task);
    }

    /** A thread of the user's executor, given the task. */
    @Actor
    public void thread() {
        handedOver.run();
        Thread.interrupted(); // a run that saw the executor stopping ran interrupted; this thread is jcstress's
    }

    /** shutdownNow: STOP, then the drain. */
    @Actor
    public void shutdownNow(III_Result r) {
        host.stopping = true;
        dispatcher.drainUnstartedTo(returned);
        r.r2 = returned.size();
    }

    @Arbiter
    public void arbiter(III_Result r) {
        r.r1 = runs;
        r.r3 = task.isCancelled() ? 1 : 0;
    }
}
