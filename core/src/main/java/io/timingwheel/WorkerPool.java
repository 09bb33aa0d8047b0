package io.timingwheel;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The executor's own worker threads and the FIFO of due tasks they take from.
 *
 * <p>One lock guards the FIFO, the worker set and the counts. The master hands over a whole batch of due tasks under
 * one acquisition, so the lock is taken about once per task by the workers and rarely by the master.
 *
 * <p>Threads come and go as in {@link java.util.concurrent.ThreadPoolExecutor}: a worker starts per dispatched task
 * until the core size is reached (at least one, even for a core size of 0); a worker beyond the core size, or any with
 * {@code allowCoreThreadTimeOut}, leaves after the keep-alive time without work, except the last one while tasks are
 * pending, as the JDK's does. A worker that dies (a hook threw) is replaced; if the thread factory fails, the next
 * dispatch tries again and tasks wait, never lost.
 *
 * <p>A worker claims a task when it takes it, under the lock; {@code shutdownNow} drains under the lock too, so every
 * task is either started or returned, never both and never neither.
 */
final class WorkerPool extends Dispatcher {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition workAvailable = lock.newCondition();
    private final HashSet<Worker> workers = new HashSet<>();
    private final ArrayDeque<ScheduledTask<?>> due = new ArrayDeque<>();

    private int idle;
    private int active;
    private int largest;
    private long completed;
    private long failed;
    private boolean terminated;

    /** Run once the pool has terminated and the last worker has left. */
    private Runnable whenThreadsGone;

    /** The lateness of runs by workers that have left. */
    private final long[] retiredLateness = new long[LatenessHistogram.BUCKETS];

    /** Workers alive or being started; read without the lock on the schedule path. */
    private volatile int workerCount;

    WorkerPool(ExecutorCore core, int corePoolSize) {
        super(core, corePoolSize);
    }

    // -- hand-offs --------------------------------------------------------------------------------------------------

    @Override
    void dispatch(ScheduledTask<?> task) {
        boolean rejected;
        lock.lock();
        try {
            rejected = terminated;
            if (!rejected) {
                due.addLast(task);
                wakeIdle(1);
            }
        } finally {
            lock.unlock();
        }
        if (rejected) {
            task.cancel(false);
        } else {
            prestart();
        }
    }

    @Override
    void dispatchAll(ScheduledTask<?>[] batch, int count) {
        boolean rejected;
        lock.lock();
        try {
            rejected = terminated;
            if (!rejected) {
                for (int i = 0; i < count; i++) {
                    due.addLast(batch[i]);
                }
                wakeIdle(count);
            }
        } finally {
            lock.unlock();
        }
        if (rejected) {
            for (int i = 0; i < count; i++) {
                batch[i].cancel(false);
            }
        } else {
            prestart();
        }
    }

    /** Wakes as many idle workers as there are new tasks; the lock is held. */
    private void wakeIdle(int tasks) {
        for (int i = Math.min(tasks, idle); i > 0; i--) {
            workAvailable.signal();
        }
    }

    /**
     * Books the end of the worker's previous run, if any, then takes the next task for it, claiming it for the
     * worker's thread, and blocks while there is none: one lock acquisition per task in the common case. Returns null
     * when the worker must leave, having removed it from the pool under the same lock, so that a dispatch never counts
     * on a worker that is leaving.
     */
    private ScheduledTask<?> take(Worker worker, boolean ranOne, boolean failedRun) {
        boolean idleAfterShutdown;
        lock.lock();
        try {
            if (ranOne) {
                finished(failedRun);
            }
            ScheduledTask<?> task = poll(worker);
            if (task != null || terminated) {
                return task;
            }
            idleAfterShutdown = ranOne && active == 0 && core.isShutdown();
            if (!idleAfterShutdown) {
                return awaitTask(worker);
            }
        } finally {
            lock.unlock();
        }
        core.dispatcherIdle(); // maybe that was the last work: outside the lock, no lock order spans pool and master
        lock.lock();
        try {
            return awaitTask(worker);
        } finally {
            lock.unlock();
        }
    }

    /** Books the end of a run; the lock is held. */
    private void finished(boolean failedRun) {
        active--;
        completed++;
        if (failedRun) {
            failed++;
        }
    }

    /**
     * Takes the next task without blocking, claimed for the worker, or returns null (and removes the worker if the
     * pool has terminated); the lock is held.
     */
    private ScheduledTask<?> poll(Worker worker) {
        if (terminated) {
            remove(worker);
            return null;
        }
        // While stopping, tasks stay queued for shutdownNow to return: taking one now would leave it neither started
        // nor returned.
        ScheduledTask<?> task = core.isStopped() ? null : due.pollFirst();
        if (task != null) {
            active++;
            worker.direct = runsDirectly(task);
            worker.claimed = core.mayRun(task) && claim(task, worker.direct);
        }
        return task;
    }

