package io.timingwheel;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

/**
 * Runs due tasks on a user-supplied {@link Executor} (for example one virtual thread per task) instead of the
 * executor's own workers.
 *
 * <p>A task handed over waits in {@code waiting} until a thread of that executor claims it, which is the moment it
 * starts: the claim is a CAS on the task's state, and so is {@code shutdownNow}'s return of a task, so exactly one of
 * them wins and a task is either started or returned, never both and never neither. A thread that finds the executor
 * stopping leaves its task where it is, for {@code shutdownNow} to return or, if it came later, for the terminating
 * master to cancel; so termination waits for the tasks, never for the executor's threads (one that never comes, after
 * its executor was shut down, holds nothing up). If the executor refuses a task, the task fails with that exception.
 *
 * <p>A small lock makes three steps atomic with the termination decision: a task entering {@code waiting}, a thread
 * becoming active, and the decision itself. It is taken once per hand-over and once per run, never held while a task
 * runs. The pool settings are kept for the getters only: the given executor owns its threads.
 */
final class ExternalDispatcher extends Dispatcher {
    private final Executor executor;

    /** Guards {@code active}, {@code terminated}, and the additions to {@code waiting}. */
    private final Object lock = new Object();

    /** Handed over and not yet claimed. */
    private final Set<ScheduledTask<?>> waiting = ConcurrentHashMap.newKeySet();

    /** Threads of the executor running a task of ours now. */
    private final Set<Thread> runners = ConcurrentHashMap.newKeySet();

    /** Threads between their admission and the end of their task's run; guarded by {@code lock}. */
    private int active;

    /** Guarded by {@code lock}. */
    private boolean terminated;

    private final AtomicInteger largest = new AtomicInteger();
    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LatenessHistogram lateness = new LatenessHistogram();

    ExternalDispatcher(ExecutorCore core, int corePoolSize, Executor executor) {
        super(core, corePoolSize);
        this.executor = executor;
    }

    @Override
    void dispatch(ScheduledTask<?> task) {
        boolean handedOver;
        synchronized (lock) {
            handedOver = !terminated && waiting.add(task);
        }
        if (!handedOver) {
            task.cancel(false); // terminated: a straggler that raced with termination
            return;
        }
        try {
            executor.execute(() -> runHandedOver(task));
        } catch (Throwable refused) {
            if (waiting.remove(task)) {
                task.failUnstarted(refused);
            }
            idleCheck();
        }
    }

    @Override
    void dispatchAll(ScheduledTask<?>[] batch, int count) {
        for (int i = 0; i < count; i++) {
            dispatch(batch[i]);
        }
    }

    private void runHandedOver(ScheduledTask<?> task) {
        int runState = core.runState();
        if (runState >= ExecutorCore.STOP) {
            return; // leave it to shutdownNow, or to the master's sweep of stragglers
        }
        synchronized (lock) {
            if (terminated) {
                return;
            }
            active++;
        }
        Thread me = Thread.currentThread();
        boolean failedRun = false;
        try {
            boolean direct = runsDirectly(task);
            boolean claimed = false;
            if (!core.canRun(task, runState)) {
                task.cancelIfPending(); // the shutdown policies forbid it to run
            } else {
                claimed = claim(task, direct); // fails if it was cancelled, or returned by shutdownNow, meanwhile
            }
            waiting.remove(task);
            if (claimed) {
                runners.add(me);
                largest.accumulateAndGet(runners.size(), Math::max);
                if (core.isStopped()) {
                    me.interrupt(); // stopped since the claim: the task has started and runs interrupted, as ours do
                }
                runClaimed(task, direct, me, lateness);
                failedRun = task.isFailed();
                completed.increment();
            }
        } finally {
            if (failedRun) {
                failed.increment();
            }
            runners.remove(me);
            synchronized (lock) {
                active--;
            }
            idleCheck();
        }
    }

    /** After shutdown, lets the core decide on termination once nothing waits or runs here. */
    private void idleCheck() {
        if (core.isShutdown() && isQuiescent()) {
            core.dispatcherIdle();
        }
    }

    // -- pool management: the executor owns its threads --------------------------------------------------------------

    @Override
    void prestart() {
    }

    @Override
    boolean isFullyStarted() {
        return true;
    }

    @Override
    void poolSettingsChanged(int previousCorePoolSize) {
    }

    @Override
    boolean prestartCoreThread() {
        return false;
    }

    /** @return the threads of the external executor running a task of ours now */
    @Override
    int poolSize() {
        return runners.size();
    }

    @Override
    int largestPoolSize() {
        return largest.get();
    }

    @Override
    int activeCount() {
        return runners.size();
    }

    @Override
    long completedCount() {
        return completed.sum();
    }

    @Override
    void addTo(ExecutorStatistics.Builder stats) {
        stats.running(runners.size()).completedRuns(completed.sum()).failedRuns(failed.sum());
        lateness.addTo(stats.lateness());
    }

    @Override
    boolean isOwnThread() {
        return runners.contains(Thread.currentThread());
    }

    // -- shutdown ---------------------------------------------------------------------------------------------------

    @Override
    boolean isStarved() {
        return false; // the external executor owns its threads
    }

    @Override
    boolean isQuiescent() {
        synchronized (lock) {
            return active == 0 && waiting.isEmpty();
        }
    }

    @Override
    void cancelUnless(Predicate<ScheduledTask<?>> keep) {
        for (ScheduledTask<?> task : waiting) {
            if (!keep.test(task) && task.cancelIfPending()) {
                waiting.remove(task);
            }
        }
    }

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
    void snapshotTo(List<ScheduledTask<?>> sink) {
        for (ScheduledTask<?> task : waiting) {
            if (task.isPending()) {
                sink.add(task);
            }
        }
    }

    @Override
    int pendingCount() {
        int n = 0;
        for (ScheduledTask<?> task : waiting) {
            if (task.isPending()) {
                n++;
            }
        }
        return n;
    }

    @Override
    void interruptWorkers() {
        for (Thread t : runners) {
            t.interrupt();
        }
    }

    @Override
    boolean tryTerminate(Runnable whenThreadsGone) {
        synchronized (lock) {
            if (terminated) {
                return true;
            }
            if (active != 0 || !waiting.isEmpty()) {
                return false;
            }
            terminated = true;
        }
        whenThreadsGone.run(); // the threads are the executor's own business: none of ours is left
        return true;
    }
}
