package io.timingwheel;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The pool's worker threads and their counts, as {@code ThreadPoolExecutor} keeps its worker set: starting a thread
 * (up to a limit, never while the pool is closed), who is enlisted, how many runs the workers that left completed, the
 * largest size the pool reached. Each worker counts its own runs ({@link Worker}); the counts of the pool are their
 * sums, read as the JDK's are (under this roster's monitor, not the pool's lock: a reader of the counts never holds up
 * a worker taking a task). Workers come and go rarely, so the list is copied on change and read without the monitor
 * where a snapshot does. The count of workers alive or being started, and the enlistments and retirements, are
 * guarded by the pool's lock, under which the pool decides to close and a worker to retire.
 */
final class WorkerRoster {
    private static final Worker[] NONE = {};

    private final WorkerPool pool;
    private final ReentrantLock poolLock;
    private final PoolSettings settings;
    private final String executorName;

    /** Workers alive or being started; read without the lock on the schedule path, written under it. */
    private volatile int workerCount;

    /** Set once the thread factory failed to give a worker a running thread: only then may tasks starve. */
    private volatile boolean startFailed;

    /** The workers' progress, at which publishers look to pause while the workers are held ({@link StallWatch}). */
    final StallWatch stallWatch = new StallWatch();

    /** The enlisted workers; replaced under the monitor. */
    private volatile Worker[] workers = NONE;

    /** Runs completed, and failed, by workers that have left. */
    private long retiredCompleted;
    private long retiredFailed;

    /** The lateness of runs by workers that have left. */
    private final long[] retiredLateness = new long[LatenessHistogram.BUCKETS];

    /** The most workers enlisted at once. */
    private int largest;

    /** The pool's counts, read together, as {@code statistics()} and the JDK's getters want them. */
    record Counts(int size, int largest, int active, long completed, long failed) {
    }

    WorkerRoster(WorkerPool pool, ReentrantLock poolLock, PoolSettings settings, String executorName) {
        this.pool = pool;
        this.poolLock = poolLock;
        this.settings = settings;
        this.executorName = executorName;
    }

    /** Starts a worker if fewer than the core size run (at least one), as the JDK does on every delayed schedule. */
    void prestart() {
        int core = Math.max(1, settings.corePoolSize);
        if (workerCount < core) {
            addWorker(core);
        }
    }

    /** @return true once as many workers run as the core size asks for */
    boolean isFullyStarted() {
        return workerCount >= Math.max(1, settings.corePoolSize);
    }

    /** @return workers alive or being started (any thread) */
    int workerCount() {
        return workerCount;
    }

    /** @return whether the thread factory failed to give a worker a running thread */
    boolean startFailed() {
        return startFailed;
    }

    /**
     * Starts one worker if fewer than {@code limit} exist. Never throws: a failing thread factory is reported and
     * leaves tasks waiting. @return true if a thread was started
     */
    boolean addWorker(int limit) {
        poolLock.lock();
        try {
            if (pool.isClosed() || workerCount >= limit) {
                return false;
            }
            workerCount++;
        } finally {
            poolLock.unlock();
        }
        Worker worker = pool.newWorker();
        try {
            Thread thread = settings.threadFactory.newThread(worker);
            if (thread != null && enlist(worker, thread)) {
                return true;
            }
            if (thread == null) {
                startFailed = true;
            }
        } catch (Throwable t) {
            startFailed = true;
            InternalFailures.report(executorName, "cannot start a worker thread", t);
        }
        poolLock.lock();
        try {
            workerCount--;
        } finally {
            poolLock.unlock();
        }
        return false;
    }

    /** Enlists a worker and starts its thread, unless the pool has closed meanwhile. @return whether it started */
    private boolean enlist(Worker worker, Thread thread) {
        worker.thread = thread;
        worker.progress = new StallWatch.Progress(thread);
        poolLock.lock();
        try {
            if (pool.isClosed()) {
                return false;
            }
            add(worker);
            stallWatch.add(worker.progress);
            try {
                thread.start();
            } catch (Throwable t) {
                remove(worker);
                stallWatch.remove(worker.progress);
                throw t;
            }
            return true;
        } finally {
            poolLock.unlock();
        }
    }

