package io.timingwheel;

import java.util.AbstractQueue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The queue returned by {@link TimingWheelExecutor#getQueue()}: every query takes a fresh snapshot of the pending
 * tasks from the master, so a view obtained once stays current, as the JDK's live queue does. Its elements are what
 * the user holds: the futures that {@code schedule} returned, decorated if {@code decorateTask} decorated them.
 *
 * <p>Adding throws {@link UnsupportedOperationException}: tasks enter through the executor. Removing an element
 * ({@link #remove(Object)}, {@link #poll()}) cancels it, so its future completes. {@link #poll()} takes the task due
 * first: that is what {@link java.util.concurrent.ThreadPoolExecutor.DiscardOldestPolicy} needs to make room under a
 * pending-task limit.
 */
final class PendingTasksView extends AbstractQueue<Runnable> implements BlockingQueue<Runnable> {
    private final ExecutorCore core;

    PendingTasksView(ExecutorCore core) {
        this.core = core;
    }

    private List<Runnable> snapshot() {
        List<ScheduledTask<?>> tasks = core.pendingTasks();
        List<Runnable> userTasks = new ArrayList<>(tasks.size());
        for (ScheduledTask<?> task : tasks) {
            userTasks.add(core.userTask(task));
        }
        return userTasks;
    }

    @Override
    public Iterator<Runnable> iterator() {
        return Collections.unmodifiableList(snapshot()).iterator();
    }

    @Override
    public int size() {
        return (int) Math.min(Integer.MAX_VALUE, core.pendingTaskCount());
    }

    @Override
    public boolean isEmpty() {
        return core.pendingTaskCount() == 0;
    }

    @Override
    public Runnable peek() {
        ScheduledTask<?> first = earliest(core.pendingTasks());
        return first == null ? null : core.userTask(first);
    }

    @Override
    public Runnable poll() {
        for (;;) {
            ScheduledTask<?> first = earliest(core.pendingTasks());
            if (first == null) {
                return null;
            }
            Runnable userTask = core.userTask(first); // before the cancel, which forgets the decoration
            if (first.cancelIfPending()) {
                return userTask;
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

    /** Removes (and cancels) a pending task, as {@link TimingWheelExecutor#remove(Runnable)} does. */
    @Override
    public boolean remove(Object task) {
        return core.removePending(task);
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
        long max = core.maxPendingTasks();
        return max == 0 ? Integer.MAX_VALUE : (int) Math.min(Integer.MAX_VALUE, Math.max(0, max - size()));
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
