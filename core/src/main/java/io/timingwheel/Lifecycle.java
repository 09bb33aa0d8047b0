package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The run state of an executor, its two shutdown policies, and the one place where termination is decided.
 *
 * <h2>States</h2>
 * The run state only grows, as in {@code ThreadPoolExecutor}:
 * <pre>
 * state       entered by          new tasks      the master                    the dispatcher            left when
 * RUNNING     construction        accepted       links, fires, sleeps          runs due tasks            shutdown(), shutdownNow()
 * SHUTDOWN    shutdown()          rejected (1)   cancels what the policies     runs what it holds        the decision (2)
 *                                                do not keep, fires the rest
 * STOP        shutdownNow()       rejected (1)   emptied by shutdownNow's      starts nothing; running   the decision (2)
 *                                                drain; fires nothing          tasks are interrupted
 * TIDYING     the decision (2)    rejected       has left its loop             closed: takes nothing;    its last thread has left,
 *                                                                              its threads leave         or none was left: terminated()
 * TERMINATED  after terminated()  rejected
 * </pre>
 * (1) Whoever publishes a task (a producer, or a run re-arming a periodic task) publishes it first and then reads the
 * state again; if the task may no longer stay, the publisher takes it back by a CAS out of {@code NEW} (a producer
 * then rejects a one-shot task; a periodic one, which may have run and re-armed already, is cancelled, as a re-arm
 * cancels it, unless the policy keeps it), and if that CAS fails, someone who looked after the change (shutdownNow's
 * drain, a worker, the shutdown policies) already has it. So a task whose publisher read the old state after
 * publishing is visible to whoever acts on the new state, every other one is its publisher's to end, and nobody has
 * to clean up stragglers. A publisher that ends its task so asks for the decision (2) again: one taken while the task
 * was pending found the executor busy, and nothing else may come to ask.
 *
 * <p>(2) <b>The decision.</b> The executor terminates once it is shut down, the master holds nothing (its inbox and
 * wheel are empty) and the dispatcher is idle (no task waits there, none runs), which the dispatcher checks and
 * records in one step under its own lock ({@link Dispatcher#close}), so that no task reaches it afterwards. The
 * decision has one way in, {@link #tryTerminate}, which anyone calls. The master decides, at the end of each turn
 * once shut down, if it was ever started: only it can see its inbox and wheel (another thread's call wakes it).
 * Otherwise the caller decides, under this object's monitor, which also guards the start of the master, so no master
 * starts after a decision made without one. The master's view
 * cannot be stale: once shut down, tasks reach it only from publishers that take back what they should not have
 * published (1), from a run re-arming a periodic task, or from commands, which run on the master thread itself. A
 * run publishes its re-armed task before it ends, and the master reads its inbox again after it has seen every run
 * ended, under the dispatcher's lock ({@link Dispatcher#close}): read only before, it could miss a task re-armed in
 * between, and terminate with it in the inbox (ShutdownTest's policy matrix caught that, 1 run in 20 on 4 workers).
 *
 * <p>One fact, one field: {@code runState}; {@code masterStart}. The dispatcher's {@code closed} is not a second
 * record of the decision but the dispatcher's half of it: set under the dispatcher's own lock, where its idleness is
 * checked, and undone in the same hold if a task is seen to have arrived meanwhile (its producer then finds it open);
 * TIDYING is written only once that half has come out closed, and never goes back. Once an
 * accepted task's {@code schedule} call has returned, {@code isTerminated()} is true only when that task has ended.
 */
final class Lifecycle {
    static final int RUNNING = 0;
    static final int SHUTDOWN = 1;
    static final int STOP = 2;
    static final int TIDYING = 3;
    static final int TERMINATED = 4;

    private static final VarHandle RUN_STATE;

    /**
     * The master's part of a decision taken while no master was ever started: it holds nothing. The objects the
     * executor's making creates are classes, not lambdas: a lambda's call site is linked on its first use, a
     * millisecond or more each in a fresh JVM (the first one in the JVM several), and the making of an executor is
     * often among the first things a JVM does (docs/design.md, "A fresh JVM").
     */
    private static final BooleanSupplier NO_MASTER = new BooleanSupplier() {
        @Override
        public boolean getAsBoolean() {
            return true;
        }
    };

    static {
        try {
            RUN_STATE = MethodHandles.lookup().findVarHandle(Lifecycle.class, "runState", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * What the decision asks of the master thread; implemented by {@link MasterLoop}. Only the master thread may look
     * at what it holds, so the decision is taken there once the master runs.
     */
    interface Master {
        /** Starts the master's thread. @return false if none could be started */
        boolean startThread();

        /** @return whether the calling thread is the master's */
        boolean isMasterThread();

        /** @return whether the inbox and the wheel are empty; the master thread only */
        boolean holdsNothing();

        /** Wakes the master, to take the decision at the end of its turn (any thread). */
        void wake();
    }

    private final String name;
    private final Clock clock;
    private final ExecutorHooks hooks;
    private final Master master;
    private final Dispatcher dispatcher;
    private final CountDownLatch terminationSignal = new CountDownLatch(1);

    /** RUNNING to TERMINATED; only grows. */
    private volatile int runState;

    /**
     * Whether the master thread was started ({@link MasterStart#STARTED}); set under this object's monitor, read
     * anywhere.
     */
    private volatile MasterStart masterStart = MasterStart.NOT_STARTED;

    private volatile boolean continueExistingPeriodicTasks;
    private volatile boolean executeExistingDelayedTasks = true;

    Lifecycle(String name, Clock clock, ExecutorHooks hooks, Master master, Dispatcher dispatcher) {
        this.name = name;
        this.clock = clock;
        this.hooks = hooks;
        this.master = master;
        this.dispatcher = dispatcher;
    }

    // -- the run state ----------------------------------------------------------------------------------------------

    int runState() {
        return runState;
    }

    boolean isRunning() {
        return runState == RUNNING;
    }

    boolean isShutdown() {
        return runState >= SHUTDOWN;
    }

    boolean isStopping() {
        return runState >= STOP;
    }

    boolean isTerminating() {
        int rs = runState;
        return rs >= SHUTDOWN && rs < TERMINATED;
    }

    boolean isTerminated() {
        return runState == TERMINATED;
    }

    /** @return true if the state was below TIDYING: there may be tasks to apply the new state to */
    boolean advanceTo(int target) {
        for (;;) {
            int rs = runState;
            if (rs >= target) {
                return rs < TIDYING;
            }
            if (RUN_STATE.compareAndSet(this, rs, target)) {
                return true;
            }
        }
    }

    // -- the shutdown policies --------------------------------------------------------------------------------------

    /** @return whether the run state (and, once shut down, the policies) let this task run or stay */
    boolean mayRun(ScheduledTask<?> task) {
        int rs = runState;
        return rs == RUNNING || (rs == SHUTDOWN && keptAfterShutdown(task));
    }

    /** What {@code shutdown()} keeps, by the two policies: periodic tasks, and delayed ones (always when due). */
    boolean keptAfterShutdown(ScheduledTask<?> task) {
        return task.isPeriodic()
                ? continueExistingPeriodicTasks
                : executeExistingDelayedTasks || task.deadline <= clock.now();
    }

    boolean continuesExistingPeriodicTasks() {
        return continueExistingPeriodicTasks;
    }

    boolean executesExistingDelayedTasks() {
        return executeExistingDelayedTasks;
    }

    /** @return true if the policy no longer keeps tasks it kept, after shutdown: they must be cancelled now */
    boolean setContinueExistingPeriodicTasks(boolean value) {
        continueExistingPeriodicTasks = value;
        return !value && isShutdown();
    }

    /** @return true if the policy no longer keeps tasks it kept, after shutdown: they must be cancelled now */
    boolean setExecuteExistingDelayedTasks(boolean value) {
        executeExistingDelayedTasks = value;
        return !value && isShutdown();
    }

    // -- the master's start -----------------------------------------------------------------------------------------

    boolean masterStarted() {
        return masterStart == MasterStart.STARTED;
    }

    /**
     * {@link #startMaster} unless the master runs, as a schedule needs it: a call on an object of one of two classes
     * rather than a flag tested at each schedule, as the workers' start is ({@code PoolControls.WorkerStarts}). The
     * schedule path is compiled while a master runs, so a test of the flag was compiled as a trap, and a new
     * executor's first schedule took it and threw that compiled path away to be compiled again during the executor's
     * first burst; a call on an object of a class the JIT has not seen there runs in the interpreter, that once.
     *
     * @return whether the master runs
     */
    boolean ensureMasterStarted() {
        return masterStart.ensureStarted(this);
    }

    /** The two states of the master's start (see {@link #ensureMasterStarted}). */
    private enum MasterStart {
        NOT_STARTED {
            @Override
            boolean ensureStarted(Lifecycle lifecycle) {
                return lifecycle.startMaster();
            }
        },
        STARTED {
            @Override
            boolean ensureStarted(Lifecycle lifecycle) {
                return true;
            }
        };

        abstract boolean ensureStarted(Lifecycle lifecycle);
    }

    /**
     * Starts the master thread once, unless shutdownNow has begun or the executor has terminated: a master started
     * then would hold the task that asked for it where no drain and no decision looks any more.
     *
     * @return whether the master runs
     */
    synchronized boolean startMaster() {
        if (masterStarted()) {
            return true;
        }
        if (runState >= STOP || !master.startThread()) {
            return false;
        }
        masterStart = MasterStart.STARTED;
        return true;
    }

    // -- the decision -----------------------------------------------------------------------------------------------

    /**
     * The one way in to the termination decision, as {@code ThreadPoolExecutor.tryTerminate}: whoever did something
     * that can let the executor terminate calls it (a shutdown, a dispatcher that became idle, a publisher that took
     * its task back, the master at the end of a turn that found it holding nothing). If no master was ever started,
     * the caller decides now, under this object's monitor, which also keeps a master from starting meanwhile. If one
     * was, only the master thread may see what it holds: called there, it decides, reading its inbox again once the
     * dispatcher is seen idle (see {@link Dispatcher#close}); called elsewhere, it wakes the master to decide.
     *
     * @return true once the executor has decided to terminate (TIDYING or TERMINATED)
     */
    boolean tryTerminate() {
        Dispatcher.Closing closing;
        synchronized (this) {
            if (!masterStarted()) {
                closing = close(NO_MASTER); // and none can start while this monitor is held
            } else if (master.isMasterThread()) {
                closing = close(master::holdsNothing);
            } else {
                closing = null;
            }
        }
        if (closing == null) {
            master.wake();
            return runState >= TIDYING;
        }
        return finishIfDone(closing);
    }

    /** Closes the dispatcher and moves to TIDYING if the executor can terminate; this object's monitor is held. */
    private Dispatcher.Closing close(BooleanSupplier masterStillEmpty) {
        int rs = runState;
        if (rs >= TIDYING) {
            return Dispatcher.Closing.ALREADY_CLOSED;
        }
        if (rs < SHUTDOWN) {
            return Dispatcher.Closing.BUSY;
        }
        Dispatcher.Closing closing = dispatcher.close(masterStillEmpty);
        if (closing != Dispatcher.Closing.BUSY) {
            runState = TIDYING;
        }
        return closing;
    }

    /** @return true if terminated or terminating; runs the last step now if no thread of the dispatcher is left */
    private boolean finishIfDone(Dispatcher.Closing closing) {
        if (closing == Dispatcher.Closing.NO_THREADS_LEFT) {
            finish();
        }
        return closing != Dispatcher.Closing.BUSY;
    }

    /**
     * The last step, exactly once: after the decision, when the dispatcher's last thread has left (called by that
     * thread) or at once if none was left. Runs {@code terminated()}, then moves to TERMINATED.
     */
    void finish() {
        synchronized (this) {
            // The decision that closed the dispatcher records TIDYING before it lets go of this monitor, and the
            // dispatcher's last thread may get here first: it waits for that here, for the moment it takes.
            assert runState == TIDYING;
        }
        try {
            hooks.terminated();
        } catch (Throwable t) {
            InternalFailures.report(name, "terminated() threw", t);
        } finally {
            runState = TERMINATED;
            terminationSignal.countDown();
        }
    }

    boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return terminationSignal.await(timeout, unit);
    }

    /** Waits without a time limit until TERMINATED. */
    void awaitTermination() throws InterruptedException {
        terminationSignal.await();
    }

}
