package io.timingwheel;

import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The due tasks that wait for a worker, in deadline order; among equal deadlines, tasks the master handed over come
 * first, in the order it handed them, then tasks that came straight from their producer (a task due at once, a
 * periodic task re-armed after its time), in the order they came. NOT thread safe: the worker pool's lock guards it.
 *
 * <p>Why that tie order is the order of submission: the master hands over only tasks scheduled with a delay, and one
 * scheduled after a task due at once has a deadline later than that one's (the delay is at least a nanosecond and the
 * clock never goes back); so of two tasks with equal deadlines, one handed by the master and one that came straight,
 * the master's was scheduled first. The master hands tasks over in deadline order, ties in the order of submission
 * from each thread (see {@link TimingWheel}).
 *
 * <p>Tasks arrive nearly in order (a batch from the master is sorted, and a task due at once is due after what is
 * queued), so adding is an append, O(1); a task due before the last one (a periodic task re-armed late and catching
 * up) goes in by a binary search and an array copy. Taking is from the front, O(1). Keys live in an array of their
 * own, so the search touches no task.
 */
final class DueQueue {
    private ScheduledTask<?>[] tasks = new ScheduledTask<?>[16];

    /** Per task, {@code deadline * 2}, plus 1 for a task that did not come from the master: the sort key. */
    private long[] keys = new long[16];

    /** The queue is {@code tasks[head..tail)}. */
    private int head;
    private int tail;

    /** Adds a task, in order. @param fromMaster whether the master handed it over (see the class comment) */
    void add(ScheduledTask<?> task, boolean fromMaster) {
        long key = (task.deadline << 1) | (fromMaster ? 0 : 1);
        if (tail == tasks.length) {
            makeRoom();
        }
        int at = tail;
        if (tail > head && keys[tail - 1] > key) {
            at = firstAfter(key);
            System.arraycopy(tasks, at, tasks, at + 1, tail - at);
            System.arraycopy(keys, at, keys, at + 1, tail - at);
        }
        tasks[at] = task;
        keys[at] = key;
        tail++;
    }

    /** @return the index of the first task whose key is greater than {@code key} (equal keys stay ahead) */
    private int firstAfter(long key) {
        int low = head;
        int high = tail;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (keys[middle] <= key) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }

    /** Makes room for one more at the end: moves the queue to the front, or doubles the arrays if half is in use. */
    private void makeRoom() {
        int size = tail - head;
        if (size * 2 > tasks.length) {
            tasks = Arrays.copyOf(tasks, tasks.length * 2);
            keys = Arrays.copyOf(keys, keys.length * 2);
        }
        if (head > 0) {
            System.arraycopy(tasks, head, tasks, 0, size);
            System.arraycopy(keys, head, keys, 0, size);
            Arrays.fill(tasks, size, tail, null);
            head = 0;
            tail = size;
        }
    }

    boolean isEmpty() {
        return head == tail;
    }

    int size() {
        return tail - head;
    }

    /** @return the first task, or null */
    ScheduledTask<?> peek() {
        return head == tail ? null : tasks[head];
    }

    /** @return the deadline of the first task; the queue must not be empty */
    long peekDeadline() {
        return keys[head] >>> 1;
    }

    /** Removes and returns the first task, or null. */
    ScheduledTask<?> poll() {
        if (head == tail) {
            return null;
        }
        ScheduledTask<?> task = tasks[head];
        tasks[head++] = null; // the queue must not keep what it handed out alive
        if (head == tail) {
            head = 0;
            tail = 0;
        }
        return task;
    }

    /** @return whether a task in the queue is still pending (the others are stragglers that left NEW) */
    boolean hasPending() {
        for (int i = head; i < tail; i++) {
            if (tasks[i].isPending()) {
                return true;
            }
        }
        return false;
    }

    /** Removes every task that {@code filter} matches, keeping the order of the others, and passes it on. */
    void removeIf(Predicate<ScheduledTask<?>> filter, Consumer<ScheduledTask<?>> removed) {
        int kept = head;
        for (int i = head; i < tail; i++) {
            ScheduledTask<?> task = tasks[i];
            if (filter.test(task)) {
                removed.accept(task);
            } else {
                tasks[kept] = task;
                keys[kept] = keys[i];
                kept++;
            }
        }
        Arrays.fill(tasks, kept, tail, null);
        tail = kept;
    }

    /** Copies the pending tasks into {@code sink}, in order. */
    void copyPendingTo(List<ScheduledTask<?>> sink) {
        for (int i = head; i < tail; i++) {
            if (tasks[i].isPending()) {
                sink.add(tasks[i]);
            }
        }
    }

    /** @return how many tasks in the queue still wait to run (those cancelled meanwhile are not counted) */
    int waitingCount() {
        int n = 0;
        for (int i = head; i < tail; i++) {
            if (tasks[i].isPending()) {
                n++;
            }
        }
        return n;
    }

    void clear() {
        Arrays.fill(tasks, head, tail, null);
        head = 0;
        tail = 0;
    }
}
