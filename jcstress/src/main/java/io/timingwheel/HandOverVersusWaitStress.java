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
 * Race site: {@code WorkerPool.dispatchAll} publishing a hand-over without the lock against
 * {@code WorkerPool.enterWait} (the pool's "The master's hand-overs" comment: the master publishes the hand-over, then
 * reads the count of waiting workers; a worker raises the count, then reads the published field; so either the worker
 * moves the hand-over in, or the master takes the lock and wakes a worker). The real {@link WorkerPool} (no thread of
 * it runs): the master hands over a timer due in a second while a worker that found nothing takes its step up to the
 * wait; no worker leads a wait, so a waiting worker must be woken for the timer.
 *
 * <p>The wait itself blocks, so it is not run here: the worker's side is its step up to the wait, under the lock, as
 * in the pool (see {@link ArrivalVersusWaitStress}).
 *
 * <p>Result: (the worker found no hand-over and would wait: 1, or found one: 0; the master woke a worker: 1, or did
 * not: 0).
 */
@JCStressTest
@Description("the master's hand-over published without the lock against a worker registering to wait")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the hand-over came first: the worker moves it in, nobody needed waking")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "both saw the other: the worker moves it in; a spare signal")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the worker registered first: it waits, the master wakes it")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "a lost wake-up: the worker waits with the hand-over published, and the master saw no one to wake")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class HandOverVersusWaitStress {
    private static final long DUE_IN_A_SECOND = 2_000_000_000;

    private final StressDispatcherHost host = new StressDispatcherHost();
    private final WorkerPool pool = host.workerPoolWithoutThreads();
    private final HandOver handOver = new HandOver(host.gate, () -> { });

    public HandOverVersusWaitStress() {
        handOver.accept(new RunnableTask(new StressTaskHost(), () -> { }, DUE_IN_A_SECOND));
        handOver.opening(TimingWheel.NONE, TimingWheel.NONE, 0);
    }

    @Actor
    public void worker(II_Result r) {
        r.r1 = pool.registerWaitingForStress() ? 1 : 0;
    }

    @Actor
    public void master() {
        pool.dispatchAll(handOver);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r2 = pool.wakeUpPendingForStress() ? 1 : 0;
    }
}
