package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Race site: {@code Lifecycle} note 1 and the decision (2): a producer publishes its task and then reads the run state
 * again, taking the task back if the executor shut down meanwhile; the master decides termination only when its
 * inbox and wheel are empty. A delayed {@code schedule} on a real executor against {@code shutdown()}: with the
 * default policies (delayed tasks still run after shutdown), the JDK's outcomes only: rejected, or accepted and run.
 * Once {@code awaitTermination} returns true, an accepted task has ended.
 *
 * <p>Result: (schedule accepted the task: 1, rejected it: 0; what became of an accepted task once the executor
 * terminated: 1 ran, 2 cancelled, 0 not done: lost; -1 rejected, 9 the executor did not terminate in 10 s).
 */
@JCStressTest
@Description("schedule(task, 1 ns) against shutdown() on a real executor")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "accepted and run")
@Outcome(id = "0, -1", expect = ACCEPTABLE, desc = "rejected through the handler")
@Outcome(id = "1, 2", expect = FORBIDDEN, desc = "accepted, then cancelled by the shutdown, which the default policy forbids")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "lost: terminated while an accepted task had not ended")
@Outcome(id = ".*, 9", expect = FORBIDDEN, desc = "the executor never terminated")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class ScheduleVersusShutdownStress {
    private final TimingWheelExecutor executor = new TimingWheelExecutor(1);
    private ScheduledFuture<?> future;

    @Actor
    public void producer(II_Result r) {
        try {
            future = executor.schedule(() -> { }, 1, TimeUnit.NANOSECONDS);
            r.r1 = 1;
        } catch (RejectedExecutionException e) {
            r.r1 = 0;
        }
    }

    @Actor
    public void shutdown() {
        executor.shutdown();
    }

    @Arbiter
    public void arbiter(II_Result r) {
        boolean terminated;
        try {
            terminated = executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            terminated = false;
        }
        if (!terminated) {
            executor.shutdownNow();
            r.r2 = 9;
        } else if (future == null) {
            r.r2 = -1;
        } else if (!future.isDone()) {
            r.r2 = 0;
        } else {
            r.r2 = future.isCancelled() ? 2 : 1;
        }
    }
}
