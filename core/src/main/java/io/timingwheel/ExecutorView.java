package io.timingwheel;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The face a {@link TimingWheelExecutor} shows to {@link RejectedExecutionHandler}s, whose signature demands a
 * {@link java.util.concurrent.ThreadPoolExecutor}. Every method a handler may call is forwarded, so the JDK's policies
 * ({@code CallerRunsPolicy} checks {@code isShutdown()}, {@code DiscardOldestPolicy} polls the queue and
 * re-executes) behave as they do on a {@link ScheduledThreadPoolExecutor}. The inherited pool never starts a thread.
 */
final class ExecutorView extends ScheduledThreadPoolExecutor {
    private final TimingWheelExecutor target;

    ExecutorView(TimingWheelExecutor target) {
        super(0);
        this.target = target;
    }

    /** Executes the command; a task the target rejected is accepted again with its own deadline. */
    @Override
    public void execute(Runnable command) {
        if (!target.resubmitRejected(command)) {
            target.execute(command);
        }
    }

    @Override
    public Future<?> submit(Runnable task) {
        return target.submit(task);
    }

    @Override
    public <T> Future<T> submit(Runnable task, T result) {
        return target.submit(task, result);
    }

    @Override
    public <T> Future<T> submit(Callable<T> task) {
        return target.submit(task);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return target.schedule(command, delay, unit);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return target.schedule(callable, delay, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return target.scheduleAtFixedRate(command, initialDelay, period, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        return target.scheduleWithFixedDelay(command, initialDelay, delay, unit);
    }

    @Override
    public void shutdown() {
        target.shutdown();
    }

    @Override
    public List<Runnable> shutdownNow() {
        return target.shutdownNow();
    }

    @Override
    public boolean isShutdown() {
        return target.isShutdown();
    }

    @Override
    public boolean isTerminating() {
        return target.isTerminating();
    }

    @Override
    public boolean isTerminated() {
        return target.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return target.awaitTermination(timeout, unit);
    }

    @Override
    public BlockingQueue<Runnable> getQueue() {
        return target.getQueue();
    }

    @Override
    public boolean remove(Runnable task) {
        return target.remove(task);
    }

    @Override
    public void purge() {
        target.purge();
    }

    @Override
    public int getCorePoolSize() {
        return target.getCorePoolSize();
    }

    @Override
    public int getPoolSize() {
        return target.getPoolSize();
    }

    @Override
    public int getActiveCount() {
        return target.getActiveCount();
    }

    @Override
    public long getTaskCount() {
        return target.getTaskCount();
    }

    @Override
    public long getCompletedTaskCount() {
        return target.getCompletedTaskCount();
    }

    @Override
    public ThreadFactory getThreadFactory() {
        return target.getThreadFactory();
    }

    @Override
    public RejectedExecutionHandler getRejectedExecutionHandler() {
        return target.getRejectedExecutionHandler();
    }

    @Override
    public boolean getContinueExistingPeriodicTasksAfterShutdownPolicy() {
        return target.getContinueExistingPeriodicTasksAfterShutdownPolicy();
    }

    @Override
    public boolean getExecuteExistingDelayedTasksAfterShutdownPolicy() {
        return target.getExecuteExistingDelayedTasksAfterShutdownPolicy();
    }

    @Override
    public String toString() {
        return target.toString();
    }
}
