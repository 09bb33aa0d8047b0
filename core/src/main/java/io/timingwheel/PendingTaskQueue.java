package io.timingwheel;

import java.util.AbstractQueue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The queue returned by {@link TimingWheelExecutor#getQueue()}: a view of the pending tasks, as the user holds them
 * (the futures {@code schedule} returned, decorated if {@code decorateTask} decorated them), that does what code
 * written for the JDK's queue does with it. Each call sees the executor as it is then.
 *
 * <ul>
 *   <li><b>Taking out</b> ({@link #poll()}, {@link #take()}, the timed {@code poll}, {@link #drainTo}): only due
 *       tasks, those due first, as from a delay queue; what is taken out is the caller's, uncancelled, as what
 *       {@code shutdownNow()} returns: the executor never runs it, the caller may run it, cancel it or put it back.</li>
 *   <li><b>Removing</b> ({@link #remove(Object)}, {@link #clear()}, {@code removeIf}, {@code removeAll},
 *       {@code retainAll}, the iterator's {@code remove}): the task is cancelled, so its future completes (the JDK's
 *       is left incomplete for ever).</li>
 *   <li><b>Adding</b> ({@link #add}, {@link #offer}, {@link #put}): a {@link RunnableScheduledFuture}, as the JDK's
 *       queue takes it: it runs after its delay, also after {@code shutdown()} if the policies keep it. Something else
 *       is a {@link ClassCastException}, as in the JDK. Under a pending limit, {@code offer} returns false and
 *       {@code add} throws {@link IllegalStateException} when the limit is reached, and {@code put} waits.</li>
 *   <li><b>Looking</b> ({@link #peek()}, {@link #size()}, {@link #contains}, {@link #iterator()},
 *       {@link #toArray()}): {@code peek} gives the task due first, due or not; {@code contains} is O(1) for an
 *       undecorated task; the iterator walks a snapshot.</li>
 * </ul>
 * The blocking methods wait for the next deadline, looking again at least every {@value #MAX_WAIT_MILLIS} ms for
 * tasks scheduled meanwhile.
 */
final class PendingTaskQueue extends AbstractQueue<Runnable> implements BlockingQueue<Runnable> {
    /** The longest a blocking method waits before it looks again: a task may be scheduled meanwhile. */
    static final long MAX_WAIT_MILLIS = 10;

    private final ExecutorCore core;

    PendingTaskQueue(ExecutorCore core) {
        this.core = core;
    }

    // -- looking ----------------------------------------------------------------------------------------------------

    @Override
    public int size() {
        return (int) Math.min(Integer.MAX_VALUE, core.pending().count());
    }

    @Override
    public boolean isEmpty() {
        return core.pending().count() == 0;
    }

    @Override
    public boolean contains(Object task) {
        return core.pending().contains(task);
    }

    /** @return the pending tasks as the user holds them, in no particular order */
    private List<Runnable> snapshot() {
        List<ScheduledTask<?>> tasks = core.pending().list();
        List<Runnable> userTasks = new ArrayList<>(tasks.size());
        for (ScheduledTask<?> task : tasks) {
            userTasks.add(core.userTask(task));
        }
        return userTasks;
    }

    /** @return an iterator over a snapshot of the pending tasks; its {@code remove} cancels the task */
    @Override
    public Iterator<Runnable> iterator() {
        List<Runnable> tasks = snapshot();
        return new Iterator<>() {
            private int next;
            private Runnable last;

            @Override
            public boolean hasNext() {
                return next < tasks.size();
            }

            @Override
            public Runnable next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                last = tasks.get(next++);
                return last;
            }

            @Override
            public void remove() {
                if (last == null) {
                    throw new IllegalStateException();
                }
                core.pending().remove(last);
                last = null;
            }
        };
    }

    @Override
    public Object[] toArray() {
        return snapshot().toArray();
    }

    @Override
    public <T> T[] toArray(T[] array) {
        return snapshot().toArray(array);
    }

    /** @return the pending task due first, due or not, or null */
    @Override
    public Runnable peek() {
        ScheduledTask<?> first = core.pending().earliest();
        return first == null ? null : core.userTask(first);
    }

    // -- taking out -------------------------------------------------------------------------------------------------

    /** @return the task due first if it is due, taken out (the caller's now), or null */
    @Override
    public Runnable poll() {
        List<ScheduledTask<?>> taken = new ArrayList<>(1);
        core.pending().takeDue(1, taken);
        return taken.isEmpty() ? null : core.handOut(taken).get(0);
    }

    @Override
    public Runnable poll(long timeout, TimeUnit unit) throws InterruptedException {
        return awaitDue(unit.toNanos(timeout), true);
    }

    @Override
    public Runnable take() throws InterruptedException {
        return awaitDue(0, false);
    }

    /** Waits until a task is due and takes it, or until the timeout, if {@code timed}; null then. */
    private Runnable awaitDue(long nanos, boolean timed) throws InterruptedException {
        long giveUpAt = System.nanoTime() + nanos;
        for (;;) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            Runnable task = poll();
            if (task != null) {
                return task;
            }
            long wait = Math.min(core.pending().nextDeadlineBound() - core.now(), TimeUnit.MILLISECONDS.toNanos(MAX_WAIT_MILLIS));
            if (timed) {
                long left = giveUpAt - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                wait = Math.min(wait, left);
            }
            LockSupport.parkNanos(this, Math.max(1_000, wait));
        }
    }

    @Override
    public int drainTo(Collection<? super Runnable> sink) {
        return drainTo(sink, Integer.MAX_VALUE);
    }

    @Override
    public int drainTo(Collection<? super Runnable> sink, int maxElements) {
        Objects.requireNonNull(sink);
        if (sink == this) {
            throw new IllegalArgumentException();
        }
        if (maxElements <= 0) {
            return 0;
        }
        List<ScheduledTask<?>> taken = new ArrayList<>();
        core.pending().takeDue(maxElements, taken);
        sink.addAll(core.handOut(taken));
        return taken.size();
    }

    // -- removing ---------------------------------------------------------------------------------------------------

    /** Removes (and cancels) a pending task, as {@link TimingWheelExecutor#remove(Runnable)} does. */
    @Override
    public boolean remove(Object task) {
        return core.pending().remove(task);
    }

    /** Cancels every pending task. */
    @Override
    public void clear() {
        core.pending().cancelAll();
    }

    // -- adding -----------------------------------------------------------------------------------------------------

    /**
     * @throws ClassCastException if {@code task} is not a {@link RunnableScheduledFuture}, as in the JDK
     * @throws NullPointerException if it is null
     */
    @Override
    public boolean offer(Runnable task) {
        return core.pending().add((RunnableScheduledFuture<?>) Objects.requireNonNull(task));
    }

    @Override
    public boolean offer(Runnable task, long timeout, TimeUnit unit) throws InterruptedException {
        long giveUpAt = System.nanoTime() + unit.toNanos(timeout);
        while (!offer(task)) {
            long left = giveUpAt - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            awaitRoom(left);
        }
        return true;
    }

    @Override
    public void put(Runnable task) throws InterruptedException {
        while (!offer(task)) {
            awaitRoom(Long.MAX_VALUE);
        }
    }

    /** Waits a little for room under the pending limit. */
    private void awaitRoom(long left) throws InterruptedException {
        LockSupport.parkNanos(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(1)));
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
    }

    /** @return {@code Integer.MAX_VALUE} as the JDK's, or the room left under the pending limit */
    @Override
    public int remainingCapacity() {
        long max = core.maxPendingTasks();
        return max == 0 ? Integer.MAX_VALUE : (int) Math.min(Integer.MAX_VALUE, Math.max(0, max - size()));
    }
}
