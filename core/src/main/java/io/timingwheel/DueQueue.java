package io.timingwheel;

import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The tasks handed to the workers, in deadline order: due ones, and those handed over a little ahead of their
 * deadline, which a worker runs when they fall due. Among equal deadlines, tasks the master handed over come first, in
 * the order it handed them, then tasks that came straight from their publisher (due at once or soon, or a periodic
 * task re-armed close to its next run), in the order they came. NOT thread safe: the worker pool's lock guards it.
 *
 * <p>Why that tie order is the order of submission from one thread: the master hands over only tasks scheduled with a
 * delay beyond the straight route's reach ({@link WorkerPool#STRAIGHT_REACH_NANOS}), and a task that one thread
 * schedules with a given deadline goes the straight route only once its delay, which shrinks as time passes, is within
 * that reach; so of two tasks of one thread with equal deadlines, one from the master and one that came straight, the
 * master's was scheduled first. The master hands tasks over in deadline order, ties in the order of submission from
 * each thread (see {@link TimingWheel}), and the straight ones keep the order in which they came.
 *
 * <p>Two lanes, one per source, and the queue's head is the earlier of their heads (the master's on a tie). Each lane
 * is ordered by deadline, then by arrival, in two parts ({@link Lane}): a run of tasks that came in deadline order
 * (the master's batches, which are sorted and mostly follow one another; tasks due at once, in the order they came; a
 * producer's timers with growing delays), appended and taken in O(1), and a binary heap for those that came out of
 * order, O(log n) each, where an array would copy its tail. The master's batches overlap while it drains a burst and
 * hands over between (a task drained later may be due before the last one handed over): with an array, each such task
 * cost a copy of the lane, and a lane of hundreds of thousands held back by the order gate took the master seconds to
 * hand over into (the test of a million timers caught it, 1 run in 10).
 *
 * <p>An empty part, lane or queue reports the deadline {@link #EMPTY}, later than any task's, so a look at the first
 * deadline needs no test of emptiness first.
 */
final class DueQueue {
    /** The deadline of the first task of an empty queue, lane or part: later than any task's ({@link Deadlines#MAX}). */
    static final long EMPTY = TimingWheel.NONE;

    /** The task that ends a run ({@link Run}): never run, never handed out, due at {@link #EMPTY}. */
    private static final ScheduledTask<?> END = new RunnableTask(null, new Runnable() { // not a lambda: see Lifecycle
        @Override
        public void run() {
        }
    }, EMPTY);

    private final Lane fromMaster = new Lane();
    private final Lane straight = new Lane();

    /** Adds a task, in order. @param byMaster whether the master handed it over (see the class comment) */
    void add(ScheduledTask<?> task, boolean byMaster) {
        (byMaster ? fromMaster : straight).add(task, task.deadline);
    }

    boolean isEmpty() {
        return peekDeadline() == EMPTY;
    }

    int size() {
        return fromMaster.size() + straight.size();
    }

    /**
     * @return the lane whose head is the queue's first task (the master's lane wins a tie); an empty lane if the queue
     *     is empty (its head deadline {@link #EMPTY})
     */
    private Lane headLane() {
        // the straight lane only if its head is strictly earlier: an empty lane's EMPTY never is
        return straight.firstDeadline < fromMaster.firstDeadline ? straight : fromMaster;
    }

    /** @return the first task, or null */
    ScheduledTask<?> peek() {
        Lane first = headLane();
        return first.isEmpty() ? null : first.head();
    }

    /** @return the deadline of the first task, {@link #EMPTY} if there is none */
    long peekDeadline() {
        return Math.min(fromMaster.firstDeadline, straight.firstDeadline);
    }

    /** Removes and returns the first task, or null. */
    ScheduledTask<?> poll() {
        Lane first = headLane();
        return first.isEmpty() ? null : first.poll();
    }

    /** @return whether a task in the queue is still pending (the others are stragglers that left NEW) */
    boolean hasPending() {
        return fromMaster.hasPending() || straight.hasPending();
    }

    /** Removes every task that {@code filter} matches, keeping the order of the others, and passes it on. */
    void removeIf(Predicate<ScheduledTask<?>> filter, Consumer<ScheduledTask<?>> removed) {
        fromMaster.removeIf(filter, removed);
        straight.removeIf(filter, removed);
    }

    /** Copies the pending tasks into {@code sink}, in order. */
    void copyPendingTo(List<ScheduledTask<?>> sink) {
        int from = sink.size();
        fromMaster.copyPendingTo(sink);
        straight.copyPendingTo(sink);
        // Two sorted runs: a stable sort by deadline merges them, the master's first on ties.
        sink.subList(from, sink.size()).sort((a, b) -> Long.compare(a.deadline, b.deadline));
    }

    /** @return how many tasks in the queue still wait to run (those cancelled meanwhile are not counted) */
    int pendingCount() {
        return fromMaster.pendingCount() + straight.pendingCount();
    }

    void clear() {
        fromMaster.clear();
        straight.clear();
    }

    /** For tests: how many tasks the runs' arrays still hold in slots outside the runs. */
    int retainedOutsideTheRuns() {
        return fromMaster.run.retainedOutside() + straight.run.retainedOutside();
    }

    /** @return whether key 1, (deadline, arrival), comes before key 2: by deadline, then by arrival */
    static boolean before(long deadline1, long arrival1, long deadline2, long arrival2) {
        return deadline1 < deadline2 || deadline1 == deadline2 && arrival1 < arrival2;
    }

    /**
     * The tasks of one source, ordered by deadline, then by arrival (a sequence number): a run of those that came in
     * that order, and a heap of the others. A task whose deadline is not before the run's last one extends the run;
     * the first task is the earlier of the two heads.
     */
    static final class Lane {
        private final Run run = new Run();
        private final Heap heap = new Heap();
        private long nextArrival;

        /**
         * Whether the first task is the heap's, decided at each change of the lane ({@link #settleFirst}) rather than
         * at each look: a worker looks at the head several times per task it takes. Meaningful only while the lane
         * holds a task.
         */
        private boolean heapFirst;

        /** The first task's deadline, {@link #EMPTY} while the lane holds none; set with {@link #heapFirst}. */
        private long firstDeadline = EMPTY;

        void add(ScheduledTask<?> task, long deadline) {
            long arrival = nextArrival++;
            if (run.isEmpty() || deadline >= run.tailDeadline()) {
                run.add(task, deadline, arrival);
            } else {
                heap.add(task, deadline, arrival);
            }
            settleFirst();
        }

        /**
         * Decides which part holds the first task: the heap's only if it is due strictly before the run's. On equal
         * deadlines the run's arrived first: a task goes to the heap only while the run ends with a later deadline,
         * which stays in the run until the heap's task is taken (and {@link #removeIf}, which could take it, leaves
         * the heap empty). So the arrivals, an array the taker would otherwise read through, are not compared.
         */
        private void settleFirst() {
            long heapDeadline = heap.headDeadline(); // EMPTY if the heap is empty, as the run's: no look at either
            long runDeadline = run.headDeadline();
            heapFirst = heapDeadline < runDeadline;
            firstDeadline = Math.min(heapDeadline, runDeadline);
        }

        boolean isEmpty() {
            return firstDeadline == EMPTY;
        }

        int size() {
            return run.size() + heap.size();
        }

        ScheduledTask<?> head() {
            return heapFirst ? heap.head() : run.head();
        }

        /** @return the first task's deadline, {@link #EMPTY} if the lane is empty */
        long headDeadline() {
            return firstDeadline;
        }

        ScheduledTask<?> poll() {
            ScheduledTask<?> first = heapFirst ? heap.poll() : run.poll();
            settleFirst();
            return first;
        }

        boolean hasPending() {
            return run.hasPending() || heap.hasPending();
        }

        /**
         * Removes what {@code filter} matches; then the heap's tasks, if any are left, join the run's in one run, in
         * order, so that a task the heap holds never ties with a later one at the run's head (see
         * {@link #settleFirst}).
         */
        void removeIf(Predicate<ScheduledTask<?>> filter, Consumer<ScheduledTask<?>> removed) {
            run.removeIf(filter, removed);
            heap.removeIf(filter, removed);
            if (!heap.isEmpty()) {
                mergeHeapIntoRun();
            }
            settleFirst();
        }

        /** Takes every task out of both parts, in order, and adds them back to the run. */
        private void mergeHeapIntoRun() {
            int count = run.size() + heap.size();
            ScheduledTask<?>[] tasks = new ScheduledTask<?>[count];
            long[] arrivals = new long[count];
            for (int i = 0; i < count; i++) {
                if (before(heap.headDeadline(), heap.headArrival(), run.headDeadline(), run.headArrival())) {
                    arrivals[i] = heap.headArrival();
                    tasks[i] = heap.poll();
                } else {
                    arrivals[i] = run.headArrival();
                    tasks[i] = run.poll();
                }
            }
            for (int i = 0; i < count; i++) {
                run.add(tasks[i], tasks[i].deadline, arrivals[i]);
            }
        }

        /** Copies the pending tasks into {@code sink}, in order: takes them out of a copy, leaving this as it is. */
        void copyPendingTo(List<ScheduledTask<?>> sink) {
            Lane copy = new Lane();
            run.copyTo(copy.run);
            heap.copyTo(copy.heap);
            copy.settleFirst();
            while (!copy.isEmpty()) {
                ScheduledTask<?> task = copy.poll();
                if (task.isPending()) {
                    sink.add(task);
                }
            }
        }

        int pendingCount() {
            return run.pendingCount() + heap.pendingCount();
        }

        void clear() {
            run.clear();
            heap.clear();
            settleFirst();
        }
    }

    /**
     * A binary heap of tasks ordered by deadline, then by arrival, in parallel arrays: the keys of a node are read
     * without touching its task. While the heap is empty, its head deadline is {@link #EMPTY}.
     */
    private static final class Heap {
        private ScheduledTask<?>[] tasks = new ScheduledTask<?>[16];
        private long[] deadlines = emptyKeys(16);
        private long[] arrivals = new long[16];
        private int size;

        void add(ScheduledTask<?> task, long deadline, long arrival) {
            if (size == tasks.length) {
                tasks = Arrays.copyOf(tasks, size * 2);
                deadlines = Arrays.copyOf(deadlines, size * 2);
                arrivals = Arrays.copyOf(arrivals, size * 2);
            }
            siftUp(size++, task, deadline, arrival);
        }

        /** @return whether node {@code i} comes before node {@code j} */
        private boolean before(int i, int j) {
            return DueQueue.before(deadlines[i], arrivals[i], deadlines[j], arrivals[j]);
        }

        /** @return whether node {@code i} comes before the key (deadline, arrival) */
        private boolean nodeBeforeKey(int i, long deadline, long arrival) {
            return DueQueue.before(deadlines[i], arrivals[i], deadline, arrival);
        }

        /** Puts the entry at the hole {@code at} or above it, moving the nodes before it down. */
        private void siftUp(int at, ScheduledTask<?> task, long deadline, long arrival) {
            while (at > 0) {
                int parent = (at - 1) >>> 1;
                if (!keyBeforeNode(deadline, arrival, parent)) {
                    break;
                }
                set(at, tasks[parent], deadlines[parent], arrivals[parent]);
                at = parent;
            }
            set(at, task, deadline, arrival);
        }

        /** Puts the entry at the hole {@code at} or below it, moving the nodes before it up. */
        private void siftDown(int at, ScheduledTask<?> task, long deadline, long arrival) {
            for (;;) {
                int child = 2 * at + 1;
                if (child >= size) {
                    break;
                }
                if (child + 1 < size && before(child + 1, child)) {
                    child++;
                }
                if (!nodeBeforeKey(child, deadline, arrival)) {
                    break;
                }
                set(at, tasks[child], deadlines[child], arrivals[child]);
                at = child;
            }
            set(at, task, deadline, arrival);
        }

        /** @return whether the key (deadline, arrival) comes before node {@code i} */
        private boolean keyBeforeNode(long deadline, long arrival, int i) {
            return DueQueue.before(deadline, arrival, deadlines[i], arrivals[i]);
        }

        private void set(int i, ScheduledTask<?> task, long deadline, long arrival) {
            tasks[i] = task;
            deadlines[i] = deadline;
            arrivals[i] = arrival;
        }

        boolean isEmpty() {
            return size == 0;
        }

        int size() {
            return size;
        }

        ScheduledTask<?> head() {
            return tasks[0];
        }

        long headDeadline() {
            return deadlines[0];
        }

        long headArrival() {
            return arrivals[0];
        }

        ScheduledTask<?> poll() {
            ScheduledTask<?> first = tasks[0];
            int last = --size;
            // The last node fills the root's hole and sinks; then its old slot is cleared. With no node left that slot
            // is the root, filled again by the sift: clearing it empties the heap.
            siftDown(0, tasks[last], deadlines[last], arrivals[last]);
            tasks[last] = null; // the queue must not keep what it handed out alive
            deadlines[last] = EMPTY;
            return first;
        }

        boolean hasPending() {
            for (int i = 0; i < size; i++) {
                if (tasks[i].isPending()) {
                    return true;
                }
            }
            return false;
        }

        /** Removes what {@code filter} matches, then rebuilds the heap from the rest (Floyd's heapify, O(n)). */
        void removeIf(Predicate<ScheduledTask<?>> filter, Consumer<ScheduledTask<?>> removed) {
            int kept = 0;
            for (int i = 0; i < size; i++) {
                ScheduledTask<?> task = tasks[i];
                if (filter.test(task)) {
                    removed.accept(task);
                } else {
                    set(kept++, task, deadlines[i], arrivals[i]);
                }
            }
            Arrays.fill(tasks, kept, size, null);
            Arrays.fill(deadlines, kept, size, EMPTY);
            size = kept;
            for (int i = (size >>> 1) - 1; i >= 0; i--) {
                siftDown(i, tasks[i], deadlines[i], arrivals[i]);
            }
        }

        /** Makes {@code target}, an empty heap, a copy of this one. */
        void copyTo(Heap target) {
            target.tasks = Arrays.copyOf(tasks, Math.max(16, size));
            target.deadlines = Arrays.copyOf(deadlines, Math.max(16, size));
            target.arrivals = Arrays.copyOf(arrivals, Math.max(16, size));
            target.size = size;
        }

        int pendingCount() {
            int n = 0;
            for (int i = 0; i < size; i++) {
                if (tasks[i].isPending()) {
                    n++;
                }
            }
            return n;
        }

        void clear() {
            Arrays.fill(tasks, 0, size, null);
            Arrays.fill(deadlines, 0, size, EMPTY);
            size = 0;
        }
    }

    /** @return {@code length} keys, each {@link #EMPTY} */
    private static long[] emptyKeys(int length) {
        long[] keys = new long[length];
        Arrays.fill(keys, EMPTY);
        return keys;
    }

    /**
     * Tasks added in deadline order, each with its arrival number: {@code tasks[head..tail)}, appended at the tail and
     * taken at the head. The caller adds only a task due no earlier than the last one. The slot at the tail, always
     * within the arrays, holds {@link #END}, whose deadline is {@link #EMPTY}: the head of an empty run. The deadlines
     * are read from the tasks, not kept beside them: a taker reads the next task's deadline from the task it is about
     * to run, where an array of them was one more stream of memory per task (firing 100 000 tasks due at once read it
     * 6% slower). Only the last one is kept, so that adding reads no task.
     */
    private static final class Run {
        private ScheduledTask<?>[] tasks = endedAt(new ScheduledTask<?>[16], 0);
        private long[] arrivals = new long[16];
        private int head;
        private int tail;

        /** The deadline of {@code tasks[tail - 1]}; meaningful only while the run is not empty. */
        private long tailDeadline;

        void add(ScheduledTask<?> task, long deadline, long arrival) {
            if (tail + 1 == tasks.length) {
                makeRoom();
            }
            tasks[tail] = task;
            arrivals[tail] = arrival;
            tasks[++tail] = END;
            tailDeadline = deadline;
        }

        /**
         * Makes room for one more at the end: moves the run to the front, or doubles the arrays if half is in use.
         * Clears only the old slots that the move did not overwrite: {@link #poll} cleared those before the head. A
         * run that fires steadily comes here once per length of its arrays with only a few tasks in it, and clearing
         * every slot from its new end was a pass over nearly all of them, which also made the JIT compile that loop
         * apart (on-stack) while the timers fired.
         */
        private void makeRoom() {
            int size = tail - head;
            if (size * 2 > tasks.length) {
                tasks = Arrays.copyOf(tasks, tasks.length * 2);
                arrivals = Arrays.copyOf(arrivals, arrivals.length * 2);
            }
            if (head > 0) {
                System.arraycopy(tasks, head, tasks, 0, size);
                System.arraycopy(arrivals, head, arrivals, 0, size);
                Arrays.fill(tasks, Math.max(size, head), tail + 1, null);
                head = 0;
                tail = size;
                tasks[tail] = END;
            }
        }

        boolean isEmpty() {
            return head == tail;
        }

        int size() {
            return tail - head;
        }

        /** @return the first task, {@link #END} if the run is empty */
        ScheduledTask<?> head() {
            return tasks[head];
        }

        long headDeadline() {
            return tasks[head].deadline;
        }

        long headArrival() {
            return arrivals[head];
        }

        /** @return the last task's deadline; the run is not empty */
        long tailDeadline() {
            return tailDeadline;
        }

        /** Makes {@code target}, an empty run, a copy of this one. */
        void copyTo(Run target) {
            int size = tail - head;
            int length = Math.max(16, size + 1); // with the slot at the tail
            target.tasks = endedAt(Arrays.copyOfRange(tasks, head, head + length), size);
            target.arrivals = Arrays.copyOfRange(arrivals, head, head + length);
            target.head = 0;
            target.tail = size;
            target.tailDeadline = tailDeadline;
        }

        /** Takes the first task; the run must not be empty. */
        ScheduledTask<?> poll() {
            ScheduledTask<?> task = tasks[head];
            tasks[head++] = null; // the queue must not keep what it handed out alive
            if (head == tail) {
                // a run that empties starts again at the front, whose slots the caches likely still hold
                tasks[head] = null;
                head = 0;
                tail = 0;
                tasks[0] = END;
            }
            return task;
        }

        boolean hasPending() {
            for (int i = head; i < tail; i++) {
                if (tasks[i].isPending()) {
                    return true;
                }
            }
            return false;
        }

        void removeIf(Predicate<ScheduledTask<?>> filter, Consumer<ScheduledTask<?>> removed) {
            int kept = head;
            for (int i = head; i < tail; i++) {
                ScheduledTask<?> task = tasks[i];
                if (filter.test(task)) {
                    removed.accept(task);
                } else {
                    tasks[kept] = task;
                    arrivals[kept] = arrivals[i];
                    kept++;
                }
            }
            Arrays.fill(tasks, kept, tail + 1, null);
            tail = kept;
            tasks[tail] = END;
            tailDeadline = tasks[Math.max(head, tail - 1)].deadline; // END's if the run is now empty: never read
        }

        void copyPendingTo(List<ScheduledTask<?>> sink) {
            for (int i = head; i < tail; i++) {
                if (tasks[i].isPending()) {
                    sink.add(tasks[i]);
                }
            }
        }

        int pendingCount() {
            int n = 0;
            for (int i = head; i < tail; i++) {
                if (tasks[i].isPending()) {
                    n++;
                }
            }
            return n;
        }

        void clear() {
            Arrays.fill(tasks, head, tail + 1, null);
            head = 0;
            tail = 0;
            tasks[0] = END;
        }

        /** For tests: how many slots outside {@code [head, tail]} still hold a task, which the run must not keep. */
        int retainedOutside() {
            int held = 0;
            for (int i = 0; i < tasks.length; i++) {
                if ((i < head || i > tail) && tasks[i] != null && tasks[i] != END) {
                    held++;
                }
            }
            return held;
        }

        /** @return {@code tasks}, with {@link #END} at {@code tail} */
        private static ScheduledTask<?>[] endedAt(ScheduledTask<?>[] tasks, int tail) {
            tasks[tail] = END;
            return tasks;
        }
    }
}
