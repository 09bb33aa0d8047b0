package io.timingwheel;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The worker pool's side of a virtual clock's stepped advance ({@link VirtualClock}): the worker that ends the last
 * run under way steps the clock before it waits, and a step whose time has one task due gives it to that worker. So a
 * heartbeat runs, steps and runs again on one thread, with nothing queued, no gate opened and no other worker woken.
 * Everything here runs under the pool's lock, or takes it.
 */
final class VirtualSteps {
    private final WorkerPool pool;
    private final ReentrantLock lock;
    private final WorkerRoster roster;
    private final DueTasks due;
    private final DispatcherHost host;

    /** The worker that steps now ({@link #step}), or null. Under the lock. */
    private Worker steppingWorker;

    /** @param lock the pool's lock */
    VirtualSteps(WorkerPool pool, ReentrantLock lock, WorkerRoster roster, DueTasks due, DispatcherHost host) {
        this.pool = pool;
        this.lock = lock;
        this.roster = roster;
        this.due = due;
        this.host = host;
    }

    /**
     * Steps the virtual clock before the worker waits, if no other worker runs a task (the last one to end steps); the
     * lock is held. The step takes the clock's step lock, the master's lock and this one, in that order: so it is
     * taken here, under this lock, only if the other two are free ({@link DispatcherHost#tryStepVirtualTime}), and
     * otherwise with this lock let go, waiting for them. A step whose time has one task due gives it to this worker
     * ({@link #giveToStepper}).
     *
     * @return the task the step gave this worker, or null
     */
    ScheduledTask<?> step(Worker worker) {
        if (roster.activeCount() > 0 || host.isStopping()) {
            return null;
        }
        steppingWorker = worker;
        try {
            // Here, under this lock, if the master's and the clock's locks, which come before it, are free; else
            // without it, waiting for them.
            if (!host.tryStepVirtualTime()) {
                lock.unlock();
                try {
                    host.stepVirtualTime();
                } finally {
                    lock.lock();
                }
            }
        } finally {
            steppingWorker = null;
        }
        ScheduledTask<?> task = worker.takenFromStep;
        worker.takenFromStep = null;
        return task;
    }

    /**
     * A task due now waits at the gate while the workers step a virtual clock: a step that gave its one due task to the
     * worker that stepped opened no gate ({@link MasterLoop#stepIfIdle}), so a task that came straight since (a run's
     * {@code execute}) waits for the master's next full turn, which this worker takes itself, at once, instead of
     * waiting for the master thread to look. The lock is held, and let go for the turn.
     */
    void turnForGate() {
        lock.unlock();
        try {
            host.turnForVirtualTime();
        } finally {
            lock.lock();
        }
    }

    /** As {@link Dispatcher#giveToStepper}: the step's caller is the worker that steps, in an open pool. */
    boolean giveToStepper(ScheduledTask<?> task) {
        lock.lock();
        try {
            Worker stepper = steppingWorker;
            if (pool.isClosed() || stepper == null || stepper.thread != Thread.currentThread()
                    || !due.takeForStepper(stepper, task)) {
                return false;
            }
            stepper.takenFromStep = task;
            return true;
        } finally {
            lock.unlock();
        }
    }
}
