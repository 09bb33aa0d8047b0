package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Race site: {@code WorkerPool.dispatch} against a worker that retires (its keep-alive time ran out, in
 * {@code WorkerPool.waitFor}): the worker leaves counted as waiting, after a last look at the arrivals; a publisher
 * claims its place, then reads the count, and takes the lock to wake a worker, then starts one if none is left
 * ({@code prestart}). So a task due at once either reaches the leaving worker, or a new worker is started for it. The
 * real {@link WorkerPool} with one core worker that may time out after 1 ns, its loop on an actor thread (the pool's
 * thread factory hands over the worker and makes a thread that is never started, and counts the workers made).
 *
 * <p>Result: (the task ran on the leaving worker: 1, or not: 0; workers started after the first: 0 or 1).
 */
@JCStressTest
@Description("a task arriving lock-free at the worker pool against its last worker retiring")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the worker saw the task before it left and ran it")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the worker left first: the publisher started another for the task")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the worker ran it, and the publisher, seeing it about to leave, started a spare one")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "the task stranded: no worker left and none started")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class ArrivalVersusRetireStress {
    private final AtomicInteger workersMade = new AtomicInteger();
    private final WorkerPool pool;
    private final RunnableTask task;
    private Runnable worker;
    private volatile int runs;

    public ArrivalVersusRetireStress() {
        StressDispatcherHost host = new StressDispatcherHost();
        PoolSettings settings = new PoolSettings(1, r -> {
            if (workersMade.getAndIncrement() == 0) {
                worker = r;
            }
            return new Thread(r) {
                @Override
                public void start() {
                    // the first worker's loop runs on the worker actor; a later one would take the task
                }
            };
        });
        settings.allowCoreThreadTimeOut = true; // the worker may retire at once
        settings.keepAliveNanos = 1;
        pool = host.workerPool(settings);
        pool.prestart();
        task = new RunnableTask(new StressTaskHost(), () -> runs++, 0);
    }

    @Actor
    public void worker() {
        worker.run(); // finds nothing, waits out its keep-alive time, leaves
    }

    @Actor
    public void publisher() {
        pool.dispatch(task);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r1 = runs;
        r.r2 = workersMade.get() - 1;
    }
}
