package io.timingwheel.tck;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;

/** The reference: the JDK's ScheduledThreadPoolExecutor. */
final class ReferenceScheduler extends AbstractManagedScheduler {

    private final ScheduledThreadPoolExecutor stpe;

    ReferenceScheduler(SchedulerFactory factory, ScheduledThreadPoolExecutor stpe) {
        super(factory, stpe, null);
        this.stpe = stpe;
    }

    /** Makes the reference the way a user would, through the constructor that matches the options. */
    static ScheduledThreadPoolExecutor newExecutor(SchedulerFactory.Options o, int defaultPoolSize) {
        int n = o.poolSize() != null ? o.poolSize() : defaultPoolSize;
        if (o.threadFactory() != null && o.handler() != null) {
            return new ScheduledThreadPoolExecutor(n, o.threadFactory(), o.handler());
        } else if (o.threadFactory() != null) {
            return new ScheduledThreadPoolExecutor(n, o.threadFactory());
        } else if (o.handler() != null) {
            return new ScheduledThreadPoolExecutor(n, o.handler());
        }
        return new ScheduledThreadPoolExecutor(n);
    }

    @Override
    public void closeExecutor() {
        // On JDK 19+ the STPE is an AutoCloseable ExecutorService and its own close() is used; on 17 the JDK 19
        // algorithm stands in for it.
        if (stpe instanceof AutoCloseable) {
            try {
                ((AutoCloseable) stpe).close();
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        } else {
            jdk19Close(stpe);
        }
    }

    @Override public int getCorePoolSize() { return stpe.getCorePoolSize(); }
    @Override public int getPoolSize() { return stpe.getPoolSize(); }
    @Override public int getActiveCount() { return stpe.getActiveCount(); }
    @Override public long getTaskCount() { return stpe.getTaskCount(); }
    @Override public long getCompletedTaskCount() { return stpe.getCompletedTaskCount(); }
    @Override public BlockingQueue<Runnable> getQueue() { return stpe.getQueue(); }
    @Override public boolean remove(Runnable task) { return stpe.remove(task); }
    @Override public void purge() { stpe.purge(); }
    @Override public boolean isTerminating() { return stpe.isTerminating(); }
    @Override public ThreadFactory getThreadFactory() { return stpe.getThreadFactory(); }
    @Override public void setThreadFactory(ThreadFactory f) { stpe.setThreadFactory(f); }
    @Override public RejectedExecutionHandler getRejectedExecutionHandler() { return stpe.getRejectedExecutionHandler(); }
    @Override public void setRejectedExecutionHandler(RejectedExecutionHandler h) { stpe.setRejectedExecutionHandler(h); }

    @Override
    public boolean getContinueExistingPeriodicTasksAfterShutdownPolicy() {
        return stpe.getContinueExistingPeriodicTasksAfterShutdownPolicy();
    }

    @Override
    public void setContinueExistingPeriodicTasksAfterShutdownPolicy(boolean value) {
        stpe.setContinueExistingPeriodicTasksAfterShutdownPolicy(value);
    }

    @Override
    public boolean getExecuteExistingDelayedTasksAfterShutdownPolicy() {
        return stpe.getExecuteExistingDelayedTasksAfterShutdownPolicy();
    }

    @Override
    public void setExecuteExistingDelayedTasksAfterShutdownPolicy(boolean value) {
        stpe.setExecuteExistingDelayedTasksAfterShutdownPolicy(value);
    }

    @Override public boolean getRemoveOnCancelPolicy() { return stpe.getRemoveOnCancelPolicy(); }
    @Override public void setRemoveOnCancelPolicy(boolean value) { stpe.setRemoveOnCancelPolicy(value); }
}
