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
 * Race site: {@code MasterLoop.link} ("A thread that takes a task out of NEW posts it only if it sees it linked;
 * linking, a full fence, then re-reading the state closes the race: either that thread sees the link, or we see the
 * new state and unlink the task ourselves") and {@code ExecutorCore.unlinkIfInWheel}, its other half. The real
 * {@link MasterLoop} links a task into its real wheel while another thread cancels the task; the task's host posts it
 * for unlinking as the executor does: only if it sees it linked.
 *
 * <p>Result: (the task is still linked once both are done, the cancel posted it to the master for unlinking).
 */
@JCStressTest
@Description("the master linking a task into the wheel against a cancel of that task")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the master saw the cancel and unlinked the task itself")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "both saw each other: unlinked, and a post the master will find stale")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the cancel saw the link and posted the task: the master unlinks it at its next turn")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "a cancelled task left in the wheel, and nobody told the master: garbage kept until its deadline")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class LinkVersusCancelStress {
    private final MasterLoop master = StressMasterHost.terminatingMaster();
    private final PostingHost host = new PostingHost();
    private final RunnableTask task = new RunnableTask(host, () -> { }, 5_000_000);

    @Actor
    public void master() {
        master.link(task);
    }

    @Actor
    public void cancel() {
        task.cancel(false);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r1 = task.isInWheel() ? 1 : 0;
        r.r2 = host.posted;
    }

    /** What {@code ExecutorCore} does when a task leaves NEW: post it for unlinking if it sees it linked. */
    private static final class PostingHost extends StressTaskHost {
        int posted;

        @Override
        public void leftPending(ScheduledTask<?> task) {
            if (task.isInWheelVolatile()) {
                posted = 1;
            }
        }
    }
}
