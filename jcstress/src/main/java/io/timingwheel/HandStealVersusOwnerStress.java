package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Race site: {@link Hand} and {@code DueTasks.stealFromHands} ("a task in a hand is not claimed: it stays pending,
 * and is claimed with a CAS on its state only as a worker starts it ... another worker that is free takes from a hand
 * before it takes from the queue"). The real {@link WorkerPool} with two workers whose threads never start: each
 * worker's loop runs on an actor. Four tasks due at once wait in the pool; the worker that takes first takes the first
 * and the three behind it into its hand and starts them one by one without the lock, while the other takes from that
 * hand under the lock: the claim decides, so each task runs exactly once. Both workers retire once idle (keep-alive
 * 1 ns), so each actor's loop returns.
 *
 * <p>Result: (how many of the four ran exactly once, how many ran twice or more).
 */
@JCStressTest
@Description("a worker starting the tasks of its hand against another worker taking from that hand")
@Outcome(id = "4, 0", expect = ACCEPTABLE, desc = "each task ran once, on whichever worker claimed it")
@Outcome(expect = FORBIDDEN, desc = "a task run twice, or not at all")
@State
public class HandStealVersusOwnerStress {
    private static final int TASKS = 4;

    private final AtomicIntegerArray ran = new AtomicIntegerArray(TASKS);
    private final List<Runnable> workers = new ArrayList<>();

    public HandStealVersusOwnerStress() {
        StressDispatcherHost host = new StressDispatcherHost();
        PoolSettings settings = new PoolSettings(2, r -> {
            workers.add(r);
            return new Thread(r) {
                @Override
                public void start() {
                    // the worker's loop runs on an actor
                }
            };
        });
        settings.allowCoreThreadTimeOut = true; // the workers retire once idle: each actor's loop ends
        settings.keepAliveNanos = 1;
        WorkerPool pool = host.workerPool(settings);
        for (int i = 0; i < TASKS; i++) {
            int index = i;
            pool.dispatch(new RunnableTask(new StressTaskHost(), () -> ran.incrementAndGet(index), 0));
        }
    }

    @Actor
    public void firstWorker() {
        workers.get(0).run();
    }

    @Actor
    public void secondWorker() {
        workers.get(1).run();
    }

    @Arbiter
    public void arbiter(II_Result r) {
        int once = 0;
        int more = 0;
        for (int i = 0; i < TASKS; i++) {
            once += ran.get(i) == 1 ? 1 : 0;
            more += ran.get(i) > 1 ? 1 : 0;
        }
        r.r1 = once;
        r.r2 = more;
    }
}
