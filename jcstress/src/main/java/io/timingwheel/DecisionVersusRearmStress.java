package io.timingwheel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Race site: {@code Lifecycle} note 2 and {@code Dispatcher.close}: once shut down, the master decides termination
 * when its wheel and inbox are empty and the dispatcher is idle; a run that re-arms its periodic task publishes it to
 * the master's inbox and only then ends, so the master reads its inbox again after it has seen every run ended, under
 * the dispatcher's lock. A worker of the real {@link ExternalDispatcher} (its executor runs the task on the calling
 * thread) runs a periodic task whose re-arm goes to a real {@link StripedInbox}, against the master's decision over
 * that inbox and the real {@link Lifecycle}, shut down with the periodic policy set.
 *
 * <p>Result: (the dispatcher took the task: 1, or refused it, closed: 0; the decision: 1 terminated, 0 busy; the
 * master's inbox holds the re-armed task afterwards: 1, or not: 0).
 */
@JCStressTest
@Description("the termination decision against a run that re-arms its periodic task into the master's inbox")
@Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "the run came first: the decision found the executor busy; the master links the re-armed task")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "the decision came first: terminated; the dispatcher refused the task (its publisher takes it back)")
@Outcome(id = "1, 1, 1", expect = FORBIDDEN, desc = "terminated with the re-armed task in the master's inbox: lost, never run nor cancelled")
@Outcome(expect = FORBIDDEN, desc = "any other outcome")
@State
public class DecisionVersusRearmStress {
    private final StripedInbox<ScheduledTask<?>> inbox = new StripedInbox<>(2);
    private final Lifecycle lifecycle;
    private final ExternalDispatcher dispatcher;
    private final PeriodicTask task;

    public DecisionVersusRearmStress() {
        StressDispatcherHost host = new StressDispatcherHost();
        host.shutdown = true;
        dispatcher = host.externalDispatcher(Runnable::run);
        lifecycle = masterDecides(inbox, dispatcher);
        task = new PeriodicTask(new RearmToInbox(inbox), () -> { }, 0, 1);
        lifecycle.advanceTo(Lifecycle.SHUTDOWN);
    }

    @Actor
    public void worker(III_Result r) {
        r.r1 = dispatcher.dispatch(task) ? 1 : 0; // runs the task here, now, if taken
    }

    /** The end of the master's turn: MasterLoop.turn's test, with the inbox read again by the decision. */
    @Actor
    public void master(III_Result r) {
        r.r2 = inbox.isEmpty() && lifecycle.tryTerminate() ? 1 : 0;
    }

    @Arbiter
    public void arbiter(III_Result r) {
        r.r3 = inbox.isEmpty() ? 0 : 1;
    }

    /**
     * The same race on the executor's own workers: the real {@link WorkerPool}, whose worker runs its loop on an
     * actor thread (the pool's thread factory hands over the worker and makes a thread that is never started). The
     * worker takes the task, runs it (the re-arm goes to the master's inbox), books the end of the run, and leaves:
     * the pool closed, or its keep-alive time of 1 ns ran out. The task arrives without the pool's lock (its
     * arrivals), so the pool may close as it arrives; if the decision then finds its claim, the pool stays open, and
     * the publisher, which may have seen it closed and refused the task, asks for the decision again
     * ({@code ExecutorCore.accept}): nothing is lost either way.
     *
     * <p>Result: as the outer test's.
     */
    @JCStressTest
    @Description("the termination decision against a worker of the pool whose run re-arms its periodic task into the master's inbox")
    @Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "the run came first: the decision found the executor busy; the master links the re-armed task")
    @Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "the decision came first: terminated; the pool refused the task (its publisher takes it back)")
    @Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "both saw the other: the pool refused the task as it closed, then found its claim and stayed open; the publisher takes it back and asks for the decision again")
    @Outcome(id = "1, 1, 1", expect = FORBIDDEN, desc = "terminated with the re-armed task in the master's inbox: lost, never run nor cancelled")
    @Outcome(expect = FORBIDDEN, desc = "any other outcome")
    @State
    public static class OwnWorkers {
        private final StripedInbox<ScheduledTask<?>> inbox = new StripedInbox<>(2);
        private final Lifecycle lifecycle;
        private final WorkerPool pool;
        private final PeriodicTask task;
        private Runnable worker;

        public OwnWorkers() {
            StressDispatcherHost host = new StressDispatcherHost();
            host.shutdown = true;
            PoolSettings settings = new PoolSettings(1, r -> {
                worker = r;
                return new Thread(r) {
                    @Override
                    public void start() {
                        // the worker's loop runs on the worker actor
                    }
                };
            });
            settings.allowCoreThreadTimeOut = true; // the worker may retire at once
            settings.keepAliveNanos = 1;
            pool = host.workerPool(settings);
            pool.prestart();
            lifecycle = masterDecides(inbox, pool);
            task = new PeriodicTask(new RearmToInbox(inbox), () -> { }, 0, 1);
            lifecycle.advanceTo(Lifecycle.SHUTDOWN);
        }

        @Actor
        public void worker(III_Result r) {
            r.r1 = pool.dispatch(task) ? 1 : 0;
            worker.run();
        }

        /** The end of the master's turn, as in the outer test. */
        @Actor
        public void master(III_Result r) {
            r.r2 = inbox.isEmpty() && lifecycle.tryTerminate() ? 1 : 0;
        }

        @Arbiter
        public void arbiter(III_Result r) {
            r.r3 = inbox.isEmpty() ? 0 : 1;
        }
    }

    /**
     * @return a real {@link Lifecycle} whose master is started, and whose decision is taken as on the master thread:
     *     the master's part is whether {@code inbox} is empty
     */
    static Lifecycle masterDecides(StripedInbox<ScheduledTask<?>> inbox, Dispatcher dispatcher) {
        Lifecycle lifecycle = new Lifecycle("stress", Clock.startingNow(), new StressHooks(), new Lifecycle.Master() {
            @Override
            public boolean startThread() {
                return true;
            }

            @Override
            public boolean isMasterThread() {
                return true; // the actor that calls the decision plays the master thread
            }

            @Override
            public boolean holdsNothing() {
                return inbox.isEmpty();
            }

            @Override
            public void wake() {
            }
        }, dispatcher);
        lifecycle.startMaster();
        return lifecycle;
    }

    /** A periodic run's re-arm as {@code ExecutorCore.rearm} does it for a future deadline: to the master's inbox. */
    private static final class RearmToInbox extends StressTaskHost {
        private final StripedInbox<ScheduledTask<?>> inbox;

        RearmToInbox(StripedInbox<ScheduledTask<?>> inbox) {
            this.inbox = inbox;
        }

        @Override
        public void rearm(ScheduledTask<?> task) {
            if (task.resetForNextRun()) {
                inbox.offer(task);
            }
        }
    }
}
