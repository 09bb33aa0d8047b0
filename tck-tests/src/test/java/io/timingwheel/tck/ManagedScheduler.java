package io.timingwheel.tck;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;

/**
 * An executor under test together with the management methods that {@code ScheduledThreadPoolExecutor} and
 * {@code TimingWheelExecutor} share by name but not by type, so that one test body checks both.
 *
 * <p>{@link #close()} is the test's clean-up, made for try-with-resources: it releases the latches registered with
 * {@link #releaseOnClose}, shuts down with both shutdown policies off and fails unless the executor (and any pool it
 * runs on) terminates in time. The executor's own {@code close()} (Java 19 semantics) is {@link #closeExecutor()}.
 */
public interface ManagedScheduler extends AutoCloseable {

    /** The executor under test, as callers see it. */
    ScheduledExecutorService executor();

    /** The factory that made it. */
    SchedulerFactory factory();

    /** True for the JDK's ScheduledThreadPoolExecutor. */
    default boolean isReference() {
        return factory().isReference();
    }

    /**
     * The time the executor runs in: real time, except for the {@code TWE-virtual-clock} kinds of
     * {@link Factories#timed()}, whose executor runs on a {@code VirtualClock} that the test moves.
     */
    default Timeline timeline() {
        return Timeline.REAL;
    }

    /** The executor's {@code close()} with Java 19 semantics (on Java 17 the JDK's algorithm for the reference). */
    void closeExecutor();

    /** Counts {@code latch} down when the test's try-with-resources block ends, before the executor is stopped. */
    void releaseOnClose(java.util.concurrent.CountDownLatch latch);

    /** Test clean-up: release latches, shutdown without keeping delayed or periodic tasks, assert termination. */
    @Override
    void close();

    // --- STPE management methods, same names and meaning ---

    int getCorePoolSize();

    int getPoolSize();

    int getActiveCount();

    long getTaskCount();

    long getCompletedTaskCount();

    BlockingQueue<Runnable> getQueue();

    boolean remove(Runnable task);

    void purge();

    boolean isTerminating();

    ThreadFactory getThreadFactory();

    void setThreadFactory(ThreadFactory threadFactory);

    RejectedExecutionHandler getRejectedExecutionHandler();

    void setRejectedExecutionHandler(RejectedExecutionHandler handler);

    boolean getContinueExistingPeriodicTasksAfterShutdownPolicy();

    void setContinueExistingPeriodicTasksAfterShutdownPolicy(boolean value);

    boolean getExecuteExistingDelayedTasksAfterShutdownPolicy();

    void setExecuteExistingDelayedTasksAfterShutdownPolicy(boolean value);

    boolean getRemoveOnCancelPolicy();

    void setRemoveOnCancelPolicy(boolean value);
}