    /** Blocks until a task comes, the worker may retire, or the pool terminates; the lock is held. */
    private ScheduledTask<?> awaitTask(Worker worker) {
        boolean timedOut = false;
        for (;;) {
            ScheduledTask<?> task = poll(worker);
            if (task != null || terminated) {
                return task;
            }
            boolean timed = allowCoreThreadTimeOut || workerCount > corePoolSize;
            if (timed && timedOut && (workerCount > 1 || !core.hasPendingTasks())) {
                remove(worker); // idle for the keep-alive time, and not needed
                return null;
            }
            idle++;
            try {
                if (timed) {
                    timedOut = workAvailable.awaitNanos(keepAliveNanos) <= 0;
                } else {
                    workAvailable.awaitUninterruptibly();
                }
            } catch (InterruptedException e) {
                timedOut = false; // shutdownNow interrupts everyone; an idle worker just looks again
            } finally {
                idle--;
            }
        }
    }

    // -- threads ----------------------------------------------------------------------------------------------------

    @Override
    void prestart() {
        if (workerCount < Math.max(1, corePoolSize)) {
            addWorker(Math.max(1, corePoolSize));
        }
    }

    @Override
    boolean isFullyStarted() {
        return workerCount >= Math.max(1, corePoolSize);
    }

    @Override
    boolean prestartCoreThread() {
        boolean nothingLeft = core.isShutdown() && locked(due::isEmpty) && !core.hasPendingTasks();
        if (core.isStopped() || nothingLeft) {
            return false; // as ThreadPoolExecutor.addWorker: no new thread once nothing is left to run
        }
        return addWorker(corePoolSize);
    }

    @Override
    void poolSettingsChanged(int previousCorePoolSize) {
        lock.lock();
        try {
            workAvailable.signalAll(); // idle workers look again whether they may stay, and for how long
        } finally {
            lock.unlock();
        }
        // As the JDK: a larger core starts workers for the tasks already waiting, up to the new size.
        int added = corePoolSize - previousCorePoolSize;
        for (int k = added > 0 ? (int) Math.min(added, core.pendingTaskCount()) : 0; k > 0; k--) {
            if (!addWorker(corePoolSize)) {
                break;
            }
        }
    }

    /**
     * Starts one worker if fewer than {@code limit} exist. Never throws: a failing thread factory is reported and
     * leaves tasks waiting. @return true if a thread was started
     */
    private boolean addWorker(int limit) {
        lock.lock();
        try {
            if (terminated || workerCount >= limit) {
                return false;
            }
            workerCount++;
        } finally {
            lock.unlock();
        }
        Worker worker = new Worker();
        try {
            Thread thread = core.newWorkerThread(worker);
            if (thread != null) {
                worker.thread = thread;
                lock.lock();
                try {
                    if (!terminated) {
                        workers.add(worker);
                        thread.start();
                        largest = Math.max(largest, workers.size());
                        return true;
                    }
                } catch (Throwable t) {
                    workers.remove(worker);
                    throw t;
                } finally {
                    lock.unlock();
                }
            }
        } catch (Throwable t) {
            core.reportInternalFailure("cannot start a worker thread", t);
        }
        lock.lock();
        try {
            workerCount--;
        } finally {
            lock.unlock();
        }
        return false;
    }

    /** Takes a leaving worker out of the pool; the lock is held. */
    private void remove(Worker worker) {
        workers.remove(worker);
        workerCount--;
        worker.lateness.addTo(retiredLateness);
        if (terminated && workers.isEmpty() && whenThreadsGone != null) {
            Runnable last = whenThreadsGone;
            whenThreadsGone = null;
            worker.onExit = last;
        }
    }

    /** A worker's thread died of a hook's exception, in a run: book the run, and replace it unless the pool is done. */
    private void died(Worker worker) {
        boolean replace;
        lock.lock();
        try {
            finished(false);
            remove(worker);
            replace = !terminated;
        } finally {
            lock.unlock();
        }
        if (replace) {
            addWorker(Math.max(1, corePoolSize));
        }
    }

    @Override
    int poolSize() {
        return locked(workers::size);
    }

    @Override
    int largestPoolSize() {
        return locked(() -> largest);
    }

    @Override
    int activeCount() {
        return locked(() -> active);
    }

    @Override
    long completedCount() {
        return locked(() -> completed);
    }

    /** Reads pool state under the lock (the management getters: rare, so the boxing does not matter). */
    private <T> T locked(Supplier<T> read) {
        lock.lock();
        try {
            return read.get();
        } finally {
            lock.unlock();
        }
    }

