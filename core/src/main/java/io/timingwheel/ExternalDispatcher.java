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
 * master to cancel. If the executor refuses a task, the task fails with that exception.
 *
 * <p>The pool settings are kept for the getters only: the given executor owns its threads.
 */
final class ExternalDispatcher extends Dispatcher {
    private final Executor executor;

    /** Handed over and not yet claimed. */
    private final Set<ScheduledTask<?>> waiting = ConcurrentHashMap.newKeySet();

    /** Threads of the executor running a task of ours now. */
    private final Set<Thread> runners = ConcurrentHashMap.newKeySet();

    /** Handed over and not yet finished with: the termination decision waits for 0. */
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger largest = new AtomicInteger();
    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LatenessHistogram lateness = new LatenessHistogram();
    private volatile boolean terminated;

    ExternalDispatcher(ExecutorCore core, int corePoolSize, Executor executor) {
        super(core, corePoolSize);
        this.executor = executor;
    }

    @Override
    void dispatch(ScheduledTask<?> task) {
        if (terminated) {
            task.cancel(false);
            return;
        }
        inFlight.incrementAndGet();
        waiting.add(task);
        try {
            executor.execute(() -> runHandedOver(task));
        } catch (Throwable refused) {
            if (waiting.remove(task)) {
                task.failUnstarted(refused);
            }
            finished();
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
            finished(); // leave it to shutdownNow, or to the master's sweep of stragglers
            return;
        }
        boolean claimed = false;
        boolean direct = runsDirectly(task);
        if (!core.canRun(task, runState)) {
            task.cancelIfPending(); // the shutdown policies forbid it to run
        } else {
            claimed = claim(task, direct); // fails if it was cancelled, or returned by shutdownNow, meanwhile
        }
        waiting.remove(task);
        if (!claimed) {
            finished();
            return;
        }
        Thread me = Thread.currentThread();
        runners.add(me);
        largest.accumulateAndGet(runners.size(), Math::max);
        boolean failedRun = false;
        try {
            if (core.isStopped()) {
                me.interrupt(); // stopped since the claim: the task has started and runs interrupted, as ours do
            }
            runClaimed(task, direct, me, lateness);
            failedRun = task.isFailed();
        } finally {
            runners.remove(me);
            completed.increment();
            if (failedRun) {
                failed.increment();
            }
            finished();
        }
    }

    private void finished() {
        if (inFlight.decrementAndGet() == 0 && core.isShutdown()) {
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
        return inFlight.get() == 0;
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
        if (terminated) {
            return true;
        }
        if (inFlight.get() != 0) {
            return false;
        }
        terminated = true;
        whenThreadsGone.run();
        return true;
    }
}
