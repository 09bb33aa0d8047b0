package io.timingwheel;

import java.util.concurrent.ThreadFactory;
import java.util.function.LongSupplier;

/**
 * The pool methods of {@link java.util.concurrent.ThreadPoolExecutor}'s API, behind the facade: the settings
 * ({@link PoolSettings}), the prestarting of workers, and the counts. The settings are acted on only by the own
 * {@link WorkerPool}; with tasks running on a given executor they are only remembered, and the counts are that
 * dispatcher's.
 */
final class PoolControls {
    private final PoolSettings settings;

    /** The dispatcher if it is the own pool; null with an external executor. */
    private final WorkerPool ownPool;

    private final Dispatcher dispatcher;
    private final Lifecycle lifecycle;

    /** The tasks accepted and not started, for the JDK's rules on starting threads. */
    private final LongSupplier pendingCount;

    /**
     * What a schedule does about the workers: {@link WorkerStarts#STARTING} until the pool has reached its core size,
     * then {@link WorkerStarts#STARTED}. Written rarely, read by every schedule.
     */
    private volatile WorkerStarts workerStarts;

    PoolControls(PoolSettings settings, WorkerPool ownPool, Dispatcher dispatcher, Lifecycle lifecycle,
                 LongSupplier pendingCount) {
        this.settings = settings;
        this.ownPool = ownPool;
        this.dispatcher = dispatcher;
        this.lifecycle = lifecycle;
        this.pendingCount = pendingCount;
        // the given executor owns its threads
        this.workerStarts = ownPool == null ? WorkerStarts.STARTED : WorkerStarts.STARTING;
    }

    /**
     * Starts a worker per accepted task until the core size is reached, as the JDK does. Once it is, every later
     * schedule is spared a read of the pool's counters, whose cache line the workers write. (A worker that dies later
     * is replaced by the pool itself, or by the master's retry.)
     */
    void prestartWorkers() {
        workerStarts.afterSchedule(this);
    }

    /**
     * The two states of {@link #prestartWorkers}, as objects of two classes rather than a flag tested at each
     * schedule, for the JIT's sake. The schedule path is compiled while a pool runs, when such a flag has never been
     * seen unset, and a branch never taken is compiled as a trap: the first schedule of each new executor took it and
     * threw the compiled schedule path away, in every caller that had inlined it, to be compiled again during that
     * executor's first burst. A call on an object of a class the JIT has not seen there fails a type check instead,
     * which runs that one call in the interpreter and keeps the compiled code.
     */
    private enum WorkerStarts {
        STARTING {
            @Override
            void afterSchedule(PoolControls controls) {
                controls.ownPool.prestart();
                if (controls.ownPool.isFullyStarted()) {
                    controls.workerStarts = STARTED;
                }
            }
        },
        STARTED {
            @Override
            void afterSchedule(PoolControls controls) {
            }
        };

        abstract void afterSchedule(PoolControls controls);
    }

    /**
     * A publisher's look after it published a task, at {@code now} (see {@link CoreSharing#publisherGivesWay}).
     * @return whether it yielded or paused
     */
    boolean publisherGivesWay(long now) {
        return ownPool != null && ownPool.coreSharing.publisherGivesWay(now);
    }

    /** @return whether a worker of the own pool is due to run now (see {@link CoreSharing#workerDue}) */
    boolean workerDue() {
        return ownPool != null && ownPool.coreSharing.workerDue();
    }

    /** @return whether the own pool's leader is overdue at {@code now} (see {@link CoreSharing#leaderOverdue}) */
    boolean leaderOverdue(long now) {
        return ownPool != null && ownPool.coreSharing.leaderOverdue(now);
    }

    /** @return true if tasks wait for a worker that the thread factory failed to start */
    boolean workersStarved() {
        return ownPool != null && ownPool.isStarved();
    }

    /** Tries again to start a worker for the tasks that wait. */
    void retryWorkerStart() {
        if (ownPool != null) {
            ownPool.prestart();
        }
    }

    int corePoolSize() {
        return settings.corePoolSize;
    }

    /** Sets the core pool size; workers start or retire as the JDK's do, and the started state must be earned again. */
    void setCorePoolSize(int size) {
        int previous = settings.corePoolSize;
        settings.corePoolSize = size;
        if (ownPool != null) {
            workerStarts = WorkerStarts.STARTING;
            ownPool.coreSizeChanged(previous, size > previous ? pendingCount.getAsLong() : 0);
        }
    }

    /** @return true if a core thread was started: not once nothing is left to run, as the JDK's */
    boolean prestartCoreThread() {
        if (ownPool == null || lifecycle.isStopping()
                || (lifecycle.isShutdown() && pendingCount.getAsLong() == 0)) {
            return false;
        }
        return ownPool.prestartCoreThread();
    }

    int maximumPoolSize() {
        return settings.maximumPoolSize;
    }

    void setMaximumPoolSize(int size) {
        settings.maximumPoolSize = size;
    }

    long keepAliveNanos() {
        return settings.keepAliveNanos;
    }

    void setKeepAliveNanos(long nanos) {
        settings.keepAliveNanos = nanos;
        keepAliveChanged();
    }

    boolean allowsCoreThreadTimeOut() {
        return settings.allowCoreThreadTimeOut;
    }

    void allowCoreThreadTimeOut(boolean value) {
        settings.allowCoreThreadTimeOut = value;
        keepAliveChanged();
    }

    private void keepAliveChanged() {
        if (ownPool != null) {
            ownPool.keepAliveChanged();
        }
    }

    ThreadFactory threadFactory() {
        return settings.threadFactory;
    }

    void setThreadFactory(ThreadFactory threadFactory) {
        settings.threadFactory = threadFactory;
    }

    /** @return the dispatcher's counts, read together */
    Dispatcher.Figures figures() {
        return dispatcher.figures();
    }

    int poolSize() {
        return dispatcher.figures().poolSize();
    }

    int largestPoolSize() {
        return dispatcher.figures().largestPoolSize();
    }

    int activeCount() {
        return dispatcher.figures().active();
    }

    long completedCount() {
        return dispatcher.figures().completed();
    }
}
