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
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Race site: {@code OrderGate}, the master's turn ("announces a time before it marks its inbox and drains up to the
 * mark ... a task that the master has not drained was claimed after its last mark, hence checked after the
 * announcement before that mark ... It resets the floor only once it has drained a mark taken after the last
 * lowering"), against a publisher ("offers its task to the inbox, then reads the state: a task due before announced
 * ... lowers open and floor"). The real {@link MasterLoop} ({@code drainAndHandOver}) over the real {@link WorkerPool}
 * (no thread of it runs: nothing falls due), and its {@code submit}.
 *
 * <p>An earlier turn at time 0 announced 50 ms (the pool's straight reach) and drained the inbox. The race: the
 * master's turn at 100 ms, which announces 150 ms and hands over what is due by 110 ms, against a slow publisher of a
 * task due at 120 ms (a task due that soon reaches the master only when its publisher was held up between reading the
 * clock and offering it): due after the old announcement, before the new one.
 *
 * <p>Result: (where the task is once both are done: in the master's wheel, 1, or still in its inbox, 0; whether the
 * gate is open past the task's deadline, which it may be only once the task is handed over, and here it never is).
 */
@JCStressTest
@Description("the master's turn (announce, mark, drain, open the gate) against a publisher of a task due before the announced time")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the turn drained the task: the gate stops at it")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "published after the mark: its publisher lowered the gate and the floor, which the turn keeps")
@Outcome(id = "0, 1", expect = FORBIDDEN, desc = "the gate open past a task still in the inbox: a worker may run a later task first")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "the gate open past a task the master holds and has not handed over")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class TurnVersusPublishStress {
    private static final long MS = 1_000_000;
    private static final long DUE = 120 * MS;

    private final StressMasterHost host = new StressMasterHost();
    private final StressDispatcherHost dispatchers = new StressDispatcherHost();
    private final WorkerPool pool = dispatchers.workerPool(r -> new Thread(r));
    private final MasterLoop master = StressMasterHost.masterOver(pool, dispatchers, host);
    private final RunnableTask task = new RunnableTask(new StressTaskHost(), () -> { }, DUE);

    public TurnVersusPublishStress() {
        master.drainAndHandOver(0);
        host.time = 100 * MS;
    }

    @Actor
    public void master() {
        master.drainAndHandOver(100 * MS);
    }

    @Actor
    public void producer() {
        master.submit(task);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        List<ScheduledTask<?>> handed = new ArrayList<>();
        pool.copyWaitingTo(handed);
        r.r1 = task.isInWheel() || !handed.isEmpty() ? 1 : 0;
        r.r2 = master.gate().isOpenFor(DUE) ? 1 : 0;
    }
}
