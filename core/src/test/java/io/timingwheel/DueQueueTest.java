package io.timingwheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The workers' queue alone: deadline order across its two lanes, the tie order (the master's tasks first, then those
 * that came straight, each in arrival order), and the bulk operations, checked against a plain sorted model.
 */
class DueQueueTest {

    /** A task host that lets every task run; nothing here runs one. */
    private static final TaskHost HOST = new PlainTaskHost();

    /** A task and where it came from, with its rank in the order the queue must give it back. */
    private record Entry(RunnableTask task, boolean byMaster, int arrival) {
    }

    private static RunnableTask task(long deadline) {
        return new RunnableTask(HOST, () -> { }, deadline);
    }

    /** The model's order: by deadline; on a tie the master's first, then by arrival. */
    private static final Comparator<Entry> ORDER = Comparator.<Entry>comparingLong(e -> e.task.deadline)
            .thenComparing(e -> !e.byMaster).thenComparingInt(Entry::arrival);

    /** Random deadlines from both sources, with many ties: the queue gives them back exactly in the model's order. */
    @Test
    void givesTasksBackInDeadlineOrderWithTheTieOrder() {
        Random random = new Random(11);
        for (int round = 0; round < 50; round++) {
            DueQueue queue = new DueQueue();
            List<Entry> model = new ArrayList<>();
            int count = 1 + random.nextInt(300);
            long masterDeadline = 0;
            for (int i = 0; i < count; i++) {
                boolean byMaster = random.nextBoolean();
                // the master hands over in deadline order (now and then late: a task that goes in front)
                long deadline = byMaster && random.nextInt(10) > 0
                        ? (masterDeadline += random.nextInt(3)) : random.nextInt(40);
                Entry entry = new Entry(task(deadline), byMaster, i);
                model.add(entry);
                queue.add(entry.task, byMaster);
                assertEquals(i + 1, queue.size());
            }
            model.sort(ORDER);
            for (int i = 0; i < model.size(); i++) {
                Entry expected = model.get(i);
                assertEquals(expected.task.deadline, queue.peekDeadline());
                assertSame(expected.task, queue.peek());
                assertSame(expected.task, queue.poll(), "round " + round);
            }
            assertTrue(queue.isEmpty());
            assertEquals(DueQueue.EMPTY, queue.peekDeadline());
            assertNull(queue.peek());
            assertNull(queue.poll());
        }
    }

    /**
     * Straight tasks that mostly come in deadline order (tasks due at once), with stragglers due earlier and many ties:
     * the in-order run and the heap each hold some, and ties between them go by arrival; the copy lists the same order.
     */
    @Test
    void straightTasksInAndOutOfOrderKeepTheArrivalOrderOnTies() {
        Random random = new Random(29);
        for (int round = 0; round < 50; round++) {
            DueQueue queue = new DueQueue();
            List<Entry> model = new ArrayList<>();
            int count = 1 + random.nextInt(400);
            for (int i = 0; i < count; i++) {
                boolean byMaster = random.nextInt(8) == 0;
                long inOrder = i / 4;
                long deadline = random.nextInt(5) == 0 ? Math.max(0, inOrder - random.nextInt(6)) : inOrder;
                Entry entry = new Entry(task(byMaster ? inOrder : deadline), byMaster, i);
                model.add(entry);
                queue.add(entry.task, byMaster);
                if (random.nextInt(3) == 0) { // a worker takes one: the run may empty and start again
                    Entry first = model.stream().min(ORDER).orElseThrow();
                    model.remove(first);
                    assertSame(first.task, queue.poll(), "interleaved, round " + round + ", after " + i);
                }
            }
            model.sort(ORDER);
            List<ScheduledTask<?>> copy = new ArrayList<>();
            queue.copyPendingTo(copy);
            assertEquals(model.size(), copy.size());
            assertEquals(model.size(), queue.size());
            for (int i = 0; i < model.size(); i++) {
                assertSame(model.get(i).task, copy.get(i), "copy, round " + round + ", place " + i);
            }
            for (Entry expected : model) {
                assertSame(expected.task, queue.poll(), "round " + round);
            }
            assertTrue(queue.isEmpty());
        }
    }

