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
 * Race site: {@code WorkerPool.dispatch} against {@code Arrivals.beforeWait} (the pool's "Arrivals" comment: a
 * publisher claims its place in the arrivals, then reads the count of waiting workers; a worker raises the count, then
 * reads the claims; so either the worker sees the task, or the publisher takes the lock and wakes a worker). The real
 * {@link WorkerPool} (no thread of it runs): a task due at once is dispatched while a worker that found nothing takes
 * its step up to the wait.
 *
 * <p>The wait itself blocks, so it is not run here: the worker's side is its step up to the wait, under the lock, as
 * in the pool. That a publisher's signal cannot fall between that step and the wait is the lock (the wait releases
 * it, the publisher takes it to signal), which this test does not exercise.
 *
 * <p>Result: (the worker found no arrival and would wait: 1, or found one: 0; the publisher woke a worker: 1, or
 * did not: 0).
 */
@JCStressTest
@Description("a task arriving lock-free at the worker pool against a worker registering to wait")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the task arrived first: the worker moves it in, nobody needed waking")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "both saw the other: the worker moves it in; a spare signal")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the worker registered first: it waits, the publisher wakes it")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "a lost wake-up: the worker waits with a task in the arrivals, and the publisher saw no one to wake")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class ArrivalVersusWaitStress {
    private final StressDispatcherHost host = new StressDispatcherHost();
    private final WorkerPool pool = host.workerPoolWithoutThreads();
    private final RunnableTask task = new RunnableTask(new StressTaskHost(), () -> { }, 0);

    @Actor
    public void worker(II_Result r) {
        r.r1 = pool.registerWaitingForStress() ? 1 : 0;
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
