package io.timingwheel;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs due tasks on a user-supplied {@link Executor} (for example one virtual thread per task) instead of the
 * executor's own workers. A task handed over waits in {@code waiting} until a thread of that executor starts it;
 * whoever removes it from there owns it, the runner or {@code shutdownNow}, so a task is either started or returned,
 * never both and never neither. If the executor rejects a task, the task fails with that exception.
 */
final class ExternalDispatcher implements Dispatcher {
    private final TimingWheelExecutor owner;
    private final Executor executor;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger active = new AtomicInteger();
    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LatenessHistogram lateness = new LatenessHistogram();
    private final Set<Thread> runners = ConcurrentHashMap.newKeySet();
    private final Set<ScheduledTask<?>> waiting = ConcurrentHashMap.newKeySet();
    private volatile boolean terminated;

    ExternalDispatcher(TimingWheelExecutor owner, Executor executor) {
        this.owner = owner;
        this.executor = executor;
    }

    @Override
    public void dispatch(ScheduledTask<?> task) {
        task.next = null;
        if (terminated) {
            task.cancel(false);
            return;
        }
        inFlight.incrementAndGet();
        waiting.add(task);
        try {
            executor.execute(() -> runOnCurrentThread(task));
        } catch (Throwable rejected) {
            if (waiting.remove(task)) {
                task.failUnstarted(rejected);
            }
            finished();
        }
    }

    private void runOnCurrentThread(ScheduledTask<?> task) {
        // Stopping: leave the task where shutdownNow's drain returns it. Otherwise whoever removes it owns it; if
        // shutdownNow comes after our removal, the task has started (as with our own workers) and runs, interrupted.
        if (owner.isStopped() || !waiting.remove(task)) {
            finished();
            return;
        }
        Thread me = Thread.currentThread();
        active.incrementAndGet();
        runners.add(me);
        try {
            boolean stoppedSinceStart = owner.isStopped();
            if (stoppedSinceStart) {
                me.interrupt();
            }
            if ((stoppedSinceStart || owner.canRunInCurrentState(task)) && task.claim()) {
                lateness.recordConcurrently(owner.now() - task.deadline);
                task.runClaimed();
                completed.increment();
                if (task.isFailed()) {
                    failed.increment();
                }
            } else if (task.isPending()) {
                task.cancel(false); // the shutdown policies forbid it to run
            }
        } finally {
            runners.remove(me);
            active.decrementAndGet();
            finished();
        }
    }

    private void finished() {
        if (inFlight.decrementAndGet() == 0 && owner.isShutdown()) {
            owner.wakeMaster();
        }
    }

    @Override
    public void dispatchAll(ScheduledTask<?> first, ScheduledTask<?> last, int count) {
        ScheduledTask<?> task = first;
        for (int i = 0; i < count; i++) {
            ScheduledTask<?> following = (ScheduledTask<?>) task.next;
            dispatch(task);
            task = following;
        }
    }

    @Override
    public void prestart() {
        // the external executor owns its threads
    }

    @Override
    public boolean isFullyStarted() {
        return true;
    }

    @Override
    public boolean isStarved() {
        return false; // the external executor owns its threads
    }

    @Override
    public boolean isQuiescent() {
        return inFlight.get() == 0;
    }

    @Override
    public void drainUnstartedTo(List<ScheduledTask<?>> sink) {
        for (ScheduledTask<?> task : waiting) {
            if (waiting.remove(task)) {
                sink.add(task);
            }
        }
    }

    @Override
    public void snapshotTo(List<ScheduledTask<?>> sink) {
        for (ScheduledTask<?> task : waiting) {
            if (task.isPending()) {
                sink.add(task);
            }
        }
    }

    @Override
    public void interruptWorkers() {
        for (Thread t : runners) {
            t.interrupt();
        }
    }

    @Override
    public boolean tryTerminate(boolean awaitThreadsExit) {
        if (inFlight.get() != 0) {
            return false;
        }
        terminated = true;
        return true;
    }

    /** @return the threads of the external executor running a task of ours now */
    @Override
    public int poolSize() {
        return runners.size();
    }

    @Override
    public int activeCount() {
        return active.get();
    }

    @Override
    public long completedCount() {
        return completed.sum();
    }

    @Override
    public long failedCount() {
        return failed.sum();
    }

    @Override
    public void addLatenessTo(long[] sums) {
        lateness.addTo(sums);
    }

    @Override
    public int queuedCount() {
        return Math.max(0, inFlight.get() - active.get());
    }
}