    /** Adding and taking interleaved keep the order (the heap's sifting under both). */
    @Test
    void interleavedAddsAndPollsKeepTheOrder() {
        Random random = new Random(5);
        DueQueue queue = new DueQueue();
        List<Entry> model = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            if (!model.isEmpty() && random.nextInt(3) == 0) {
                model.sort(ORDER);
                assertSame(model.remove(0).task, queue.poll());
            } else {
                boolean byMaster = random.nextInt(4) == 0;
                Entry entry = new Entry(task(random.nextInt(1_000)), byMaster, i);
                model.add(entry);
                queue.add(entry.task, byMaster);
            }
        }
        model.sort(ORDER);
        for (Entry expected : model) {
            assertSame(expected.task, queue.poll());
        }
        assertTrue(queue.isEmpty());
    }

    /** A task due at once never goes behind the timers handed over ahead of time, whatever their number. */
    @Test
    void aTaskDueNowComesBeforeTimersHandedOverAhead() {
        DueQueue queue = new DueQueue();
        for (int i = 1; i <= 1_000; i++) {
            queue.add(task(1_000 + i), true);
        }
        RunnableTask now = task(500);
        queue.add(now, false);
        assertSame(now, queue.poll());
        assertEquals(1_001, queue.peekDeadline());
    }

    /**
     * The bulk operations: removeIf keeps the order of the rest, the pending counts skip tasks that left NEW, and
     * copyPendingTo lists the pending ones in order.
     */
    @Test
    void removeIfCountsAndCopiesKeepTheOrder() {
        Random random = new Random(3);
        DueQueue queue = new DueQueue();
        List<Entry> model = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            boolean byMaster = random.nextBoolean();
            Entry entry = new Entry(task(random.nextInt(100)), byMaster, i);
            model.add(entry);
            queue.add(entry.task, byMaster);
        }
        // every third task leaves NEW (cancelled while queued)
        for (int i = 0; i < model.size(); i += 3) {
            assertTrue(model.get(i).task.cancelIfPending());
        }
        model.sort(ORDER);
        List<RunnableTask> pending = new ArrayList<>();
        for (Entry e : model) {
            if (e.task.isPending()) {
                pending.add(e.task);
            }
        }
        assertEquals(pending.size(), queue.pendingCount());
        assertTrue(queue.hasPending());
        List<ScheduledTask<?>> copy = new ArrayList<>();
        queue.copyPendingTo(copy);
        assertEquals(pending, copy);

        // remove the tasks due at an odd time; the rest come out in order
        List<ScheduledTask<?>> removed = new ArrayList<>();
        queue.removeIf(t -> t.deadline % 2 == 1, removed::add);
        List<RunnableTask> kept = new ArrayList<>();
        List<RunnableTask> expectedRemoved = new ArrayList<>();
        for (Entry e : model) {
            (e.task.deadline % 2 == 1 ? expectedRemoved : kept).add(e.task);
        }
        assertEquals(expectedRemoved.size(), removed.size());
        assertTrue(removed.containsAll(expectedRemoved));
        assertEquals(kept.size(), queue.size());
        for (RunnableTask expected : kept) {
            assertSame(expected, queue.poll());
        }
        assertTrue(queue.isEmpty());
        assertFalse(queue.hasPending());
    }

    /**
     * A lane decides which of its parts leads at each change, not at each look: removing the part that led (here the
     * heap's only task, the earliest) hands the lead to the other, and adding an earlier one takes it back.
     */
    @Test
    void removingTheLeadingPartsTasksHandsTheLeadToTheOther() {
        for (boolean byMaster : new boolean[] {true, false}) {
            DueQueue queue = new DueQueue();
            RunnableTask ten = task(10);
            RunnableTask twenty = task(20);
            RunnableTask five = task(5); // before the run's last: it goes to the heap, and leads
            queue.add(ten, byMaster);
            queue.add(twenty, byMaster);
            queue.add(five, byMaster);
            assertSame(five, queue.peek());

            queue.removeIf(t -> t == five, t -> { });
            assertSame(ten, queue.peek());
            assertEquals(10, queue.peekDeadline());

            RunnableTask seven = task(7);
            queue.add(seven, byMaster);
            assertSame(seven, queue.peek());
            assertSame(seven, queue.poll());
            assertSame(ten, queue.poll());
            assertSame(twenty, queue.poll());
            assertTrue(queue.isEmpty());
        }
    }

    /**
     * A lane whose run and heap run empty and fill again, over and over (an emptied run starts again at the front,
     * and one that reaches the end of its arrays moves or grows): the order holds, an empty queue reports {@link
     * DueQueue#EMPTY}, and a task due first in either part leads.
     */
    @Test
    void partsThatRunEmptyAndFillAgainKeepTheOrder() {
        Random random = new Random(23);
        DueQueue queue = new DueQueue();
        long time = 0;
        for (int cycle = 0; cycle < 2_000; cycle++) {
            List<Entry> model = new ArrayList<>();
            int count = 1 + random.nextInt(cycle % 50 == 0 ? 200 : 4);
            for (int i = 0; i < count; i++) {
                // mostly in order (the run), now and then one due earlier (the heap), ties included
                long deadline = time + (random.nextInt(4) == 0 ? -random.nextInt(3) : random.nextInt(3));
                time = Math.max(time, deadline);
                boolean byMaster = random.nextInt(5) == 0;
                Entry entry = new Entry(task(deadline), byMaster, i);
                model.add(entry);
                queue.add(entry.task, byMaster);
            }
            model.sort(ORDER);
            for (Entry expected : model) {
                assertEquals(expected.task.deadline, queue.peekDeadline(), "cycle " + cycle);
                assertSame(expected.task, queue.poll(), "cycle " + cycle);
            }
            assertTrue(queue.isEmpty(), "cycle " + cycle);
            assertEquals(DueQueue.EMPTY, queue.peekDeadline());
            assertNull(queue.peek());
        }
    }

    /**
     * A run that never empties, as one fed by the master while timers fire, reaches the end of its arrays again and
     * again and moves to the front, with few tasks in it and with more than it took: it keeps the order and keeps no
     * task it handed out in any slot.
     */
    @Test
    void aRunThatNeverEmptiesKeepsNoTaskItHandedOut() {
        DueQueue queue = new DueQueue();
        List<RunnableTask> model = new ArrayList<>();
        long deadline = 0;
        int taken = 0;
        for (int step = 0; step < 20_000; step++) {
            // phases of a few pending and of many, so that the move to the front both overlaps the old slots and not
            int backlog = (step / 2_500) % 2 == 0 ? 3 : 40;
            RunnableTask task = task(deadline++);
            model.add(task);
            queue.add(task, true);
            while (queue.size() > backlog) {
                assertSame(model.get(taken++), queue.poll(), "step " + step);
            }
            assertEquals(0, queue.retainedOutsideTheRuns(), "step " + step);
        }
        while (!queue.isEmpty()) {
            assertSame(model.get(taken++), queue.poll());
        }
        assertEquals(model.size(), taken);
        assertEquals(0, queue.retainedOutsideTheRuns());
    }

    /** Removing every task of a part, or of the queue, leaves it empty in every look, and it fills again in order. */
    @Test
    void removingEveryTaskEmptiesTheQueue() {
        DueQueue queue = new DueQueue();
        RunnableTask ten = task(10);
        RunnableTask five = task(5); // the heap's
        queue.add(ten, false);
        queue.add(five, false);
        queue.removeIf(t -> t == five, t -> { });
        assertEquals(10, queue.peekDeadline());
        queue.removeIf(t -> true, t -> { });
        assertTrue(queue.isEmpty());
        assertEquals(DueQueue.EMPTY, queue.peekDeadline());
        assertNull(queue.poll());
        RunnableTask three = task(3);
        queue.add(ten, false);
        queue.add(three, false);
        assertSame(three, queue.poll());
        assertSame(ten, queue.poll());
        assertTrue(queue.isEmpty());
    }

    /**
     * A removal that empties the run while the heap holds a task, then a task due at the same time: the one that came
     * first still leads, though the two parts' heads now tie (the lane compares only deadlines between its parts).
     */
    @Test
    void aTieAfterARemovalGoesToTheTaskThatCameFirst() {
        for (boolean byMaster : new boolean[] {true, false}) {
            DueQueue queue = new DueQueue();
            RunnableTask ten = task(10);
            RunnableTask firstFive = task(5); // behind ten: to the heap
            RunnableTask laterFive = task(5);
            queue.add(ten, byMaster);
            queue.add(firstFive, byMaster);
            queue.removeIf(t -> t == ten, t -> { });
            queue.add(laterFive, byMaster);
            assertSame(firstFive, queue.poll());
            assertSame(laterFive, queue.poll());
            assertTrue(queue.isEmpty());
        }
    }

    /** clear() empties both lanes and lets go of the tasks. */
    @Test
    void clearEmptiesBothLanes() {
        DueQueue queue = new DueQueue();
        List<RunnableTask> tasks = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            tasks.add(task(i));
        }
        Collections.shuffle(tasks, new Random(1));
        for (int i = 0; i < tasks.size(); i++) {
            queue.add(tasks.get(i), i % 2 == 0);
        }
        queue.clear();
        assertTrue(queue.isEmpty());
        assertEquals(DueQueue.EMPTY, queue.peekDeadline());
        assertEquals(0, queue.size());
        assertNull(queue.poll());
        queue.add(tasks.get(0), false);
        assertSame(tasks.get(0), queue.poll());
    }
}
