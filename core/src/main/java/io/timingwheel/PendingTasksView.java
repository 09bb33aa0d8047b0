package io.timingwheel;

import java.util.AbstractQueue;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The read-only queue returned by {@link TimingWheelExecutor#getQueue()}: every query takes a fresh snapshot of the
 * pending tasks from the master, so a view obtained once stays current, as the JDK's live queue does.
 *
 * <p>Adding throws {@link UnsupportedOperationException}. {@link #poll()} cancels and returns the task due first:
 * that is what {@link java.util.concurrent.ThreadPoolExecutor.DiscardOldestPolicy} needs to make room under a
 * pending-task limit.
 */
final class PendingTasksView extends AbstractQueue<Runnable> implements BlockingQueue<Runnable> {
    private final TimingWheelExecutor executor;

    PendingTasksView(TimingWheelExecutor executor) {
        this.executor = executor;
    }

    @Override
    public Iterator<Runnable> iterator() {
        return Collections.<Runnable>unmodifiableList(executor.pendingTasks()).iterator();
    }

    @Override
    public int size() {
        return executor.pendingTasks().size();
    }

    @Override
    public Runnable peek() {
        return earliest(executor.pendingTasks());
    }

    @Override
    public Runnable poll() {
        for (;;) {
            ScheduledTask<?> first = earliest(executor.pendingTasks());
            if (first == null || first.cancelIfPending()) {
                return first;
            }
        }
    }

    private static ScheduledTask<?> earliest(List<ScheduledTask<?>> tasks) {
        ScheduledTask<?> first = null;
        for (ScheduledTask<?> task : tasks) {
            if (first == null || task.deadline < first.deadline) {
                first = task;
            }
        }
        return first;
    }

    @Override
    public Runnable poll(long timeout, TimeUnit unit) {
        return poll();
    }

    @Override
    public boolean offer(Runnable task) {
        throw new UnsupportedOperationException("read-only view: schedule tasks through the executor");
    }

    @Override
    public boolean offer(Runnable task, long timeout, TimeUnit unit) {
        return offer(task);
    }

    @Override
    public void put(Runnable task) {
        offer(task);
    }

    @Override
    public Runnable take() {
        throw new UnsupportedOperationException("read-only view");
    }

    @Override
    public int remainingCapacity() {
        return Integer.MAX_VALUE;
    }

    @Override
    public int drainTo(Collection<? super Runnable> sink) {
        throw new UnsupportedOperationException("read-only view: use shutdownNow()");
    }

    @Override
    public int drainTo(Collection<? super Runnable> sink, int maxElements) {
        return drainTo(sink);
    }

    @Override
    public void clear() {
        throw new UnsupportedOperationException("read-only view");
    }
}
