package io.timingwheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The wheel alone, driven by a fake time: placement, cascading, never early, huge deadlines, removal. */
class TimingWheelTest {
    private static final long TICK = 1_000_000; // 1 ms
    private static final int SLOTS = 16; // small, so that a few hundred ticks cross several levels

    private final TimingWheel<Node> wheel = new TimingWheel<>(TICK, SLOTS);
    private final List<Node> fired = new ArrayList<>();
    private long now;

    /** A node that remembers when it fired. */
    static final class Node extends TimerNode {
        long firedAt = -1;

        /** The order in which the node was added, for the tests of order. */
        long order;

        Node(long deadline) {
            this.deadline = deadline;
        }

        @Override
        public String toString() {
            return "Node(deadline=" + deadline + ", order=" + order + ")";
        }
    }

    private Node add(long deadline) {
        Node node = new Node(deadline);
        wheel.add(node);
        return node;
    }

    private void advanceTo(long time) {
        now = time;
        wheel.advance(time, node -> {
            node.firedAt = now;
            fired.add(node);
        });
    }

    /** Advances in steps the way the master does: to each next deadline bound, never past {@code end}. */
    private void runUntil(long end) {
        for (;;) {
            long next = wheel.nextDeadlineBound();
            if (next > end) {
                advanceTo(end);
                return;
            }
            advanceTo(Math.max(next, now));
        }
    }

    /** A node fires at the first advance at or after its deadline, and not before. */
    @Test
    void firesAtDeadlineNotBefore() {
        Node node = add(5 * TICK + 300);
        advanceTo(5 * TICK + 299);
        assertTrue(fired.isEmpty(), "fired early");
        advanceTo(5 * TICK + 300);
        assertEquals(List.of(node), fired);
        assertEquals(0, wheel.size());
    }

    /** Nodes at every level fire exactly at their deadline when time advances deadline by deadline. */
    @ParameterizedTest
    @ValueSource(longs = {1, 15, 16, 17, 255, 256, 257, 4095, 4096, 4097, 65_537, 1_048_577, 16_777_217})
    void firesExactlyAtEveryLevel(long ticks) {
        long deadline = ticks * TICK + 123;
        Node node = add(deadline);
        runUntil(deadline);
        assertEquals(List.of(node), fired);
        assertEquals(deadline, node.firedAt, "fired at the deadline itself, not at a tick boundary");
    }

