package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One thread of the {@link WorkerPool}: it takes a task from the pool ({@link WorkerPool#next}), runs it, and again,
 * until the pool lets it go. It counts its runs as a worker of the JDK's {@code ThreadPoolExecutor} counts them: a run
 * is active from its claim until the run and its {@code afterExecute} have returned, and then completed;
 * so a task reads, inside its own run, every run before it on this thread as completed and itself as active.
 *
 * <p>Its {@link Hand} holds due tasks it took behind the one it runs, under the same hold of the pool's lock; it runs
 * them one by one without the lock (see {@link Hand}).
 */
final class Worker implements Runnable {
    private static final VarHandle COMPLETED;
    private static final VarHandle FAILED;
    private static final VarHandle ACTIVE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            COMPLETED = lookup.findVarHandle(Worker.class, "completed", long.class);
            FAILED = lookup.findVarHandle(Worker.class, "failed", long.class);
            ACTIVE = lookup.findVarHandle(Worker.class, "active", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * How many tasks a worker takes and runs per call of its loop's body ({@link #runSome}). The JIT compiles a
     * method when it is called often or when its loop turns often; a loop that a thread enters once (the thread's)
     * only the second way, by on-stack replacement, which came seconds late in a pool with tens of thousands of runs a
     * second, and in one large piece with everything the loop inlines. The work is in {@link #runSome}, called and
     * turning often from the first runs on.
     */
    private static final int RUNS_PER_CALL = 64;

    private final WorkerPool pool;
    private final TaskRunner runner;
    private final DispatcherHost host;

    /** Set once, before the thread starts. */
    Thread thread;

    /**
     * The task this worker took from a virtual clock's step it took ({@link WorkerPool#giveToStepper}), claimed as one
     * taken from the queue is; the step's caller clears it. Under the pool's lock.
     */
    ScheduledTask<?> takenFromStep;

    /** The due tasks this worker took behind the one it runs: see {@link Hand}. */
    final Hand hand = new Hand();

    /**
     * The executor's time as this worker read it last: a task due by then is due now (the clock never goes back), so
     * a worker with a backlog of due tasks reads the clock once per task it cannot settle so, not once per task.
     * Written by the pool for this worker, under its lock.
     */
    long timeSeen = Long.MIN_VALUE;

    /** The task {@link WorkerPool#next} handed out last, the form it runs in, and whether it was claimed. */
    Runnable userTask;
    boolean direct;
    boolean claimed;

    /**
     * Set when the pool dropped a task that was no longer pending from the queue's head for this worker: maybe the
     * last work after shutdown, so the worker asks for the termination decision, as after a run. Under the lock.
     */
    boolean droppedStraggler;

    /** Set when this worker is the last to leave a closed pool: it then reports that the threads are gone. */
    boolean lastToLeave;

    /** The lateness of this worker's runs; only this worker records into it. */
    final LatenessHistogram lateness = LatenessHistogram.forOneThread();

    /** Runs ended, and how many of them failed: written by this worker alone, read by anyone. */
    private long completed;
    private long failed;

    /** 1 from just before a claim until the run has ended and been counted; written by this worker alone. */
    private int active;

    /**
     * The runs it started and the task it runs now, if any ({@link StallWatch}): the task names it when a virtual
     * clock gives up waiting for it. Made as the worker enlists; plain writes, read by others without order.
     */
    StallWatch.Progress progress;

    Worker(WorkerPool pool, TaskRunner runner, DispatcherHost host) {
        this.pool = pool;
        this.runner = runner;
        this.host = host;
    }

    /** The thread's loop. */
    @Override
    public void run() {
        try {
            while (runSome()) {
                // each call took and ran RUNS_PER_CALL tasks
            }
        } finally {
            if (lastToLeave) {
                host.threadsGone();
            }
        }
    }

    /** Takes and runs up to {@value #RUNS_PER_CALL} tasks. @return false if the worker must leave */
    private boolean runSome() {
        for (int i = 0; i < RUNS_PER_CALL; i++) {
            if (!runNext()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Runs the hand's next task, if it holds one; otherwise takes the next task from the pool and runs it. A hand's
     * tasks run here, one per call, not in a loop of their own, so that this method is compiled with the hand's path
     * as soon as with any run's.
     *
     * @return false if the worker must leave
     */
    private boolean runNext() {
        try {
            ScheduledTask<?> task = hand.next();
            if (task != null) {
                runFromHand(task);
                return true;
            }
            task = pool.next(this);
            if (task == null) {
                return false;
            }
            runTaken(task);
        } catch (Throwable death) {
            // a hook or a decoration threw: the thread dies of it, as in the JDK, whose worker counts that run too
            if (isActive()) {
                endRun(false);
            }
            pool.workerDied(this);
            throw death;
        }
        return true;
    }

    /**
     * Marks the worker active, as it claims the next task: under the pool's lock, or, for its hand's, just before the
     * claim, so that a look at the pool that reads the task's claim and then this flag ({@link WorkerPool#close},
     * {@link WorkerPool#idleRunsEnded}) never finds the task gone and the worker idle.
     */
    void beginRun() {
        ACTIVE.setRelease(this, 1);
    }

    /**
     * Counts the run as ended (and failed, if so): after it and its hooks have returned. Release writes, read with
     * acquire: a reader that sees the run ended sees what it did, a periodic task's re-arm among it (the termination
     * decision and a virtual clock's look rely on it).
     */
    private void endRun(boolean runFailed) {
        COMPLETED.setRelease(this, completed + 1);
        if (runFailed) {
            FAILED.setRelease(this, failed + 1);
        }
        ACTIVE.setRelease(this, 0);
    }

    /**
     * Runs a task that {@link WorkerPool#next} took for this worker, claimed unless {@link #claimed} says not: then the
     * shutdown policies forbid it to run (or a cancel won the race for it), and it ends as a run that cancels itself,
     * counted as the JDK's worker counts a task it takes.
     */
    private void runTaken(ScheduledTask<?> task) {
        Runnable form = userTask;
        userTask = null; // not kept alive past its run
        if (!claimed) {
            task.cancelIfPending();
            endRun(false);
            return;
        }
        endRun(runClaimed(task, form, direct));
    }

    /**
     * Starts the hand's next task, claimed as it starts, as {@link #runTaken} does a task from the queue; one another
     * worker took, or that was cancelled, is passed over. Once the executor stops, the rest stays pending in the hand
     * for shutdownNow's drain.
     */
    private void runFromHand(ScheduledTask<?> task) {
        boolean mayRun = host.mayRun(task);
        if (!mayRun && host.isStopping()) {
            hand.leaveRest(); // this one and the rest are the drain's
            return;
        }
        if (!task.isPending()) {
            return; // taken by another worker, or cancelled: not this worker's run
        }
        beginRun(); // before the claim: a look that sees the task no longer pending sees this worker active
        if (!mayRun) {
            task.cancelIfPending(); // the shutdown policies forbid it to run
            endRun(false);
        } else if (TaskRunner.claim(task, true)) {
            endRun(runClaimed(task, task, true));
        } else {
            ACTIVE.setRelease(this, 0); // lost the race for it since the look above: not this worker's run
        }
    }

    /** Runs a task this thread has claimed. @return whether the run failed */
    private boolean runClaimed(ScheduledTask<?> task, Runnable form, boolean runsDirectly) {
        // An interrupt meant for an earlier task (or a stray one) must not reach this task, unless the executor is
        // stopping, in which case it must. Clear first, then look: a shutdownNow that comes after the look interrupts
        // this thread itself, one that came before it is seen.
        Thread.interrupted();
        if (host.isStopping()) {
            thread.interrupt();
        }
        progress.running = task;
        progress.started++;
        runner.run(task, form, runsDirectly, thread, lateness);
        progress.running = null;
        return task.isFailed();
    }

    /** @return the runs this worker ended (any thread) */
    long completedRuns() {
        return (long) COMPLETED.getAcquire(this);
    }

    /** @return the runs this worker ended that failed (any thread) */
    long failedRuns() {
        return (long) FAILED.getAcquire(this);
    }

    /** @return whether this worker is in a run now (any thread) */
    boolean isActive() {
        return (int) ACTIVE.getAcquire(this) != 0;
    }
}