    /** Takes a leaving worker off the roster; the pool's lock is held. The last to leave a closed pool reports it. */
    void retire(Worker worker) {
        boolean noneLeft = remove(worker);
        stallWatch.remove(worker.progress);
        workerCount--;
        worker.lastToLeave = pool.isClosed() && noneLeft;
    }

    private synchronized void add(Worker worker) {
        Worker[] next = Arrays.copyOf(workers, workers.length + 1);
        next[workers.length] = worker;
        workers = next;
        largest = Math.max(largest, next.length);
    }

    /** Takes a worker off the roster, its counts kept. @return whether no worker is left */
    private synchronized boolean remove(Worker worker) {
        Worker[] w = workers;
        for (int i = 0; i < w.length; i++) {
            if (w[i] == worker) {
                Worker[] next = new Worker[w.length - 1];
                System.arraycopy(w, 0, next, 0, i);
                System.arraycopy(w, i + 1, next, i, w.length - i - 1);
                workers = next;
                retiredCompleted += worker.completedRuns();
                retiredFailed += worker.failedRuns();
                worker.lateness.addTo(retiredLateness);
                break;
            }
        }
        return workers.length == 0;
    }

    /** @return the enlisted workers now (a snapshot: do not change it) */
    Worker[] snapshot() {
        return workers;
    }

    /** @return how many workers are enlisted */
    int size() {
        return workers.length;
    }

    /** @return whether {@code thread} is one of the enlisted workers' */
    boolean hasThread(Thread thread) {
        for (Worker w : workers) {
            if (w.thread == thread) {
                return true;
            }
        }
        return false;
    }

    /**
     * @return how many workers are in a run now, read without the monitor, one flag per worker: exact under the pool's
     *     lock, a hint otherwise
     */
    int activeCount() {
        int active = 0;
        for (Worker w : workers) {
            active += w.isActive() ? 1 : 0;
        }
        return active;
    }

    /**
     * @return the runs completed, those of the workers that left included, read without the monitor; the pool's lock
     *     is held, under which workers leave (one that is enlisted meanwhile has completed none)
     */
    long completedUnderPoolLock() {
        long completed = retiredCompleted;
        for (Worker w : workers) {
            completed += w.completedRuns();
        }
        return completed;
    }

    /** @return the counts, read together */
    synchronized Counts counts() {
        int active = 0;
        long completed = retiredCompleted;
        long failed = retiredFailed;
        for (Worker w : workers) {
            // active first: a worker that is seen between runs is seen with the run before counted (see Worker)
            active += w.isActive() ? 1 : 0;
            completed += w.completedRuns();
            failed += w.failedRuns();
        }
        return new Counts(workers.length, largest, active, completed, failed);
    }

    /** @return the lateness of every run so far, by bucket ({@link LatenessHistogram}) */
    synchronized long[] lateness() {
        long[] sums = retiredLateness.clone();
        for (Worker w : workers) {
            w.lateness.addTo(sums);
        }
        return sums;
    }

    /** Copies the tasks that workers run now into {@code sink}. */
    void copyRunningTo(List<ScheduledTask<?>> sink) {
        for (Worker w : workers) {
            ScheduledTask<?> task = w.progress.running; // written by its worker without order: a description
            if (task != null) {
                sink.add(task);
            }
        }
    }

    /** Interrupts every enlisted worker's thread, as {@code shutdownNow} does. */
    void interruptAll() {
        for (Worker w : workers) {
            try {
                w.thread.interrupt();
            } catch (SecurityException ignore) {
                // as ThreadPoolExecutor: a thread we may not interrupt keeps running its task
            }
        }
    }
}
