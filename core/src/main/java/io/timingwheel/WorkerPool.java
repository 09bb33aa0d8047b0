package io.timingwheel;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The executor's own worker threads and the FIFO of due tasks they take from.
 *
 * <p>One lock guards the FIFO, the worker set and the counts. The master hands over a whole batch of due tasks under
 * one acquisition, so the lock is taken about once per task by the workers and rarely by the master. Workers are
 * started as the JDK starts them: one per accepted task until the core size is reached (at least one, even for a
 * core size of 0). They never time out. A worker that dies is replaced by a new one from the thread factory; if the
 * factory fails, the next dispatch tries again, and tasks wait, never lost.
 */
final class WorkerPool implements Dispatcher {
    private final TimingWheelExecutor owner;
    private final int maxWorkers;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition workAvailable = lock.newCondition();
    private final Condition allExited = lock.newCondition();
    private final HashSet<Worker> workers = new HashSet<>();

    /** The FIFO of due tasks, linked through {@code next}. */
    private ScheduledTask<?> head;
    private ScheduledTask<?> tail;
    private int queued;

    private int idle;
    private int active;
    private long completed;
    private long failed;
    private boolean terminated;

    /** The lateness of runs by workers that have exited. */
    private final long[] retiredLateness = new long[LatenessHistogram.BUCKETS];

    /** Workers alive or being started; read without the lock on the schedule path. */
    private volatile int workerCount;

    WorkerPool(TimingWheelExecutor owner, int corePoolSize) {
        this.owner = owner;
        this.maxWorkers = Math.max(1, corePoolSize);
    }

    @Override
    public void dispatch(ScheduledTask<?> task) {
        task.next = null;
        enqueue(task, task, 1);
    }

    @Override
    public void dispatchAll(ScheduledTask<?> first, ScheduledTask<?> last, int count) {
        last.next = null;
        enqueue(first, last, count);
    }

    private void enqueue(ScheduledTask<?> first, ScheduledTask<?> last, int count) {
        boolean rejected;
        boolean needWorker;
        lock.lock();
        try {
            rejected = terminated;
            if (!rejected) {
                if (tail == null) {
                    head = first;
                } else {
                    tail.next = first;
                }
                tail = last;
                queued += count;
                if (idle > 0) {
                    if (count == 1) {
                        workAvailable.signal();
                    } else {
                        workAvailable.signalAll();
                    }
                }
            }
            needWorker = workerCount < maxWorkers;
        } finally {
            lock.unlock();
        }
        if (rejected) {
            cancelAll(first);
        } else if (needWorker) {
            addWorker();
        }
    }

    private void cancelAll(ScheduledTask<?> first) {
        for (ScheduledTask<?> task = first; task != null; ) {
            ScheduledTask<?> following = (ScheduledTask<?>) task.next;
            task.next = null;
            task.cancel(false);
            task = following;
        }
    }

    @Override
    public void prestart() {
        if (workerCount < maxWorkers) {
            addWorker();
        }
    }

