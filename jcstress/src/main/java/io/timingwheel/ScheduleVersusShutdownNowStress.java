package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.List;
import java.util.concurrent.ExecutionException;
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
 * Race site: {@code Lifecycle} note 1 against {@code shutdownNow}'s drain ("one that published before the state
 * changed is seen by it, one that published after takes its task back"). A delayed {@code schedule} on a real
 * executor against {@code shutdownNow()}: an accepted task is either run or returned by {@code shutdownNow}, never
 * both, never neither.
 *
 * <p>Result: (schedule accepted the task: 1, rejected it: 0; once the executor terminated: 1 the task ran, 2 it was
 * returned by shutdownNow, 3 both, 4 neither but cancelled, 0 neither and not done: lost, -1 rejected, 5 rejected
 * and returned by shutdownNow, 9 the executor did not terminate in 10 s).
 */
@JCStressTest
@Description("schedule(task, 1 ns) against shutdownNow() on a real executor")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "accepted and run before the stop")
@Outcome(id = "1, 2", expect = ACCEPTABLE, desc = "accepted and returned by shutdownNow, never run")
@Outcome(id = "0, -1", expect = ACCEPTABLE, desc = "rejected through the handler")
@Outcome(id = "1, 3", expect = FORBIDDEN, desc = "run and returned")
@Outcome(id = "1, 4", expect = FORBIDDEN, desc = "cancelled by the stop instead of returned: shutdownNow must return every accepted task that never started (the JDK's may cancel it; ours promises better)")
@Outcome(id = "0, 5", expect = FORBIDDEN, desc = "rejected, yet returned by shutdownNow: the caller got an exception for a task that it is also handed back")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "lost: neither run nor returned, not done")
@Outcome(id = ".*, 9", expect = FORBIDDEN, desc = "the executor never terminated")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class ScheduleVersusShutdownNowStress {
    private final TimingWheelExecutor executor = new TimingWheelExecutor(1);
    private volatile boolean ran;
    private ScheduledFuture<?> future;
    private List<Runnable> returned;

    /**
     * The master and a worker are started by a first task, run to its end, so that the producer's schedule is only
     * its publish and re-read, as long as shutdownNow's stop: without it, nearly every schedule came after the stop.
     */
    public ScheduleVersusShutdownNowStress() {
        try {
            executor.schedule(() -> { }, 1, TimeUnit.NANOSECONDS).get();
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    @Actor
    public void producer(II_Result r) {
        try {
            future = executor.schedule(() -> {
                ran = true;
            }, 1, TimeUnit.NANOSECONDS);
            r.r1 = 1;
        } catch (RejectedExecutionException e) {
            r.r1 = 0;
        }
    }

    @Actor
    public void shutdownNow() {
        returned = executor.shutdownNow();
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
            r.r2 = 9;
        } else if (future == null) {
            r.r2 = returned.isEmpty() ? -1 : 5;
        } else {
            boolean wasReturned = returned.contains(future);
            int code = (ran ? 1 : 0) + (wasReturned ? 2 : 0);
            r.r2 = code == 0 && future.isCancelled() ? 4 : code;
        }
    }
}
