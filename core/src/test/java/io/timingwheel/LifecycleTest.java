package io.timingwheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link Lifecycle} alone: the transitions of its state table, the decision, and the shutdown policies, with a real
 * {@link ExternalDispatcher} whose executor holds the tasks it is given until the test runs them, and no master (the
 * decision is then taken by whoever asks for it, as when no timer was ever scheduled).
 */
class LifecycleTest {
    private final CountingHooks hooks = new CountingHooks();
    private final Clock clock = Clock.startingNow();

    /** What the dispatcher was given to run and the test has not run yet. */
    private final List<Runnable> held = new ArrayList<>();

    private final ExternalDispatcher dispatcher = new ExternalDispatcher(new LifecycleHost(),
            new TaskRunner(hooks, new Decorations(), new Instrumentation("test", clock, -1)), held::add);
    private final FakeMaster master = new FakeMaster();
    private final Lifecycle lifecycle = new Lifecycle("test", clock, hooks, master, dispatcher);

    @Test
    void aNewLifecycleIsRunning() {
        assertEquals(Lifecycle.RUNNING, lifecycle.runState());
        assertTrue(lifecycle.isRunning());
        assertFalse(lifecycle.isShutdown());
        assertFalse(lifecycle.isStopping());
        assertFalse(lifecycle.isTerminating());
        assertFalse(lifecycle.isTerminated());
    }

    @Test
    void theStateOnlyGrows() {
        assertTrue(lifecycle.advanceTo(Lifecycle.SHUTDOWN));
        assertEquals(Lifecycle.SHUTDOWN, lifecycle.runState());
        assertTrue(lifecycle.isShutdown() && lifecycle.isTerminating() && !lifecycle.isStopping());

        assertTrue(lifecycle.advanceTo(Lifecycle.STOP));
        assertEquals(Lifecycle.STOP, lifecycle.runState());
        assertTrue(lifecycle.isStopping() && lifecycle.isTerminating());

        assertTrue(lifecycle.advanceTo(Lifecycle.SHUTDOWN), "below TIDYING there may still be tasks to act on");
        assertEquals(Lifecycle.STOP, lifecycle.runState(), "shutdown() after shutdownNow() does not go back");
    }

    @Test
    void aDecisionBeforeShutdownChangesNothing() {
        lifecycle.tryTerminate();
        assertTrue(lifecycle.isRunning());
        assertEquals(0, hooks.terminated);
    }

    @Test
    void anIdleExecutorTerminatesAtItsDecisionAndOnlyOnce() throws InterruptedException {
        lifecycle.advanceTo(Lifecycle.SHUTDOWN);
        lifecycle.tryTerminate();

        assertTrue(lifecycle.isTerminated());
        assertFalse(lifecycle.isTerminating());
        assertTrue(lifecycle.awaitTermination(0, TimeUnit.NANOSECONDS));
        assertEquals(1, hooks.terminated);

        lifecycle.tryTerminate();
        assertFalse(lifecycle.advanceTo(Lifecycle.STOP), "nothing is left to apply a state to");
        assertEquals(Lifecycle.TERMINATED, lifecycle.runState());
        assertEquals(1, hooks.terminated, "terminated() runs exactly once");
    }

    @Test
    void aTaskWaitingInTheDispatcherHoldsTerminationUntilItHasRun() throws InterruptedException {
        RunnableTask task = new RunnableTask(new PlainTaskHost(), () -> { }, 0);
        assertTrue(dispatcher.dispatch(task));
        lifecycle.advanceTo(Lifecycle.SHUTDOWN);

        lifecycle.tryTerminate();
        assertEquals(Lifecycle.SHUTDOWN, lifecycle.runState(), "a task waits: the executor stays shut down");
        assertFalse(lifecycle.awaitTermination(0, TimeUnit.NANOSECONDS));
        assertEquals(0, hooks.terminated);

        held.remove(0).run(); // the task runs, the dispatcher is idle and asks for the decision
        assertTrue(task.isDone());
        assertTrue(lifecycle.isTerminated());
        assertEquals(1, hooks.terminated);
        assertFalse(dispatcher.dispatch(new RunnableTask(new PlainTaskHost(), () -> { }, 0)),
                "a closed dispatcher takes nothing");
    }

