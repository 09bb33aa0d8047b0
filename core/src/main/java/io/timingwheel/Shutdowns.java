package io.timingwheel;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code shutdown()}, {@code shutdownNow()} and the policies' setters: each moves the {@link Lifecycle} on, then acts
 * on every accepted task that has not started, wherever it waits (the master's inbox and wheel, the dispatcher), and
 * asks for the termination decision.
 */
final class Shutdowns {
    private final Lifecycle lifecycle;
    private final MasterLoop master;
    private final Dispatcher dispatcher;
    private final PoolControls pool;
    private final Decorations decorations;

    Shutdowns(Lifecycle lifecycle, MasterLoop master, Dispatcher dispatcher, PoolControls pool,
              Decorations decorations) {
        this.lifecycle = lifecycle;
        this.master = master;
        this.dispatcher = dispatcher;
        this.pool = pool;
        this.decorations = decorations;
    }

    /** No new tasks; the shutdown policies cancel at once what they do not keep, wherever it waits. */
    void shutdown() {
        if (lifecycle.advanceTo(Lifecycle.SHUTDOWN)) {
            applyShutdownPolicies();
        }
    }

    void setContinueExistingPeriodicTasks(boolean value) {
        if (lifecycle.setContinueExistingPeriodicTasks(value)) {
            applyShutdownPolicies(); // a policy set to false after shutdown cancels at once, as the JDK's setters do
        }
    }

    void setExecuteExistingDelayedTasks(boolean value) {
        if (lifecycle.setExecuteExistingDelayedTasks(value)) {
            applyShutdownPolicies();
        }
    }

    /**
     * Applies the shutdown policies to every accepted task that has not started, then asks for the termination
     * decision. The SHUTDOWN rule applies even if shutdownNow has been called since: what the policies keep, its drain
     * returns.
     */
    private void applyShutdownPolicies() {
        if (lifecycle.runState() >= Lifecycle.TIDYING) {
            return;
        }
        if (lifecycle.masterStarted()) {
            master.applyShutdownPolicies();
        }
        dispatcher.applyShutdownPolicies();
        if (pool.workersStarved()) {
            // Tasks wait for a worker that the thread factory could not make so far. No new task will come to ask
            // again, so ask now, and leave the retries to the master.
            pool.retryWorkerStart();
            if (pool.workersStarved()) {
                lifecycle.startMaster();
            }
        }
        lifecycle.tryTerminate();
    }

    /**
     * Stops: no new tasks, running tasks interrupted, and the tasks that never started returned (left uncancelled).
     * The drain needs no lock against producers: one that published before the state changed is seen by it, one that
     * published after takes its task back (see Lifecycle, note 1).
     *
     * @return the accepted tasks that never started, as the user holds them
     */
    List<Runnable> shutdownNow() {
        List<ScheduledTask<?>> unstarted = new ArrayList<>();
        if (lifecycle.advanceTo(Lifecycle.STOP)) {
            if (!lifecycle.masterStarted() || !master.drainUnstarted(unstarted)) {
                dispatcher.drainUnstartedTo(unstarted);
            }
            dispatcher.interruptWorkers();
            lifecycle.tryTerminate();
        }
        return decorations.handOut(unstarted);
    }
}