    /** Starts one worker if below the maximum. Never throws: a failing thread factory leaves tasks waiting. */
    private void addWorker() {
        lock.lock();
        try {
            if (terminated || workerCount >= maxWorkers) {
                return;
            }
            workerCount++;
        } finally {
            lock.unlock();
        }
        Worker worker = new Worker();
        Thread thread = null;
        try {
            thread = owner.newWorkerThread(worker);
            if (thread != null) {
                worker.thread = thread;
                lock.lock();
                try {
                    if (!terminated) {
                        workers.add(worker);
                        thread.start();
                        return;
                    }
                } finally {
                    lock.unlock();
                }
            }
        } catch (Throwable t) {
            owner.reportInternalFailure("cannot start a worker thread", t);
            if (thread != null) {
                lock.lock();
                try {
                    workers.remove(worker);
                } finally {
                    lock.unlock();
                }
            }
        }
        lock.lock();
        try {
            workerCount--;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes the next task, blocking while there is none. It calls out of the pool ({@link
     * TimingWheelExecutor#wakeMaster()}) only without holding the lock, so no lock order spans the two.
     *
     * @return null when the pool has terminated
     */
    private ScheduledTask<?> take(Worker worker, boolean ranOne, boolean failedOne) {
        boolean idleAfterShutdown;
        lock.lock();
        try {
            if (ranOne) {
                active--;
                completed++;
                if (failedOne) {
                    failed++;
                }
            }
            ScheduledTask<?> task = poll(worker);
            if (task != null || terminated) {
                return task;
            }
            idleAfterShutdown = active == 0 && owner.isShutdown();
        } finally {
            lock.unlock();
        }
        if (idleAfterShutdown) {
            owner.wakeMaster(); // maybe that was the last work: let the master decide on termination
        }
        lock.lock();
        try {
            for (;;) {
                ScheduledTask<?> task = poll(worker);
                if (task != null || terminated) {
                    return task;
                }
                idle++;
                try {
                    workAvailable.awaitUninterruptibly();
                } finally {
                    idle--;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Takes the next task without blocking, or returns null; the lock is held. */
    private ScheduledTask<?> poll(Worker worker) {
        // While stopping, tasks stay queued for shutdownNow to return: taking one now would leave it neither started
        // nor returned.
        if (head == null || owner.isStopped()) {
            return null;
        }
        ScheduledTask<?> task = head;
        head = (ScheduledTask<?>) task.next;
        if (head == null) {
            tail = null;
        }
        task.next = null;
        queued--;
        active++;
        // Taking and starting are one step under the lock, so shutdownNow (which drains under the lock) sees every
        // task either started or still queued.
        worker.claimed = owner.canRunInCurrentState(task) && task.claim();
        return task;
    }

    private void workerExited(Worker worker, boolean abruptly) {
        boolean replace;
        lock.lock();
        try {
            workers.remove(worker);
            workerCount--;
            if (abruptly) {
                active--;
            }
            worker.lateness.addTo(retiredLateness);
            replace = !terminated;
            if (terminated && workers.isEmpty()) {
                allExited.signalAll();
            }
        } finally {
            lock.unlock();
        }
        if (replace) {
            addWorker();
        }
    }

    @Override
    public boolean isFullyStarted() {
        return workerCount >= maxWorkers;
    }

    @Override
    public boolean isStarved() {
        if (workerCount > 0) {
            return false; // the common case, without the lock
        }
        lock.lock();
        try {
            return head != null && workerCount == 0 && !terminated;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean isQuiescent() {
        lock.lock();
        try {
            return head == null && active == 0;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void drainUnstartedTo(List<ScheduledTask<?>> sink) {
        lock.lock();
        try {
            for (ScheduledTask<?> task = head; task != null; ) {
                ScheduledTask<?> following = (ScheduledTask<?>) task.next;
                task.next = null;
                sink.add(task);
                task = following;
            }
            head = tail = null;
            queued = 0;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void snapshotTo(List<ScheduledTask<?>> sink) {
        lock.lock();
        try {
            for (ScheduledTask<?> task = head; task != null; task = (ScheduledTask<?>) task.next) {
                if (task.isPending()) {
                    sink.add(task);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void interruptWorkers() {
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
    public boolean tryTerminate(boolean awaitThreadsExit) {
        lock.lock();
        try {
            if (head != null || active != 0) {
                return false;
            }
            terminated = true;
            workAvailable.signalAll();
            // As ThreadPoolExecutor: terminated means no worker thread is left. The workers are idle, so they leave
            // as soon as they are scheduled.
            while (awaitThreadsExit && !workers.isEmpty()) {
                allExited.awaitUninterruptibly();
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int poolSize() {
        lock.lock();
        try {
            return workers.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int activeCount() {
        lock.lock();
        try {
            return active;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long completedCount() {
        lock.lock();
        try {
            return completed;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long failedCount() {
        lock.lock();
        try {
            return failed;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void addLatenessTo(long[] sums) {
        lock.lock();
        try {
            for (int i = 0; i < sums.length; i++) {
                sums[i] += retiredLateness[i];
            }
            for (Worker w : workers) {
                w.lateness.addTo(sums);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int queuedCount() {
        lock.lock();
        try {
            return queued;
        } finally {
            lock.unlock();
        }
    }

    /** A worker thread's loop: take a task, run it, repeat until the pool terminates. */
    private final class Worker implements Runnable {
        Thread thread;

        /** Whether the task that {@code take} returned last was claimed for this thread. */
        boolean claimed;

        /** The lateness of this worker's runs; only this worker writes it. */
        final LatenessHistogram lateness = new LatenessHistogram();

        @Override
        public void run() {
            boolean ranOne = false;
            boolean failedOne = false;
            boolean abruptly = true;
            try {
                for (ScheduledTask<?> task; (task = take(this, ranOne, failedOne)) != null; ) {
                    ranOne = true;
                    failedOne = false;
                    // An interrupt meant for an earlier task (or a stray one) must not reach this task, unless the
                    // executor is stopping, in which case it must.
                    if (owner.isStopped()) {
                        thread.interrupt();
                    } else {
                        Thread.interrupted();
                    }
                    if (claimed) {
                        owner.recordLateness(lateness, task);
                        task.runClaimed();
                        failedOne = task.isFailed();
                    } else if (task.isPending()) {
                        task.cancel(false); // the shutdown policies forbid it to run
                    }
                }
                abruptly = false;
            } finally {
                workerExited(this, abruptly);
            }
        }
    }
}