    @Test
    void afterShutdownThePoliciesDecideWhatMayRunAndAfterShutdownNowNothingMay() {
        long inAnHour = clock.now() + TimeUnit.HOURS.toNanos(1);
        RunnableTask delayed = new RunnableTask(new PlainTaskHost(), () -> { }, inAnHour);
        RunnableTask due = new RunnableTask(new PlainTaskHost(), () -> { }, clock.now());
        PeriodicTask periodic = new PeriodicTask(new PlainTaskHost(), () -> { }, clock.now(), 1_000_000);
        assertTrue(lifecycle.mayRun(delayed) && lifecycle.mayRun(due) && lifecycle.mayRun(periodic));

        lifecycle.advanceTo(Lifecycle.SHUTDOWN);
        assertTrue(lifecycle.mayRun(delayed), "delayed tasks are kept by default, as in the JDK");
        assertFalse(lifecycle.mayRun(periodic), "periodic tasks are not kept by default, as in the JDK");

        lifecycle.setContinueExistingPeriodicTasks(true);
        lifecycle.setExecuteExistingDelayedTasks(false);
        assertTrue(lifecycle.mayRun(periodic));
        assertFalse(lifecycle.mayRun(delayed));
        assertTrue(lifecycle.mayRun(due), "a task already due is kept by either policy");

        lifecycle.advanceTo(Lifecycle.STOP);
        assertFalse(lifecycle.mayRun(due) || lifecycle.mayRun(periodic) || lifecycle.mayRun(delayed));
    }

    @Test
    void aPolicyTurnedOffAfterShutdownAsksForItsTasksToBeCancelled() {
        assertFalse(lifecycle.setContinueExistingPeriodicTasks(false), "before shutdown nothing is cancelled");
        lifecycle.advanceTo(Lifecycle.SHUTDOWN);
        assertFalse(lifecycle.setContinueExistingPeriodicTasks(true));
        assertTrue(lifecycle.setContinueExistingPeriodicTasks(false));
        assertTrue(lifecycle.setExecuteExistingDelayedTasks(false));
        assertFalse(lifecycle.setExecuteExistingDelayedTasks(true));
    }

    @Test
    void noMasterStartsOnceStopping() {
        lifecycle.advanceTo(Lifecycle.STOP);
        assertFalse(lifecycle.startMaster());
        assertEquals(0, master.starts, "not even asked: a master started now would hold what no drain looks at");
        assertFalse(lifecycle.masterStarted());
    }

    @Test
    void onceAMasterRunsOnlyItsThreadDecides() {
        assertTrue(lifecycle.startMaster());
        assertTrue(lifecycle.startMaster(), "started once");
        assertEquals(1, master.starts);
        lifecycle.advanceTo(Lifecycle.SHUTDOWN);

        assertFalse(lifecycle.tryTerminate(), "another thread only wakes the master");
        assertEquals(1, master.wakeUps);
        assertEquals(Lifecycle.SHUTDOWN, lifecycle.runState());

        master.onItsThread = true;
        master.holdsNothing = false;
        assertFalse(lifecycle.tryTerminate(), "the master still holds a task");
        assertEquals(Lifecycle.SHUTDOWN, lifecycle.runState());

        master.holdsNothing = true;
        assertTrue(lifecycle.tryTerminate());
        assertTrue(lifecycle.isTerminated());
        assertEquals(1, master.wakeUps, "the master's own decision wakes nobody");
        assertEquals(1, hooks.terminated);
    }

    /** A master that answers as the test says and counts what it was asked to do. */
    private static final class FakeMaster implements Lifecycle.Master {
        int starts;
        int wakeUps;
        boolean onItsThread;
        boolean holdsNothing;

        @Override
        public boolean startThread() {
            starts++;
            return true;
        }

        @Override
        public boolean isMasterThread() {
            return onItsThread;
        }

        @Override
        public boolean holdsNothing() {
            return holdsNothing;
        }

        @Override
        public void wake() {
            wakeUps++;
        }
    }

    /** The dispatcher's view of the executor, answered by the lifecycle under test, as the core answers it. */
    private final class LifecycleHost implements DispatcherHost {
        @Override
        public boolean mayRun(ScheduledTask<?> task) {
            return lifecycle.mayRun(task);
        }

        @Override
        public boolean keptAfterShutdown(ScheduledTask<?> task) {
            return lifecycle.keptAfterShutdown(task);
        }

        @Override
        public boolean isShutdown() {
            return lifecycle.isShutdown();
        }

        @Override
        public boolean isStopping() {
            return lifecycle.isStopping();
        }

        @Override
        public long now() {
            return clock.now();
        }

        @Override
        public boolean timersPending() {
            return false;
        }

        @Override
        public boolean tryTerminate() {
            return lifecycle.tryTerminate();
        }

        @Override
        public void threadsGone() {
            lifecycle.finish();
        }
    }
}