    @Override
    void addTo(ExecutorStatistics.Builder stats) {
        lock.lock();
        try {
            stats.running(active).completedRuns(completed).failedRuns(failed);
            long[] sums = stats.lateness();
            for (int i = 0; i < sums.length; i++) {
                sums[i] += retiredLateness[i];
            }
            for (Worker w : workers) {
                w.lateness.addTo(stats.lateness());
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    boolean isOwnThread() {
        Thread me = Thread.currentThread();
        lock.lock();
        try {
            for (Worker w : workers) {
                if (w.thread == me) {
                    return true;
                }
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    // -- shutdown ---------------------------------------------------------------------------------------------------

    @Override
    boolean isStarved() {
        if (workerCount > 0) {
            return false; // the common case, without the lock
        }
        lock.lock();
        try {
            return !due.isEmpty() && workerCount == 0 && !terminated;
        } finally {
            lock.unlock();
        }
    }

    @Override
    boolean isQuiescent() {
        lock.lock();
        try {
            return due.isEmpty() && active == 0;
        } finally {
            lock.unlock();
        }
    }

    @Override
    void cancelUnless(Predicate<ScheduledTask<?>> keep) {
        List<ScheduledTask<?>> dropped = new ArrayList<>();
        lock.lock();
        try {
            for (Iterator<ScheduledTask<?>> it = due.iterator(); it.hasNext(); ) {
                ScheduledTask<?> task = it.next();
                if (!keep.test(task)) {
                    it.remove();
                    dropped.add(task);
                }
            }
        } finally {
            lock.unlock();
        }
        for (ScheduledTask<?> task : dropped) {
            task.cancel(false);
        }
    }

    @Override
    void drainUnstartedTo(List<ScheduledTask<?>> sink) {
        lock.lock();
        try {
            for (ScheduledTask<?> task; (task = due.pollFirst()) != null; ) {
                if (task.markReturned()) {
                    sink.add(task);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    void snapshotTo(List<ScheduledTask<?>> sink) {
        lock.lock();
        try {
            for (ScheduledTask<?> task : due) {
                if (task.isPending()) {
                    sink.add(task);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    int pendingCount() {
        lock.lock();
        try {
            int n = 0;
            for (ScheduledTask<?> task : due) {
                if (task.isPending()) {
                    n++;
                }
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    @Override
    void interruptWorkers() {
        List<Thread> threads = new ArrayList<>();
        lock.lock();
        try {
            for (Worker w : workers) {
                threads.add(w.thread);
            }
        } finally {
            lock.unlock();
        }
        for (Thread t : threads) {
            try {
                t.interrupt();
            } catch (SecurityException ignore) {
                // as ThreadPoolExecutor: a thread we may not interrupt keeps running its task
            }
        }
    }

    @Override
    boolean tryTerminate(Runnable threadsGone) {
        lock.lock();
        try {
            if (terminated) {
                return true;
            }
            if (!due.isEmpty() || active != 0) {
                return false;
            }
            terminated = true;
            workAvailable.signalAll(); // the idle workers leave now
            if (!workers.isEmpty()) {
                whenThreadsGone = threadsGone;
                return true;
            }
        } finally {
            lock.unlock();
        }
        threadsGone.run();
        return true;
    }

    /** A worker thread's loop: take a task, run it, until the pool no longer needs the thread. */
    private final class Worker implements Runnable {
        Thread thread;

        /** Whether the task that {@code take} returned last was claimed for this thread. */
        boolean claimed;

        /** Whether it runs without hooks or decoration (see {@link Dispatcher#runsDirectly}). */
        boolean direct;

        /** Run by this thread as it leaves, if it was the last one of a terminated pool. */
        Runnable onExit;

        /** The lateness of this worker's runs; only this worker writes it. */
        final LatenessHistogram lateness = new LatenessHistogram();

        @Override
        public void run() {
            boolean died = true;
            try {
                boolean ranOne = false;
                boolean failedRun = false;
                for (ScheduledTask<?> task; (task = take(this, ranOne, failedRun)) != null; ) {
                    ranOne = true;
                    failedRun = false; // stays so if the run kills the thread; died() books that run
                    failedRun = runOne(task);
                }
                died = false;
            } finally {
                if (died) {
                    died(this);
                }
                if (onExit != null) {
                    onExit.run();
                }
            }
        }

        /** Runs a task that take() returned. @return whether the run failed */
        private boolean runOne(ScheduledTask<?> task) {
            if (!claimed) {
                if (task.isPending()) {
                    task.cancel(false); // the shutdown policies forbid it to run
                }
                return false;
            }
            // An interrupt meant for an earlier task (or a stray one) must not reach this task, unless the executor
            // is stopping, in which case it must.
            if (core.isStopped()) {
                thread.interrupt();
            } else {
                Thread.interrupted();
            }
            runClaimed(task, direct, thread, lateness);
            return task.isFailed();
        }
    }
}
