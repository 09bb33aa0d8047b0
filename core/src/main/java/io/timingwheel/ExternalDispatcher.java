package io.timingwheel;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs due tasks on a user-supplied {@link Executor} (for example one virtual thread per task) instead of the
 * executor's own workers. Tasks handed over are out of reach: {@code shutdownNow} cannot return them, but they
 * cancel themselves when they start after it. If the executor rejects a task, the task fails with that exception.
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
    private volatile boolean terminated;

    ExternalDispatcher(TimingWheelExecutor owner, Executor executor) {
        this.owner = owner;
        this.executor = executor;
    }

    @Override
    public void dispatch(ScheduledTask<?> task) {
        task.next = null;
        if (terminated) {
            owner.leftPending(task);
            task.cancel(false);
            return;
        }
        inFlight.incrementAndGet();
        try {
            executor.execute(() -> runOnCurrentThread(task));
        } catch (Throwable rejected) {
            owner.leftPending(task);
            task.failUnstarted(rejected);
            finished();
        }
    }

    private void runOnCurrentThread(ScheduledTask<?> task) {
        Thread me = Thread.currentThread();
        active.incrementAndGet();
        runners.add(me);
        try {
            owner.leftPending(task);
            if (owner.isStopped()) {
                me.interrupt();
            }
            if (owner.canRunInCurrentState(task) && task.claim()) {
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
    public void dispatchAll(ScheduledTask<?> first, int count) {
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
    public boolean isStarved() {
        return false; // the external executor owns its threads
    }

    @Override
    public boolean isQuiescent() {
        return inFlight.get() == 0;
    }

    @Override
    public void drainUnstartedTo(List<ScheduledTask<?>> sink) {
        // tasks handed over are out of reach; they cancel themselves if they start after shutdownNow
    }

    @Override
    public void snapshotTo(List<ScheduledTask<?>> sink) {
        // as above
    }

    @Override
    public void interruptWorkers() {
        for (Thread t : runners) {
            t.interrupt();
        }
    }

    @Override
    public boolean tryTerminate() {
        if (inFlight.get() != 0) {
            return false;
        }
        terminated = true;
        return true;
    }

    @Override
    public int poolSize() {
        return 0;
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