    /** Many random deadlines all fire exactly once, in time order, never early, whatever the step size. */
    @Test
    void randomDeadlinesFireOnceNeverEarly() {
        Random random = new Random(42);
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            nodes.add(add((long) (random.nextDouble() * 5_000 * TICK)));
        }
        long end = 5_001 * TICK;
        while (now < end) {
            advanceTo(now + (long) (random.nextDouble() * 3 * TICK));
        }
        assertEquals(nodes.size(), fired.size());
        assertEquals(nodes.size(), new HashSet<>(fired).size(), "a node fired twice");
        for (Node node : nodes) {
            assertTrue(node.firedAt >= node.deadline, "early");
            assertTrue(node.firedAt < node.deadline + 3 * TICK, "late beyond the step");
        }
        assertEquals(0, wheel.size());
    }

    /**
     * A busy level-1 slot is moved into the upcoming ring in batches during the rotation before its own, as long as
     * the owner comes back when the bound says; so the advance that begins the slot's rotation has nothing left to
     * move (no burst of thousands of nodes at one tick), and every node still fires once, never early.
     */
    @Test
    void aBusyLevel1SlotIsMovedDownInBatchesAheadOfItsRotation() {
        TimingWheel<Node> w = new TimingWheel<>(TICK, 512);
        int n = 5 * TimingWheel.MOVE_DOWN_BATCH + 7;
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Node node = new Node((1024 + i % 512) * TICK + i); // due in rotation 2: level-1 slot 2 from tick 0
            nodes.add(node);
            w.add(node);
        }
        assertTrue(w.nextDeadlineBound() <= 512 * TICK, "asked back by the start of rotation 1, when moving begins");
        List<Node> firedHere = new ArrayList<>();
        long t = 0;
        int steps = 0;
        while (t < 1024 * TICK) {
            int before = w.moveDownBacklog();
            long time = t;
            w.advance(t, node -> {
                node.firedAt = time;
                firedHere.add(node);
            });
            int after = w.moveDownBacklog();
            assertTrue(before - after <= TimingWheel.MOVE_DOWN_BATCH, "moved " + (before - after) + " in one advance");
            if (after > 0 && t >= 512 * TICK) {
                assertTrue(w.nextDeadlineBound() <= t + TICK, "asked back next tick while nodes wait to be moved");
            }
            t = Math.min(1024 * TICK, Math.max(t + 1, w.nextDeadlineBound()));
            steps++;
        }
        assertEquals(0, w.moveDownBacklog(), "all moved before their rotation began");
        assertTrue(firedHere.isEmpty());
        assertTrue(steps < 20, "the owner came back a few times, not every tick of two rotations: " + steps);
        for (long time = 1024 * TICK; w.size() > 0; time += TICK) {
            long at = time;
            w.advance(time, node -> {
                node.firedAt = at;
                firedHere.add(node);
            });
        }
        assertEquals(n, firedHere.size());
        assertEquals(n, new HashSet<>(firedHere).size(), "a node fired twice");
        for (Node node : nodes) {
            assertTrue(node.firedAt >= node.deadline, "early");
            assertTrue(node.firedAt < node.deadline + TICK, "late");
        }
    }

    /**
     * A busy slot of level 2 is moved down in batches too, during the level-1 rotation before its own and then level by
     * level, while the owner comes back when the bound says: no advance moves more than one batch (a plain cascade
     * moved all of them at the slot's start), and every node still fires once, never early, at the first advance at
     * or after its deadline.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void aBusySlotAboveLevel1IsMovedDownInBatchesToo(int level) {
        TimingWheel<Node> w = new TimingWheel<>(TICK, SLOTS);
        long slotTicks = 1L << (4 * level); // SLOTS = 2^4
        int n = 5 * TimingWheel.MOVE_DOWN_BATCH + 7;
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            // due in slot 2 of the level, spread over it: from tick 0 that is beyond the upcoming ring of level - 1
            Node node = new Node((2 * slotTicks + (i * 7919L) % slotTicks) * TICK + i % 1000);
            nodes.add(node);
            w.add(node);
        }
        assertTrue(w.nextDeadlineBound() <= slotTicks * TICK, "asked back by the start of slot 1, when moving begins");
        List<Node> firedHere = new ArrayList<>();
        long t = 0;
        long maxMoves = 0;
        while (w.size() > 0) {
            long before = w.moves();
            long time = t;
            w.advance(t, node -> {
                node.firedAt = time;
                firedHere.add(node);
            });
            maxMoves = Math.max(maxMoves, w.moves() - before);
            for (Node node : nodes) {
                if (node.isInWheel()) {
                    assertTrue(node.deadline > t, "a node due at " + node.deadline + " still waits at " + t);
                }
            }
            t = Math.max(t + 1, w.nextDeadlineBound());
        }
        assertTrue(maxMoves <= TimingWheel.MOVE_DOWN_BATCH, "moved " + maxMoves + " nodes in one advance");
        assertTrue(w.moves() >= (long) n * level, "each node moved down once per level: " + w.moves());
        assertEquals(n, firedHere.size());
        assertEquals(n, new HashSet<>(firedHere).size(), "a node fired twice");
        for (Node node : nodes) {
            assertTrue(node.firedAt >= node.deadline, "early");
        }
    }

    /**
     * The wheel against a model, with few slots so that every level and every boundary is crossed: nodes added at any
     * time with deadlines from the past to far levels, some removed, time advanced by steps from none to huge jumps.
     * After every advance no node due by then is left, none fired early or twice, and the bound is never later than
     * the earliest deadline left.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 4, 16})
    void agreesWithAModelAcrossEveryLevelAndJump(int slots) {
        TimingWheel<Node> w = new TimingWheel<>(TICK, slots);
        Random random = new Random(slots * 31L + 7);
        Set<Node> pending = new HashSet<>();
        Set<Node> firedHere = new HashSet<>();
        long t = 0;
        for (int round = 0; round < 4_000; round++) {
            int adds = random.nextInt(20);
            for (int i = 0; i < adds; i++) {
                long span = 1L << random.nextInt(30); // ticks: from one to about 12 days at 1 ms
                long deadline = Math.max(0, t + (long) ((random.nextDouble() - 0.05) * span * TICK));
                Node node = new Node(deadline);
                w.add(node);
                pending.add(node);
                assertTrue(w.nextDeadlineBound() <= deadline, "bound later than a new deadline");
            }
            if (!pending.isEmpty() && random.nextInt(4) == 0) {
                Node drop = pending.iterator().next();
                assertTrue(w.remove(drop));
                pending.remove(drop);
            }
            int step = random.nextInt(10);
            long next = w.nextDeadlineBound();
            if (step < 4 && next != TimingWheel.NONE) {
                t = Math.max(t, next); // as the master does
            } else if (step < 8) {
                t += random.nextInt(3) * TICK + random.nextInt(1000);
            } else {
                t += (1L << random.nextInt(28)) * TICK; // a jump over rotations of several levels
            }
            long now = t;
            w.advance(now, node -> {
                assertTrue(node.deadline <= now, "early");
                assertTrue(firedHere.add(node), "fired twice");
                assertTrue(pending.remove(node), "fired but not pending");
            });
            long earliest = TimingWheel.NONE;
            for (Node node : pending) {
                assertTrue(node.deadline > now, "due at " + node.deadline + ", still in the wheel at " + now);
                earliest = Math.min(earliest, node.deadline);
            }
            assertEquals(pending.size(), w.size());
            assertTrue(w.nextDeadlineBound() <= earliest, "bound later than the earliest deadline");
        }
        List<Node> rest = new ArrayList<>();
        w.removeIf(node -> true, rest::add);
        assertEquals(pending, new HashSet<>(rest));
    }

    /**
     * Nodes leave in deadline order, and nodes with equal deadlines in the order they were added, whatever levels they
     * were added to and however time advances: random deadlines with many ties, nodes added at every moment (some
     * already due), random removals and steps. Each advance's batch is in (deadline, order of adding) order, and
     * nothing already in the wheel at an advance and due by then is left for a later one.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 4, 16, 512})
    void nodesLeaveInDeadlineOrderTiesInTheOrderOfAdding(int slots) {
        TimingWheel<Node> w = new TimingWheel<>(TICK, slots);
        Random random = new Random(slots * 17L + 3);
        List<Node> pending = new ArrayList<>();
        long t = 0;
        long sequence = 0;
        long[] fired = {0};
        for (int round = 0; round < 3_000; round++) {
            int adds = random.nextInt(30);
            for (int i = 0; i < adds; i++) {
                // few distinct deadlines, so that equal ones are added at different times and land on different levels
                long span = 1L << random.nextInt(20);
                long deadline = Math.max(0, t + (random.nextInt(8) - 1) * span * TICK / 4);
                Node node = new Node(deadline);
                node.order = sequence++;
                w.add(node);
                pending.add(node);
            }
            if (!pending.isEmpty() && random.nextInt(3) == 0) {
                Node drop = pending.remove(random.nextInt(pending.size()));
                assertTrue(w.remove(drop));
            }
            long next = w.nextDeadlineBound();
            int step = random.nextInt(10);
            if (step < 5 && next != TimingWheel.NONE) {
                t = Math.max(t, next);
            } else if (step < 9) {
                t += random.nextInt(3) * TICK + random.nextInt(1000);
            } else {
                t += (1L << random.nextInt(22)) * TICK;
            }
            long now = t;
            List<Node> batch = new ArrayList<>();
            w.advance(now, batch::add);
            for (int i = 1; i < batch.size(); i++) {
                Node a = batch.get(i - 1);
                Node b = batch.get(i);
                assertTrue(a.deadline < b.deadline || (a.deadline == b.deadline && a.order < b.order),
                        "out of order: " + a + " before " + b);
            }
            pending.removeAll(batch);
            fired[0] += batch.size();
            for (Node node : pending) {
                assertTrue(node.deadline > now, "due at " + node.deadline + ", still in the wheel at " + now);
            }
        }
        assertTrue(fired[0] > 10_000, "the test fired too few nodes to mean anything: " + fired[0]);
    }

    /**
     * A node added with the deadline of one that waits to be moved down from the slot above (more than a batch of
     * them wait there) is placed directly into the upcoming ring, yet leaves after it: moved nodes go in front of
     * those placed directly, in their own order.
     */
    @Test
    void aTieAddedWhileItsTwinWaitsToBeMovedDownLeavesAfterIt() {
        TimingWheel<Node> w = new TimingWheel<>(TICK, 512);
        long deadline = 1024 * TICK + 77; // rotation 2 of level 0: in level-1 slot 2 from tick 0
        List<Node> early = new ArrayList<>();
        for (int i = 0; i < 3 * TimingWheel.MOVE_DOWN_BATCH; i++) {
            Node node = new Node(deadline);
            node.order = i;
            early.add(node);
            w.add(node);
        }
        w.advance(512 * TICK, node -> { }); // rotation 1 begins: moving level-1 slot 2 down starts, one batch
        assertTrue(w.moveDownBacklog() > 0, "some of the early nodes still wait above");
        Node late = new Node(deadline);
        late.order = early.size();
        w.add(late); // placed directly into the upcoming ring of level 0
        List<Node> fired = new ArrayList<>();
        for (long time = 512 * TICK; w.size() > 0; time = Math.max(time + 1, w.nextDeadlineBound())) {
            w.advance(time, fired::add);
        }
        assertEquals(early.size() + 1, fired.size());
        for (int i = 0; i < fired.size(); i++) {
            assertEquals(i, fired.get(i).order, "the node added " + fired.get(i).order + "th left " + i + "th");
        }
    }

    /**
     * Before a slot is sorted, the walk that fetches its nodes from both ends reaches each node once, whether the slot
     * holds an odd or an even number of them, and leaves the list as it was: the sort's order is the same.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4, 5, 101, 1000})
    void theFetchAheadOfASortReachesEachNodeOnce(int count) {
        TimingWheel<Node> w = new TimingWheel<>(TICK, 512);
        Random random = new Random(count);
        List<Node> added = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Node node = new Node(5 * TICK + random.nextInt(1_000) * 100L); // all in the slot of tick 5, shuffled
            node.order = i;
            added.add(node);
            w.add(node);
        }
        List<Node> fired = new ArrayList<>();
        w.advance(6 * TICK, fired::add);
        assertEquals(count, w.fetched());
        List<Node> expected = new ArrayList<>(added);
        expected.sort(Comparator.comparingLong((Node n) -> n.deadline).thenComparingLong(n -> n.order));
        assertEquals(expected, fired);
    }

    /**
     * A slot sorted when it becomes current costs its nodes once (one pass when they came in order, a pass per
     * doubling of runs when not), and an advance after that costs what it expires, however many nodes wait in the
     * current and the next slot: 200 advances inside one tick next to 100 000 waiting nodes visit a few thousand
     * nodes in all, not 200 times 100 000.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void advancingNextToABigSlotCostsWhatExpires(boolean inOrder) {
        int big = 100_000;
        TimingWheel<Node> w = new TimingWheel<>(TICK, 512);
        Random random = new Random(5);
        for (int i = 0; i < big; i++) {
            long offset = inOrder ? 500_000 + i * 4L : 500_000 + random.nextInt(400_000);
            w.add(new Node(400 * TICK + offset)); // late in tick 400
        }
        for (int i = 0; i < 200; i++) {
            w.add(new Node(399 * TICK + i * 4_000L)); // due one by one during tick 399
            w.add(new Node(400 * TICK + i * 2_000L)); // and early in tick 400, before the big crowd
        }
        w.advance(398 * TICK, node -> { });
        long before = w.visits();
        int[] fired = {0};
        for (long time = 399 * TICK; time < 400 * TICK + 400_000; time = Math.max(time + 1, w.nextDeadlineBound())) {
            w.advance(time, node -> fired[0]++);
        }
        long visits = w.visits() - before;
        assertEquals(400, fired[0]);
        long sortCost = inOrder ? big : (long) big * (1 + 64 - Long.numberOfLeadingZeros(big));
        assertTrue(visits <= sortCost + 2_000, "visited " + visits + " nodes for 400 expired ones");
        List<Node> rest = new ArrayList<>();
        for (long time = 400 * TICK + 400_000; w.size() > 0; time = Math.max(time + 1, w.nextDeadlineBound())) {
            w.advance(time, rest::add);
        }
        assertEquals(big, rest.size());
        for (int i = 1; i < rest.size(); i++) {
            assertTrue(rest.get(i - 1).deadline <= rest.get(i).deadline, "out of order at " + i);
        }
    }

    /** Nodes added to the current slot after it was sorted go in order: before, among and after the others. */
    @Test
    void nodesAddedToTheSortedCurrentSlotGoInOrder() {
        TimingWheel<Node> w = new TimingWheel<>(TICK, 16);
        long base = 5 * TICK;
        for (long offset : new long[] {500, 100, 900, 300}) {
            w.add(new Node(base + offset));
        }
        List<Node> fired = new ArrayList<>();
        w.advance(base + 50, fired::add); // tick 5 is current and sorted; nothing due yet
        assertTrue(fired.isEmpty());
        for (long offset : new long[] {950, 20, 300, 600, 100}) {
            w.add(new Node(base + offset)); // after all, before all, ties, in between
        }
        w.add(new Node(2 * TICK)); // long overdue: goes to the current slot too
        w.advance(base + 1_000, fired::add);
        List<Long> deadlines = new ArrayList<>();
        for (Node node : fired) {
            deadlines.add(node.deadline - base);
        }
        assertEquals(List.of(-3 * TICK, 20L, 100L, 100L, 300L, 300L, 500L, 600L, 900L, 950L), deadlines);
    }

    /** The next-deadline bound is never later than the earliest deadline and is exact for level-0 nodes. */
    @Test
    void nextDeadlineBound() {
        assertEquals(TimingWheel.NONE, wheel.nextDeadlineBound());
        add(300 * TICK + 7);
        long bound = wheel.nextDeadlineBound();
        assertTrue(bound <= 300 * TICK + 7);
        add(3 * TICK + 5);
        assertEquals(3 * TICK + 5, wheel.nextDeadlineBound());
        advanceTo(3 * TICK + 5);
        assertEquals(1, fired.size());
        long after = wheel.nextDeadlineBound();
        assertTrue(after > now && after <= 300 * TICK + 7, "bound " + after);
        runUntil(300 * TICK + 7);
        assertEquals(2, fired.size());
        assertEquals(TimingWheel.NONE, wheel.nextDeadlineBound());
    }

    /** A deadline already in the past is due at the next advance. */
    @Test
    void pastDeadline() {
        advanceTo(100 * TICK);
        Node node = add(3 * TICK);
        assertTrue(wheel.nextDeadlineBound() <= now);
        advanceTo(now);
        assertEquals(List.of(node), fired);
    }

    /** The latest deadline is accepted, never fires within any practical time, and can be removed. */
    @Test
    void maxDeadline() {
        Node node = add(TimingWheel.MAX_DEADLINE);
        Node soon = add(2 * TICK);
        advanceTo(10 * TICK);
        advanceTo(TimeUnit_DAYS * 365);
        assertEquals(List.of(soon), fired);
        assertEquals(1, wheel.size());
        assertTrue(wheel.remove(node));
        assertEquals(0, wheel.size());
        assertEquals(TimingWheel.NONE, wheel.nextDeadlineBound());
    }

    private static final long TimeUnit_DAYS = 86_400_000_000_000L;

    /** The levels cover the whole horizon at every tick, so no deadline needs an overflow list. */
    @Test
    void levelsCoverHorizon() {
        assertEquals(5, new TimingWheel<Node>(TICK, 512).levels()); // 43 bits of ticks, 9 bits per level
        assertEquals(31, new TimingWheel<Node>(1, 4).levels()); // 62 bits of ticks, 2 bits per level
    }

    /** A removed node never fires, and removing twice is harmless. */
    @Test
    void removal() {
        Node keep = add(20 * TICK);
        Node drop = add(20 * TICK);
        Node far = add(5_000 * TICK);
        assertTrue(wheel.remove(drop));
        assertFalse(wheel.remove(drop));
        assertTrue(wheel.remove(far));
        runUntil(6_000 * TICK);
        assertEquals(List.of(keep), fired);
        assertFalse(drop.isInWheel());
    }

    /** Jumping far ahead in one advance cascades everything that became due, and nothing else. */
    @Test
    void bigJump() {
        Node a = add(1_000 * TICK);
        Node b = add(70_000 * TICK);
        Node c = add(70_000 * TICK + 1);
        advanceTo(70_000 * TICK);
        assertEquals(Set.of(a, b), new HashSet<>(fired));
        advanceTo(70_000 * TICK + 1);
        assertEquals(3, fired.size());
        assertTrue(fired.contains(c));
    }

    /** removeIf takes exactly the matching nodes out. */
    @Test
    void removeIf() {
        List<Node> nodes = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            nodes.add(add(i * 37 * TICK));
        }
        List<Node> removed = new ArrayList<>();
        wheel.removeIf(n -> (n.deadline / TICK) % 2 == 0, removed::add);
        assertEquals(50, removed.size());
        assertEquals(50, wheel.size());
        runUntil(4_000 * TICK);
        assertEquals(50, fired.size());
        assertTrue(fired.stream().allMatch(n -> (n.deadline / TICK) % 2 == 1));
    }

    /** Bad construction arguments are refused. */
    @Test
    void badArguments() {
        assertThrows(IllegalArgumentException.class, () -> new TimingWheel<Node>(0, 16));
        assertThrows(IllegalArgumentException.class, () -> new TimingWheel<Node>(TICK, 12));
        assertThrows(IllegalArgumentException.class, () -> new TimingWheel<Node>(TICK, 1));
    }
}
