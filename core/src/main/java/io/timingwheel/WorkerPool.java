package io.timingwheel;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The executor's own worker threads and the queue of tasks they take from, in deadline order ({@link DueQueue}).
 *
 * <p>One lock guards the queue, the worker set and the counts. The master hands over a whole batch under one
 * acquisition, and a worker books the end of a run and takes its next task under one, so the lock is taken about once
 * per task.
 *
 * <p><b>Ahead of time.</b> The master hands over the tasks that fall due within {@link #HAND_OVER_AHEAD_NANOS}, and a
 * periodic task whose next run is that close comes here straight from its run. A worker waits for the first task's
 * deadline itself, as the JDK's workers wait for the head of their heap: one worker, the leader, waits with a timeout
 * until the first deadline, the others without one until they are signalled. So a timer reaches a worker that is
 * already waiting for it, and wakes one thread when it falls due, not two (the master, then a worker); the master
 * wakes once per hand-over, a little ahead of the deadlines it covers.
 *
 * <p><b>Order.</b> A worker takes the first task of the queue once it is due, and only once the order gate is open
 * for it ({@link OrderGate}): every task the master holds that is due before it has been handed over. A task due at
 * once, or a periodic task re-armed, comes here straight, and must not pass a timer the master has not handed over
 * yet. The master opens the gate under this lock when it hands a batch over, so a worker woken for the batch finds it
 * open; a worker that finds it shut waits until the master signals. With one worker, tasks run in deadline order, as
 * the JDK's heap runs them.
 *
 * <p><b>Threads</b> come and go as in {@link java.util.concurrent.ThreadPoolExecutor}: a worker starts per dispatch
 * until the core size is reached (at least one, even for a core size of 0); a worker beyond the core size, or any with
 * {@code allowCoreThreadTimeOut}, retires after the keep-alive time without work, but the last one stays while timers
 * are pending, as the JDK's does. A worker whose thread dies (a hook threw) is replaced; if the thread factory fails,
 * the next dispatch tries again and tasks wait, never lost.
 *
 * <p>A worker claims a task when it takes it, under the lock; {@code shutdownNow} drains under the lock too, so every
 * task is either started or returned, never both and never neither.
 */
final class WorkerPool extends Dispatcher {
    /**
     * How far ahead of their deadlines the master hands tasks to the workers: ten milliseconds. The master wakes when
     * the first deadline it holds is nine of them away ({@link MasterLoop}), so a hand-over covers about a
     * millisecond of timers, and a master that wakes up to nine milliseconds late (on two busy cores a thread that is
     * due to run can wait out another's time slice, a few milliseconds) still hands them over in time.
     */
    static final long HAND_OVER_AHEAD_NANOS = 10_000_000;

    /**
     * How far ahead of its deadline a task comes here straight from its publisher, past the master: fifty
     * milliseconds. A timer due that soon never waits behind a backlog in the master's inbox, nor for the master to
     * wake, and the master, which announces this far ahead (see {@link OrderGate}), may fall that far behind a burst of
     * schedules, or a cold start, before it holds a worker back.
     */
    static final long STRAIGHT_REACH_NANOS = 50_000_000;

    /** Tasks of a hand-over queued under one hold of the lock: workers get the lock between chunks. */
    private static final int HAND_OVER_CHUNK = 256;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition workAvailable = lock.newCondition();
    private final HashSet<Worker> workers = new HashSet<>();
    private final DueQueue due = new DueQueue();

    /** Workers waiting on {@code workAvailable}, for work, for a deadline or for the gate. */
    private int waitingWorkers;

    /** The worker that waits, with a timeout, for the first task's deadline; null if none does. */
    private Worker leader;

    private int active;
    private int largest;
    private long completed;
    private long failed;

    /** Set by the termination decision: nothing is taken or started any more, workers leave. */
    private boolean closed;

    /** The lateness of runs by workers that have left. */
    private final long[] retiredLateness = new long[LatenessHistogram.BUCKETS];

    /** Workers alive or being started; read without the lock on the schedule path. */
    private volatile int workerCount;

    WorkerPool(String executor, DispatcherHost host, TaskRunner runner, OrderGate gate, int corePoolSize,
               ThreadFactory threads) {
        super(executor, host, runner, gate, corePoolSize, threads);
    }

    // -- hand-offs --------------------------------------------------------------------------------------------------

    @Override
    long handOverAheadNanos() {
        return HAND_OVER_AHEAD_NANOS;
    }

    @Override
    long straightReachNanos() {
        return STRAIGHT_REACH_NANOS;
    }

    @Override
    boolean dispatch(ScheduledTask<?> task) {
        int dueNow = task.deadline <= host.now() ? 1 : 0; // the clock is read before the lock, not under it
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            boolean newHead = due.isEmpty() || task.deadline < due.peekDeadline();
            due.add(task, false);
            wakeFor(dueNow, newHead);
        } finally {
            lock.unlock();
        }
        prestart();
        return true;
    }

    /**
     * Queues the hand-over in chunks of {@value #HAND_OVER_CHUNK}, the lock let go between them so that a large one
     * (a burst falling due) never holds the workers off for long, and opens the gate with the last chunk: until then
     * the gate stands where it was, so a worker that takes a task between two chunks takes one the gate already let
     * pass, in order.
     */
    @Override
    void dispatchAll(HandOver handOver) {
        int count = handOver.size();
        long now = host.now();
        int refusedFrom = count;
        for (int from = 0; from < count; from += HAND_OVER_CHUNK) {
            int to = Math.min(count, from + HAND_OVER_CHUNK);
            lock.lock();
            try {
                if (closed) {
                    refusedFrom = from;
                    break;
                }
                boolean newHead = due.isEmpty() || handOver.task(from).deadline < due.peekDeadline();
                int dueNow = 0;
                for (int i = from; i < to; i++) {
                    ScheduledTask<?> task = handOver.task(i);
                    due.add(task, true);
                    if (task.deadline <= now) {
                        dueNow++;
                    }
                }
                boolean last = to == count;
                if (last) {
                    handOver.openGate(); // before the signals: see the class comment
                }
                wakeFor(last && handOver.opensGate() && gate.hasWaiters() ? waitingWorkers : dueNow, newHead);
            } finally {
                lock.unlock();
            }
        }
        if (refusedFrom == count) {
            prestart();
        }
        for (int i = refusedFrom; i < count; i++) {
            handOver.task(i).cancelIfPending(); // never: the master decides on termination after its last hand-off
        }
    }

    @Override
    boolean gateOpened() {
        if (!gate.hasWaiters()) {
            return false;
        }
        lock.lock();
        try {
            workAvailable.signalAll();
        } finally {
            lock.unlock();
        }
        return true;
    }

    /**
     * Wakes a waiting worker for each of {@code dueNow} new tasks, and, if the first deadline moved earlier, one more
     * to lead the wait for it (the leader waits for the old one); the lock is held.
     */
    private void wakeFor(int dueNow, boolean newHead) {
        int signals = Math.min(dueNow, waitingWorkers);
        if (newHead) {
            leader = null;
            signals = Math.max(signals, Math.min(1, waitingWorkers));
        }
        for (int i = signals; i > 0; i--) {
            workAvailable.signal();
        }
    }

    // -- the workers' side ------------------------------------------------------------------------------------------

    /**
     * Books the end of the worker's previous run, if any, then takes its next task, claimed for its thread, waiting
     * while there is none: one lock acquisition per task in the common case.
     *
     * @return the task, or null when the worker must leave (it has left the pool then, under the same lock, so that a
     *     dispatch never counts on a worker that is leaving)
     */
    private ScheduledTask<?> next(Worker worker, boolean ranOne, boolean runFailed) {
        boolean lastRunAfterShutdown;
        lock.lock();
        try {
            if (ranOne) {
                bookRun(runFailed);
            }
            ScheduledTask<?> task = take(worker);
            if (task != null || closed) {
                return task;
            }
            lastRunAfterShutdown = ranOne && active == 0 && host.isShutdown();
            if (!lastRunAfterShutdown) {
                return waitFor(worker);
            }
        } finally {
            lock.unlock();
        }
        host.dispatcherIdle(); // maybe that was the last work; outside the lock: the decision takes it under its own
        lock.lock();
        try {
            return waitFor(worker);
        } finally {
            lock.unlock();
        }
    }

    private void bookRun(boolean runFailed) {
        active--;
        completed++;
        if (runFailed) {
            failed++;
        }
    }

    /**
     * Takes the first task if it is due and the gate is open for it, claimed for the worker's thread, or returns null
     * (removing the worker if the pool is closed); the lock is held. A worker that takes one while others wait and no
     * one leads the wait for the next signals one of them to lead it.
     */
    private ScheduledTask<?> take(Worker worker) {
        if (closed) {
            retire(worker);
            return null;
        }
        // While stopping, tasks stay queued for shutdownNow to return: one taken now would be neither started nor
        // returned.
        if (host.isStopping() || due.isEmpty()) {
            return null;
        }
        long deadline = due.peekDeadline();
        if (deadline > host.now() || !gate.isOpenFor(deadline)) {
            return null;
        }
        ScheduledTask<?> task = due.peek();
        boolean mayRun = host.mayRun(task);
        if (!mayRun && host.isStopping()) {
            // shutdownNow began since the look above: the task stays queued for its drain, which takes this lock
            // after this worker lets go of it, to return (taken and cancelled here, it would be neither run nor
            // returned; jcstress found it: ScheduleVersusShutdownNowStress)
            return null;
        }
        due.poll();
        active++;
        worker.direct = runner.runsDirectly(task);
        worker.claimed = mayRun && TaskRunner.claim(task, worker.direct);
        if (leader == null && waitingWorkers > 0 && !due.isEmpty()) {
            workAvailable.signal();
        }
        return task;
    }

    /**
     * Waits until a task can be taken, the worker may retire, or the pool closes; the lock is held. While the first
     * task is not due, one worker leads: it waits until its deadline; the others wait as idle workers do. A worker
     * beyond the core size (or any, with core time-out) retires once it has waited the keep-alive time in vain, unless
     * it is the last and timers are pending.
     */
    private ScheduledTask<?> waitFor(Worker worker) {
        long retireAt = 0; // when the keep-alive time runs out; 0 until the worker may retire at all
        for (;;) {
            ScheduledTask<?> task = take(worker);
            if (task != null || closed) {
                return task;
            }
            if (!due.isEmpty() && !host.isStopping()) {
                long deadline = due.peekDeadline();
                long wait = deadline - host.now();
                if (wait <= 0) {
                    awaitGate(deadline);
                    continue;
                }
                if (leader == null) {
                    awaitDeadline(worker, wait);
                    continue;
                }
                // a follower: it waits as an idle worker, and the leader signals one when it takes the task
            }
            boolean mayRetire = allowCoreThreadTimeOut || workerCount > corePoolSize;
            if (!mayRetire) {
                retireAt = 0;
                waitingWorkers++;
                try {
                    workAvailable.awaitUninterruptibly();
                } finally {
                    waitingWorkers--;
                }
                continue;
            }
            long now = System.nanoTime();
            if (retireAt == 0) {
                retireAt = now + Math.max(1, keepAliveNanos);
            } else if (now - retireAt >= 0) {
                if (workerCount > 1 || (!host.timersPending() && due.isEmpty())) {
                    retire(worker);
                    return null;
                }
                retireAt = now + Math.max(1, keepAliveNanos); // the last one stays while timers are pending
            }
            waitingWorkers++;
            try {
                workAvailable.awaitNanos(retireAt - now);
            } catch (InterruptedException e) {
                // shutdownNow interrupts every worker; an idle one just looks again
            } finally {
                waitingWorkers--;
            }
        }
    }

    /** Leads the wait for the first task's deadline, {@code nanos} from now; the lock is held. */
    private void awaitDeadline(Worker worker, long nanos) {
        leader = worker;
        waitingWorkers++;
        try {
            workAvailable.awaitNanos(nanos);
        } catch (InterruptedException e) {
            // shutdownNow interrupts every worker; a waiting one just looks again
        } finally {
            waitingWorkers--;
            if (leader == worker) {
                leader = null;
            }
        }
    }

    /** Waits for the master to open the gate for {@code deadline}; the lock is held. */
    private void awaitGate(long deadline) {
        boolean open = gate.enterWait(deadline);
        waitingWorkers++;
        try {
            if (!open) {
                workAvailable.awaitUninterruptibly();
            }
        } finally {
            waitingWorkers--;
            gate.leaveWait();
        }
    }

    // -- threads ----------------------------------------------------------------------------------------------------

    @Override
    void prestart() {
        int core = Math.max(1, corePoolSize);
        if (workerCount < core) {
            addWorker(core);
        }
    }

    @Override
    boolean isFullyStarted() {
        return workerCount >= Math.max(1, corePoolSize);
    }

    @Override
    boolean prestartCoreThread() {
        return addWorker(corePoolSize);
    }

    @Override
    void setCorePoolSize(int size, long waiting) {
        int previous = corePoolSize;
        corePoolSize = size;
        keepAliveChanged(); // fewer core threads: the excess ones may retire now
        for (long k = Math.min(size - previous, waiting); k > 0; k--) {
            if (!addWorker(size)) {
                break;
            }
        }
    }

    @Override
    void keepAliveChanged() {
        lock.lock();
        try {
            workAvailable.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Starts one worker if fewer than {@code limit} exist. Never throws: a failing thread factory is reported and
     * leaves tasks waiting. @return true if a thread was started
     */
    private boolean addWorker(int limit) {
        lock.lock();
        try {
            if (closed || workerCount >= limit) {
                return false;
            }
            workerCount++;
        } finally {
            lock.unlock();
        }
        Worker worker = new Worker();
        try {
            Thread thread = threadFactory.newThread(worker);
            if (thread != null && enlist(worker, thread)) {
                return true;
            }
        } catch (Throwable t) {
            InternalFailures.report(executor, "cannot start a worker thread", t);
        }
        lock.lock();
        try {
            workerCount--;
        } finally {
            lock.unlock();
        }
        return false;
    }

    /** Adds a worker and starts its thread, unless the pool has closed meanwhile. @return whether it started */
    private boolean enlist(Worker worker, Thread thread) {
        worker.thread = thread;
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            workers.add(worker);
            try {
                thread.start();
            } catch (Throwable t) {
                workers.remove(worker);
                throw t;
            }
            largest = Math.max(largest, workers.size());
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Takes a leaving worker out of the pool; the lock is held. The last to leave a closed pool reports it. */
    private void retire(Worker worker) {
        workers.remove(worker);
        workerCount--;
        worker.lateness.addTo(retiredLateness);
        worker.lastToLeave = closed && workers.isEmpty();
    }

    /** A worker's thread dies of what a hook threw in a run: books that run, and replaces the worker unless closed. */
    private void replaceDead(Worker worker) {
        boolean replace;
        lock.lock();
        try {
            bookRun(false);
            retire(worker);
            replace = !closed;
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
    Figures figures() {
        lock.lock();
        try {
            long[] lateness = retiredLateness.clone();
            for (Worker w : workers) {
                w.lateness.addTo(lateness);
            }
            return new Figures(active, completed, failed, lateness);
        } finally {
            lock.unlock();
        }
    }

    // -- queries and shutdown ---------------------------------------------------------------------------------------

    @Override
    boolean isStarved() {
        if (workerCount > 0) {
            return false; // the common case, without the lock
        }
        lock.lock();
        try {
            return !due.isEmpty() && workerCount == 0 && !closed;
        } finally {
            lock.unlock();
        }
    }

    @Override
    void applyShutdownPolicies() {
        List<ScheduledTask<?>> dropped = new ArrayList<>();
        lock.lock();
        try {
            due.removeIf(task -> !host.keptAfterShutdown(task), dropped::add);
        } finally {
            lock.unlock();
        }
        for (ScheduledTask<?> task : dropped) {
            task.cancelIfPending();
        }
    }

    @Override
    void drainUnstartedTo(List<ScheduledTask<?>> sink) {
        lock.lock();
        try {
            for (ScheduledTask<?> task; (task = due.poll()) != null; ) {
                if (task.markReturned()) {
                    sink.add(task);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    int takeDue(int max, List<ScheduledTask<?>> sink) {
        int taken = 0;
        lock.lock();
        try {
            long now = host.now();
            while (taken < max && !due.isEmpty() && due.peekDeadline() <= now) {
                ScheduledTask<?> task = due.poll();
                if (task.markReturned()) {
                    sink.add(task);
                    taken++;
                }
            }
        } finally {
            lock.unlock();
        }
        return taken;
    }

    @Override
    void copyWaitingTo(List<ScheduledTask<?>> sink) {
        lock.lock();
        try {
            due.copyPendingTo(sink);
        } finally {
            lock.unlock();
        }
    }

    @Override
    long firstWaitingDeadline() {
        lock.lock();
        try {
            return due.isEmpty() ? TimingWheel.NONE : due.peekDeadline();
        } finally {
            lock.unlock();
        }
    }

    @Override
    int waitingCount() {
        lock.lock();
        try {
            return due.waitingCount();
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
    Closing close(BooleanSupplier masterStillEmpty) {
        lock.lock();
        try {
            if (closed) {
                return Closing.ALREADY_CLOSED;
            }
            if (active != 0 || due.hasPending() || !masterStillEmpty.getAsBoolean()) {
                return Closing.BUSY;
            }
            closed = true;
            due.clear(); // what is left are stragglers that left NEW: taken back, cancelled, returned
            workAvailable.signalAll(); // the waiting workers leave now
            return workers.isEmpty() ? Closing.NO_THREADS_LEFT : Closing.THREADS_LEAVING;
        } finally {
            lock.unlock();
        }
    }

    /** A worker thread's loop: take a task, run it, until the pool no longer needs the thread. */
    private final class Worker implements Runnable {
        Thread thread;

        /** Whether the task that {@code next} returned last was claimed for this thread. */
        boolean claimed;

        /** Whether it runs without hooks or decoration (see {@link TaskRunner#runsDirectly}). */
        boolean direct;

        /** Set when this worker is the last to leave a closed pool: it then reports that the threads are gone. */
        boolean lastToLeave;

        /** The lateness of this worker's runs; only this worker writes it. */
        final LatenessHistogram lateness = LatenessHistogram.forOneThread();

        @Override
        public void run() {
            try {
                boolean ranOne = false;
                boolean runFailed = false;
                for (ScheduledTask<?> task; (task = next(this, ranOne, runFailed)) != null; ranOne = true) {
                    try {
                        runFailed = runOne(task);
                    } catch (Throwable death) {
                        replaceDead(this); // a hook or a decoration threw: the thread dies of it, as in the JDK
                        throw death;
                    }
                }
            } finally {
                if (lastToLeave) {
                    host.threadsGone();
                }
            }
        }

        /** Runs a task that next() returned. @return whether the run failed */
        private boolean runOne(ScheduledTask<?> task) {
            if (!claimed) {
                task.cancelIfPending(); // the shutdown policies forbid it to run (or it was not pending any more)
                return false;
            }
            // An interrupt meant for an earlier task (or a stray one) must not reach this task, unless the executor is
            // stopping, in which case it must. Clear first, then look: a shutdownNow that comes after the look
            // interrupts this thread itself, one that came before it is seen.
            Thread.interrupted();
            if (host.isStopping()) {
                thread.interrupt();
            }
            runner.run(task, direct, thread, lateness);
            return task.isFailed();
        }
    }
}
