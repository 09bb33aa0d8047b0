package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.CompletableFuture;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Race site: {@code ScheduledTask} "Waiting": a waiter installs the completion signal by CAS and then reads the state;
 * the ending thread moves the state by CAS and then reads the signal, so at least one of them sees the other and the
 * signal completes. A thread starts waiting ({@code toCompletableFuture}, which waits on the same signal as
 * {@code get}, without blocking the actor) while a worker completes the task. Once both are done, the waiter's view
 * must be complete: a task that is done while its waiter's signal never completes is a {@code get} that waits for
 * ever.
 *
 * <p>Result: (the task is done, the waiter's view completed with the task's result 42: 1, else 0).
 */
@JCStressTest
@Description("a waiter's signal against the completion of the task")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the waiter was released with the result")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "lost wake-up: the task completed, the waiter was never released")
@Outcome(expect = FORBIDDEN, desc = "the task did not complete")
@State
public class GetVersusCompletionStress {
    private final CallableTask<Integer> task = new CallableTask<>(new StressTaskHost(), () -> 42, 0);
    private CompletableFuture<Integer> waiter;

    @Actor
    public void worker() {
        if (TaskRunner.claim(task, true)) {
            task.runAction();
        }
    }

    @Actor
    public void waiter() {
        waiter = task.toCompletableFuture();
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r1 = task.isDone() ? 1 : 0;
        r.r2 = waiter.isDone() && !waiter.isCompletedExceptionally() && waiter.getNow(0) == 42 ? 1 : 0;
    }
}
