package io.timingwheel;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * Runs due tasks on a user-supplied {@link Executor} (for example one virtual thread per task) instead of the
 * executor's own workers. Tasks are handed over in deadline order; when and in which order they run is that
 * executor's business.
 *
 * <p>A task handed over waits in {@code waiting} until a thread of that executor claims it, which is the moment it
 * starts: the claim is a CAS on the task's state, and so is {@code shutdownNow}'s return of a task, so exactly one of
 * them wins and a task is either started or returned, never both and never neither. A thread that finds the executor
 * stopping leaves its task where it is, for {@code shutdownNow} to return (or its producer to take back, if it came
 * after the drain); so termination waits for the tasks, never for the executor's threads (one that never comes, after
 * its executor was shut down, holds nothing up). If the executor refuses a task, the task fails with that exception.
 *
 * <p>A small lock makes three steps atomic with the termination decision: a task entering {@code waiting}, a thread
 * becoming active, and {@link #close}. It is taken once per hand-over and once per run, never held while a task
 * runs. The pool settings are not this class's business: the given executor owns its threads (the executor keeps
 * the settings for the JDK's getters).
 */
final class ExternalDispatcher extends Dispatcher {
    private final TaskRunner runner;
    private final Executor executor;

    /** Guards {@code active}, {@code closed}, and the additions to {@code waiting}. */
    private final Object lock = new Object();

    /** Handed over and not yet claimed. */
    private final Set<ScheduledTask<?>> waiting = ConcurrentHashMap.newKeySet();

    /** Threads of the executor running a task of ours now, and the task each runs. */
    private final Map<Thread, ScheduledTask<?>> runners = new ConcurrentHashMap<>();

    /** Threads between their admission and the end of their task's run; guarded by {@code lock}. */
    private int active;

    /** Set by the termination decision; guarded by {@code lock}. */
    private boolean closed;

    private final AtomicInteger largest = new AtomicInteger();
    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();

    /** The lateness of all runs: the executor's threads record into it together. */
    private final LatenessHistogram lateness = LatenessHistogram.shared();

    ExternalDispatcher(DispatcherHost host, TaskRunner runner, Executor executor) {
        super(host);
        this.runner = runner;
        this.executor = executor;
    }

    @Override
    boolean dispatch(ScheduledTask<?> task) {
        synchronized (lock) {
            if (closed) {
                return false;
            }
            waiting.add(task);
        }
        try {
            executor.execute(new HandedOver(task));
        } catch (Throwable refused) {
            if (waiting.remove(task)) {
                task.failUnstarted(refused);
            }
            idleCheck();
        }
        return true;
    }

    @Override
    void dispatchAll(HandOver handOver) {
        for (int i = 0; i < handOver.size(); i++) {
            ScheduledTask<?> task = handOver.task(i);
            if (!dispatch(task)) {
                task.cancelIfPending(); // never: the master decides on termination after its last hand-off
            }
        }
        handOver.openGate(); // the executor's threads never read it, but publishers and the master's sleep do
    }

    /**
     * What the executor runs for a task handed over. A class, not a lambda: a lambda's call site is linked on its first
     * call, which costs the first hand-over of a fresh JVM a millisecond or more on the master thread, while the
     * timers due first wait behind it.
     */
    private final class HandedOver implements Runnable {
        private final ScheduledTask<?> task;

        HandedOver(ScheduledTask<?> task) {
            this.task = task;
        }

        @Override
        public void run() {
            runHandedOver(task);
        }
    }

    /** Raises the largest number of threads seen running at once to {@code running}, if it is larger. */
    private void raiseLargest(int running) {
        for (int seen = largest.get(); running > seen && !largest.compareAndSet(seen, running); seen = largest.get()) {
            // another thread raised it meanwhile: look again
        }
    }

    private void runHandedOver(ScheduledTask<?> task) {
        if (host.isStopping()) {
            if (!task.isPending()) {
                waiting.remove(task); // taken back by its producer; a pending one is shutdownNow's to return
            }
            return;
        }
        synchronized (lock) {
            if (closed) {
                return;
            }
            active++;
        }
        Thread me = Thread.currentThread();
        boolean runFailed = false;
        try {
            Runnable userTask = runner.userTask(task);
            boolean direct = runner.runsDirectly(task, userTask);
            boolean claimed = false;
            boolean leftForShutdownNow = false;
            if (host.mayRun(task)) {
                claimed = TaskRunner.claim(task, direct); // fails if cancelled or returned meanwhile
            } else if (!host.isStopping()) {
                task.cancelIfPending(); // the shutdown policies forbid it to run
            } else {
                // shutdownNow began since the look above: a pending task is its drain's to return, as above
                leftForShutdownNow = task.isPending();
            }
            if (!leftForShutdownNow) {
                waiting.remove(task);
            }
            if (claimed) {
                runners.put(me, task);
                raiseLargest(runners.size());
                if (host.isStopping()) {
                    me.interrupt(); // stopped since the claim: the task has started and runs interrupted, as ours do
                }
                runner.run(task, userTask, direct, me, lateness);
                runFailed = task.isFailed();
                completed.increment();
            }
        } finally {
            if (runFailed) {
                failed.increment();
            }
            runners.remove(me);
            synchronized (lock) {
                active--;
            }
            idleCheck();
        }
    }

    /** After shutdown, lets the termination decision look once nothing waits or runs here. */
    private void idleCheck() {
        if (host.isShutdown() && isIdle()) {
            host.tryTerminate();
        }
    }

    private boolean isIdle() {
        return idleRunsEnded(null) >= 0;
    }

    @Override
    long idleRunsEnded(Thread advancing) {
        synchronized (lock) {
            // a run is counted as ended before its thread leaves active: when none is active, all are counted. The
            // tasks handed to the executor are its threads' to take, however busy the advancing one is.
            int own = advancing != null && runners.containsKey(advancing) ? 1 : 0;
            return active == own && !hasPendingWaiting() ? completed.sum() : -1;
        }
    }

    @Override
    void copyRunningTo(List<ScheduledTask<?>> sink) {
        sink.addAll(runners.values());
    }

    private boolean hasPendingWaiting() {
        for (ScheduledTask<?> task : waiting) {
            if (task.isPending()) {
                return true;
            }
        }
        return false;
    }

    /** The executor owns its threads: the pool's size is that of those running a task of ours now. */
    @Override
    Figures figures() {
        long[] counts = new long[LatenessHistogram.BUCKETS];
        lateness.addTo(counts);
        int running = runners.size();
        return new Figures(running, largest.get(), running, completed.sum(), failed.sum(), counts);
    }

    // -- queries and shutdown ---------------------------------------------------------------------------------------

    @Override
    void drainUnstartedTo(List<ScheduledTask<?>> sink) {
        for (ScheduledTask<?> task : waiting) {
            if (task.markReturned()) {
                sink.add(task);
            }
            waiting.remove(task);
        }
    }

    @Override
    void copyWaitingTo(List<ScheduledTask<?>> sink) {
        for (ScheduledTask<?> task : waiting) {
            if (task.isPending()) {
                sink.add(task);
            }
        }
    }

    @Override
    void interruptWorkers() {
        for (Thread t : runners.keySet()) {
            t.interrupt();
        }
    }

    @Override
    Closing close(BooleanSupplier masterStillEmpty) {
        synchronized (lock) {
            if (closed) {
                return Closing.ALREADY_CLOSED;
            }
            if (active != 0 || hasPendingWaiting() || !masterStillEmpty.getAsBoolean()) {
                return Closing.BUSY;
            }
            closed = true;
            waiting.clear(); // stragglers that left NEW
        }
        return Closing.NO_THREADS_LEFT; // the threads are the executor's own business: none of ours is left
    }
}
