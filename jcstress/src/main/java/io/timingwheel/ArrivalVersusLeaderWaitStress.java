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
 * Race site: {@code WorkerPool.dispatch} against a worker's step up to leading the wait for a deadline
 * ({@code WorkerPool.awaitDeadline}: it raises the count of waiting workers, reads the arrivals' claims, then says when
 * its wait ends). A publisher wakes nobody for a task due no sooner than the leader wakes (and not due now), so it
 * reads that wake-up after the count; here the task is due before it (at two seconds; the leader waits for three), so
 * the publisher must still wake the leader whatever it reads: the count raised but no wake-up yet, or both. The real
 * {@link WorkerPool} (no thread of it runs).
 *
 * <p>The wait itself blocks, so it is not run here (see {@link ArrivalVersusWaitStress}).
 *
 * <p>Result: (the worker found no arrival and would lead the wait: 1, or found one: 0; the publisher woke a worker: 1,
 * or did not: 0).
 */
@JCStressTest
@Description("a task arriving lock-free, due before the leader's wake-up, against a worker registering to lead the wait")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the task arrived first: the worker moves it in, nobody needed waking")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "both saw the other: the worker moves it in; a spare signal")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the worker registered first: it leads the wait, the publisher wakes it")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "a lost wake-up: the leader waits past the task's deadline, and the publisher woke no one")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class ArrivalVersusLeaderWaitStress {
    private static final long TASK_DEADLINE = 2_000_000_000;
    private static final long LEADER_WAKE_UP = 3_000_000_000L;

    private final StressDispatcherHost host = new StressDispatcherHost();
    private final WorkerPool pool = host.workerPoolWithoutThreads();
    private final RunnableTask task = new RunnableTask(new StressTaskHost(), () -> { }, TASK_DEADLINE);

    @Actor
    public void worker(II_Result r) {
        r.r1 = pool.registerLeadingForStress(LEADER_WAKE_UP) ? 1 : 0;
    }

    @Actor
    public void publisher() {
        pool.dispatch(task);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r2 = pool.wakeUpPendingForStress() ? 1 : 0;
    }
}
