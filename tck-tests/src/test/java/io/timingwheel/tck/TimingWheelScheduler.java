package io.timingwheel.tck;

import io.timingwheel.TimingWheelExecutor;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadFactory;

/** The executor under test: a TimingWheelExecutor, possibly running its tasks on an external pool. */
final class TimingWheelScheduler extends AbstractManagedScheduler {

    private final TimingWheelExecutor twe;
    private final Timeline timeline;

    TimingWheelScheduler(SchedulerFactory factory, TimingWheelExecutor twe, ExecutorService workerPool) {
        this(factory, twe, workerPool, Timeline.REAL);
    }

    /** An executor that runs in {@code timeline}: real time, or the virtual clock it was built with. */
    TimingWheelScheduler(SchedulerFactory factory, TimingWheelExecutor twe, ExecutorService workerPool,
            Timeline timeline) {
        super(factory, twe, workerPool);
        this.twe = twe;
        this.timeline = timeline;
    }

    @Override
    public Timeline timeline() {
        return timeline;
    }

    @Override
    public void closeExecutor() {
        twe.close();
    }

    @Override public int getCorePoolSize() { return twe.getCorePoolSize(); }
    @Override public int getPoolSize() { return twe.getPoolSize(); }
    @Override public int getActiveCount() { return twe.getActiveCount(); }
    @Override public long getTaskCount() { return twe.getTaskCount(); }
    @Override public long getCompletedTaskCount() { return twe.getCompletedTaskCount(); }
    @Override public BlockingQueue<Runnable> getQueue() { return twe.getQueue(); }
    @Override public boolean remove(Runnable task) { return twe.remove(task); }
    @Override public void purge() { twe.purge(); }
    @Override public boolean isTerminating() { return twe.isTerminating(); }
    @Override public ThreadFactory getThreadFactory() { return twe.getThreadFactory(); }
    @Override public void setThreadFactory(ThreadFactory f) { twe.setThreadFactory(f); }
    @Override public RejectedExecutionHandler getRejectedExecutionHandler() { return twe.getRejectedExecutionHandler(); }
    @Override public void setRejectedExecutionHandler(RejectedExecutionHandler h) { twe.setRejectedExecutionHandler(h); }

    @Override
    public boolean getContinueExistingPeriodicTasksAfterShutdownPolicy() {
        return twe.getContinueExistingPeriodicTasksAfterShutdownPolicy();
    }

    @Override
    public void setContinueExistingPeriodicTasksAfterShutdownPolicy(boolean value) {
        twe.setContinueExistingPeriodicTasksAfterShutdownPolicy(value);
    }

    @Override
    public boolean getExecuteExistingDelayedTasksAfterShutdownPolicy() {
        return twe.getExecuteExistingDelayedTasksAfterShutdownPolicy();
    }

    @Override
    public void setExecuteExistingDelayedTasksAfterShutdownPolicy(boolean value) {
        twe.setExecuteExistingDelayedTasksAfterShutdownPolicy(value);
    }

    @Override public boolean getRemoveOnCancelPolicy() { return twe.getRemoveOnCancelPolicy(); }
    @Override public void setRemoveOnCancelPolicy(boolean value) { twe.setRemoveOnCancelPolicy(value); }
}
