package io.timingwheel;

import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A hierarchical hashed timing wheel: adding and removing a node is O(1); advancing the wheel costs what expires or
 * moves down a level, never what is merely pending, plus, once per level-0 slot, sorting what it holds when its tick
 * comes (linear when its nodes came in order, as a stream of equal delays does; {@code CrowdedSlotProbe} measures it).
 * Nodes leave in deadline order, and nodes with equal deadlines in the order they were added. NOT thread safe: one
 * thread (the master) owns it.
 *
 * <p>It has no clock of its own: the owner passes the current time to {@link #advance}, so tests drive it with a
 * fake time. Times are nanoseconds since an origin chosen by the owner, never negative.
 *
 * <h2>Design</h2>
 * The classic hierarchy of Varghese and Lauck ("Hashed and Hierarchical Timing Wheels", 1987), arranged as in the
 * Linux kernel's timer wheel, with the moving down from one level to the next spread over time:
 * <ol>
 *   <li>Time is cut into ticks. Level 0 has {@code 2^bits} slots of one tick: a rotation. A slot of level
 *       {@code L} spans {@code 2^(L*bits)} ticks, a whole rotation of level {@code L-1}. There are as many levels as
 *       it takes to cover {@link #MAX_DEADLINE}, so no deadline ever overflows into a catch-all list.</li>
 *   <li>Each level but the top has two rings: the current rotation and the <em>upcoming</em> one (the next). A node
 *       due at tick {@code t} goes to the lowest level whose current or upcoming rotation contains {@code t}. O(1):
 *       at most one step per level, and the level is rarely above 2.</li>
 *   <li>During a rotation of level {@code L}, the slot of level {@code L+1} that holds the next rotation (its
 *       <em>next-rotation slot</em>) is moved down into the upcoming ring of level {@code L}, a batch per
 *       {@link #advance} ({@value #MOVE_DOWN_BATCH} nodes in all levels), lowest level first, since its rotation
 *       ends first; the owner is told to come back each tick while some are left ({@link #nextDeadlineBound()}).
 *       When the rotation ends, the upcoming ring becomes the current one at once. So a busy slot never makes its
 *       nodes wait for tens of thousands of others to be moved when their time comes, which a plain cascade at the
 *       slot's start does: a stall of milliseconds for a level-1 slot, of tens of milliseconds for a level-2 slot
 *       holding a million leases (one every 4.4 minutes at a 1 ms tick). A rest is moved at the rotation's end only
 *       if the owner did not come back often enough.</li>
 *   <li>Each slot is a circular doubly-linked list around a sentinel, so a node removes itself without knowing its
 *       slot. A bitmap per ring marks slots that may be non-empty; it lets {@link #advance} jump over empty ticks
 *       and lets the owner learn the next due time without walking the wheel. Bits are cleared lazily. Each
 *       sentinel also keeps a lower bound of its nodes' deadlines, set as nodes are linked.</li>
 *   <li>Order. Within a slot, nodes stand in the order they were added: a node placed directly is appended, and the
 *       nodes moved down from the slot above, which were all added before any node placed directly into a slot of
 *       the upcoming ring, are put in front of those, in their own order. When a level-0 slot becomes the current
 *       tick, it is sorted by deadline with a stable merge sort of its list (linear when it is in order already, as
 *       a stream of equal delays is); a node added to the current slot after that is inserted in order. So what
 *       leaves the wheel leaves in deadline order, ties in the order of adding, and each advance takes only the due
 *       head of the current slot, however many nodes wait behind it.</li>
 *   <li>Ticks only group nodes: a node fires when {@code now >= deadline}, never at the start of its tick, so the
 *       wheel is never early and its lateness is not bounded below by the tick. {@link #nextDeadlineBound()} is the
 *       current slot's head, or the lower bound of the next occupied level-0 slot, or the time of the next step of
 *       moving nodes down, whichever comes first.</li>
 * </ol>
 */
final class TimingWheel<T extends TimerNode> {
    /** No deadline: the wheel is empty, or nothing is due before the end of time. */
    static final long NONE = Long.MAX_VALUE;

    /** The latest deadline the wheel accepts (about 146 years); later ones are clamped by the owner. */
    static final long MAX_DEADLINE = Long.MAX_VALUE >>> 1;

    /**
     * Nodes moved down per {@link #advance}: about 30 microseconds of work, and, at one advance per tick, half a
     * million nodes per rotation of 512 ticks before the end of a rotation has any left to move.
     */
    static final int MOVE_DOWN_BATCH = 1024;

    private final long tickNanos;
    private final int bits;
    private final int mask;
    private final int levels;

    /**
     * Per level, the ring of its current rotation; made when it first receives a node ({@code rings[0]} always). A
     * level-{@code L} slot is indexed by {@code tick >>> (L * bits)}.
     */
    private final Ring[] rings;

    /** Per level but the top, the ring of its next rotation; made when first needed ({@code upcoming[0]} always). */
    private final Ring[] upcoming;

    /** The tick being processed: slots of earlier ticks are done; this tick's level-0 slot may hold future nodes. */
    private long currentTick;

    /** Whether the level-0 slot of {@link #currentTick} is sorted by deadline (see the class comment, point 5). */
    private boolean currentSorted;

    /** A lower bound on every deadline in the wheel, or {@link #NONE} when the wheel is empty. */
    private long earliestBound = NONE;

    private int size;

    /** Nodes moved down a level so far (for tests: how much work one advance did). */
    private long moves;

    /** Node visits so far, by expiring, moving, sorting and ordered inserting (for tests: what an advance costs). */
    private long visits;

    /** Nodes fetched ahead of sorting, by {@link #fetchFromBothEnds} (for tests: that it reaches every node once). */
    private long fetched;

    /** The tail of the list {@link #merge} returned last; an out-parameter, so that merging allocates nothing. */
    private TimerNode mergedTail;

    /**
     * @param tickNanos the duration of one tick, positive
     * @param slotsPerLevel slots per level, a power of two of at least 2
     */
    TimingWheel(long tickNanos, int slotsPerLevel) {
        if (tickNanos <= 0) {
            throw new IllegalArgumentException("tickNanos must be positive: " + tickNanos);
        }
        if (slotsPerLevel < 2 || Integer.bitCount(slotsPerLevel) != 1) {
            throw new IllegalArgumentException("slotsPerLevel must be a power of two >= 2: " + slotsPerLevel);
        }
        this.tickNanos = tickNanos;
        this.bits = Integer.numberOfTrailingZeros(slotsPerLevel);
        this.mask = slotsPerLevel - 1;
        int tickBits = Math.max(1, 64 - Long.numberOfLeadingZeros(MAX_DEADLINE / tickNanos));
        this.levels = (tickBits + bits - 1) / bits;
        this.rings = new Ring[levels];
        this.upcoming = new Ring[levels];
        this.rings[0] = new Ring(slotsPerLevel);
        this.upcoming[0] = new Ring(slotsPerLevel);
    }

    /** @return the number of nodes in the wheel */
    int size() {
        return size;
    }

    /** @return the number of levels (for tests) */
    int levels() {
        return levels;
    }

    /** @return the number of nodes moved down a level so far (for tests) */
    long moves() {
        return moves;
    }

    /** @return the node visits so far: expiring, moving down, sorting, ordered inserting (for tests) */
    long visits() {
        return visits;
    }

    /** @return the nodes fetched ahead of sorting so far (for tests) */
    long fetched() {
        return fetched;
    }

    /** @return the nodes still to be moved into an upcoming ring, at every level (for tests; O(n)) */
    int moveDownBacklog() {
        int n = 0;
        for (int level = 0; level < levels - 1; level++) {
            Sentinel source = nextRotationSlot(level);
            if (source != null) {
                for (TimerNode node = source.next; node != source; node = node.next) {
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * A time at or before which the earliest node in the wheel is due, or at which nodes must be moved down, or
     * {@link #NONE} if the wheel is empty. It is exact when the earliest node is in the current level-0 slot and
     * {@link #advance} ran since; otherwise it may be early (never late), which costs the owner a wake-up, never a
     * late node.
     */
    long nextDeadlineBound() {
        return size == 0 ? NONE : earliestBound;
    }

    /**
     * Adds a node. A node whose deadline has already passed goes to the current slot and leaves at the next
     * {@link #advance}, in deadline order with the others there.
     *
     * @param node a node that is in no wheel, with {@code 0 <= deadline <= MAX_DEADLINE}
     */
    void add(T node) {
        long attention = place(node);
        size++;
        if (attention < earliestBound) {
            earliestBound = attention;
        }
    }

    /** Removes a node if it is in this wheel. @return true if it was removed */
    boolean remove(T node) {
        if (!node.isInWheel()) {
            return false;
        }
        unlink(node);
        if (--size == 0) {
            earliestBound = NONE;
        }
        return true;
    }

    /**
     * Advances the wheel to {@code now} and passes every node with {@code deadline <= now} to {@code expired}, in
     * deadline order (ties in the order they were added); then moves the next batch of nodes down for the next
     * rotations. The consumer must not modify the wheel.
     */
    void advance(long now, Consumer<? super T> expired) {
        long target = now / tickNanos;
        for (;;) {
            expireDue(now, expired);
            long cur = currentTick;
            if (cur >= target) {
                break;
            }
            long event = nextEvent(cur);
            // With nothing to do in (cur, target], a jump to the target: every ring whose rotation the jump leaves is
            // empty, and so is its upcoming ring (either would have been an event), so no ring changes places; the
            // target's slot is empty too, so the next look finds nothing due and ends the loop.
            long next = Math.min(event, target);
            if (((next & mask) | (next ^ event)) == 0) { // a rotation begins at the event
                beginRotations(next);
            }
            moveTo(next);
        }
        moveDownBatch(MOVE_DOWN_BATCH);
        recomputeBound();
    }

    /** Removes every node that matches and passes it to {@code removed}. O(slots + size). */
    void removeIf(Predicate<? super T> filter, Consumer<? super T> removed) {
        forEachRing(ring -> {
            for (Sentinel sentinel : ring.slots) {
                TimerNode node = sentinel.next;
                while (node != sentinel) {
                    TimerNode following = node.next;
                    T element = element(node);
                    if (filter.test(element)) {
                        remove(element);
                        removed.accept(element);
                    }
                    node = following;
                }
            }
        });
    }

    /** Passes every node to {@code action}, which must not modify the wheel. O(slots + size). */
    void forEach(Consumer<? super T> action) {
        forEachRing(ring -> {
            for (Sentinel sentinel : ring.slots) {
                for (TimerNode node = sentinel.next; node != sentinel; node = node.next) {
                    action.accept(element(node));
                }
            }
        });
    }

    private void forEachRing(Consumer<Ring> action) {
        for (int level = 0; level < levels; level++) {
            if (upcoming[level] != null) {
                action.accept(upcoming[level]);
            }
            if (rings[level] != null) {
                action.accept(rings[level]);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    /** Every node but the sentinels came in through {@link #add}, as a T. */
    @SuppressWarnings("unchecked")
    private T element(TimerNode node) {
        return (T) node;
    }

    /** Makes {@code tick} the current tick; its level-0 slot is sorted when it is first expired from. */
    private void moveTo(long tick) {
        if (tick != currentTick) {
            currentTick = tick;
            currentSorted = false;
        }
    }

    /** @return the rotation of {@code level} that contains {@code tick} (0 for every tick at the top level) */
    private long rotation(long tick, int level) {
        int shift = (level + 1) * bits;
        return shift >= 64 ? 0 : tick >>> shift;
    }

    /** @return the first tick of the rotation of {@code level} after the one that contains {@code tick} */
    private long nextRotationStart(long tick, int level) {
        int shift = (level + 1) * bits;
        return shift >= 64 ? NONE : ((tick >>> shift) + 1) << shift;
    }

    /**
     * Links a node where it belongs now. @return when the wheel must look at it next: its deadline if it is in level
     * 0, else the time its slot starts to be moved down
     */
    private long place(TimerNode node) {
        long tick = node.deadline / tickNanos;
        long cur = currentTick;
        if (tick <= cur) {
            linkCurrent(node);
            return node.deadline;
        }
        for (int level = 0; ; level++) {
            long mine = rotation(tick, level);
            long current = rotation(cur, level);
            if (mine == current || mine == current + 1) {
                Ring ring = mine == current ? ring(level) : upcoming(level);
                long slot = tick >>> (level * bits);
                ring.linkLast(node, slot);
                return level == 0 ? node.deadline : moveDownTick(level, slot) * tickNanos;
            }
        }
    }

    /**
     * Links a node due by the current tick into the current slot: in deadline order (after its equals) once the slot
     * is sorted, else at its end, for the sort to place it. O(1) for a node due after or before all the others, the
     * usual cases; otherwise a walk from the end.
     */
    private void linkCurrent(TimerNode node) {
        Ring ring = rings[0];
        long cur = currentTick;
        Sentinel slot = ring.slot(cur);
        TimerNode last = slot.prev;
        if (!currentSorted || last == slot || last.deadline <= node.deadline) {
            ring.linkLast(node, cur);
        } else if (node.deadline < slot.next.deadline) {
            ring.linkFirst(node, cur);
        } else {
            TimerNode before = last;
            while (before.deadline > node.deadline) {
                before = before.prev;
                visits++;
            }
            ring.linkAfter(before, node, cur);
        }
    }

    /**
     * @return the tick at which the nodes of slot {@code slot} (absolute index) of level {@code level >= 1} start to be
     *     moved down: the start of the slot before it, whose rotation of the level below comes just before the slot's
     */
    private long moveDownTick(int level, long slot) {
        return (slot - 1) << (level * bits);
    }

    private Ring ring(int level) {
        Ring ring = rings[level];
        if (ring == null) {
            ring = rings[level] = new Ring(mask + 1);
        }
        return ring;
    }

    private Ring upcoming(int level) {
        Ring ring = upcoming[level];
        if (ring == null) {
            ring = upcoming[level] = new Ring(mask + 1);
        }
        return ring;
    }

    private static void unlink(TimerNode node) {
        TimerNode before = node.prev;
        TimerNode after = node.next;
        before.next = after;
        after.prev = before;
        node.next = null;
        node.prev = null;
    }

    /** Passes the due head of the current slot on, in order; sorts the slot first if it has just become current. */
    private void expireDue(long now, Consumer<? super T> expired) {
        Sentinel slot = rings[0].slot(currentTick);
        if (!currentSorted) {
            sort(slot);
            currentSorted = true;
        }
        for (TimerNode node = slot.next; node != slot && node.deadline <= now; node = slot.next) {
            unlink(node);
            size--;
            visits++;
            expired.accept(element(node));
        }
    }

    /**
     * Sorts a slot by deadline, keeping nodes with equal deadlines in their order (stable): a natural merge sort of
     * the list, whose passes merge neighbouring ascending runs, so a slot already in order costs one pass and no slot
     * more than {@code log2(runs) + 1}.
     */
    private void sort(Sentinel slot) {
        TimerNode head = slot.next;
        if (head == slot || head.next == slot) {
            return;
        }
        fetched += fetchFromBothEnds(slot);
        slot.prev.next = null; // a null-terminated list while it is sorted
        for (;;) {
            TimerNode sortedHead = null;
            TimerNode sortedTail = null;
            int merges = 0;
            for (TimerNode rest = head; rest != null; merges++) {
                TimerNode a = rest;
                TimerNode aEnd = runEnd(a);
                TimerNode b = aEnd.next;
                aEnd.next = null;
                TimerNode bEnd = null;
                rest = null;
                if (b != null) {
                    bEnd = runEnd(b);
                    rest = bEnd.next;
                    bEnd.next = null;
                }
                TimerNode merged = merge(a, aEnd, b, bEnd);
                if (sortedTail == null) {
                    sortedHead = merged;
                } else {
                    sortedTail.next = merged;
                }
                sortedTail = mergedTail;
            }
            head = sortedHead;
            if (merges == 1) {
                break;
            }
        }
        TimerNode before = slot;
        for (TimerNode node = head; node != null; node = node.next) {
            node.prev = before;
            before = node;
        }
        before.next = slot;
        slot.prev = before;
        slot.next = head;
        slot.earliest = head.deadline;
    }

    /**
     * Walks a slot of two nodes or more from both ends at once, so that the sort that follows finds its nodes in the
     * cache. The nodes of a slot were allocated at random moments of a burst, scattered over the heap, and a walk along
     * the list waits for each node in turn before it knows where the next one is; two walks wait for two at a time.
     * Sorting a millisecond's hundred timers of a burst of 200 000 took the master 31 to 36 µs (medians of three JVMs),
     * nearly all of it waiting for memory, and 20 to 23 µs after such a walk: the time a master's turn shares the
     * cores with a worker waking for a timer, which then wakes late ({@code OnTimeHarness}'s burst). Never changes the
     * list. @return how many nodes it reached
     */
    private static int fetchFromBothEnds(Sentinel slot) {
        TimerNode front = slot.next;
        TimerNode back = slot.prev;
        int reached = 2;
        while (front != back && front.next != back) { // not met: neither the same node nor neighbours
            front = front.next;
            back = back.prev;
            reached += 2;
        }
        return front == back ? reached - 1 : reached; // an odd count: the middle node was reached from both ends
    }

    /** @return the last node of the ascending run (by deadline, equal ones included) that starts at {@code first} */
    private TimerNode runEnd(TimerNode first) {
        TimerNode node = first;
        visits++;
        while (node.next != null && node.next.deadline >= node.deadline) {
            node = node.next;
            visits++;
        }
        return node;
    }

    /**
     * Merges two sorted null-terminated lists, the first one's nodes ahead of equal ones of the second, and sets
     * {@link #mergedTail}. @return the head of the merged list
     */
    private TimerNode merge(TimerNode a, TimerNode aEnd, TimerNode b, TimerNode bEnd) {
        if (b == null) {
            mergedTail = aEnd;
            return a;
        }
        TimerNode head = null;
        TimerNode tail = null;
        while (a != null && b != null) {
            TimerNode next;
            if (b.deadline < a.deadline) {
                next = b;
                b = b.next;
            } else {
                next = a;
                a = a.next;
            }
            if (tail == null) {
                head = next;
            } else {
                tail.next = next;
            }
            tail = next;
        }
        tail.next = a != null ? a : b;
        mergedTail = a != null ? aEnd : bEnd;
        return head;
    }

    /**
     * The slot of level {@code level + 1} that holds the next rotation of {@code level}, to be moved into that level's
     * upcoming ring during the current rotation: in the current ring of the level above, or in its upcoming ring when
     * the next rotation of {@code level} begins a new rotation of the level above; null if that ring does not exist.
     */
    private Sentinel nextRotationSlot(int level) {
        long rotation = rotation(currentTick, level);
        Ring above = (rotation & mask) != mask ? rings[level + 1] : upcoming[level + 1];
        return above == null ? null : above.slot(rotation + 1);
    }

    /** Moves up to {@code batch} nodes from the next-rotation slots into the upcoming rings, lowest level first. */
    private void moveDownBatch(int batch) {
        for (int level = 0; level < levels - 1 && batch > 0; level++) {
            batch -= moveDown(level, batch);
        }
    }

    /**
     * Moves up to {@code batch} nodes of the next-rotation slot of {@code level} to its upcoming ring. They are taken
     * from the end of the slot and put in front of their new slots, so they keep their order, ahead of the nodes
     * placed there directly, which were all added after them. @return how many
     */
    private int moveDown(int level, int batch) {
        Sentinel source = nextRotationSlot(level);
        if (source == null || source.next == source) {
            return 0;
        }
        Ring target = upcoming(level);
        int shift = level * bits;
        int moved = 0;
        for (TimerNode node = source.prev; node != source && moved < batch; node = source.prev) {
            unlink(node);
            target.linkFirst(node, (node.deadline / tickNanos) >>> shift);
            moved++;
        }
        moves += moved;
        visits += moved;
        return moved;
    }

    /**
     * Begins the rotations that start at {@code tick} (the current tick is still before it), of level 0
     * and of every level above whose rotation also starts here: moves what is left of their next-rotation slots down,
     * highest level first, so that what one level moves reaches the slot of the level below; then makes each
     * upcoming ring current (the old current ring is empty: its slots are all done).
     */
    private void beginRotations(long tick) {
        // Every tick from the current one up to here is empty (else it would have been an event): stand on the last
        // one, so that the next-rotation slots are those of the rotations that end here.
        moveTo(tick - 1);
        int top = 0;
        while (top + 1 < levels - 1 && nextRotationStart(currentTick, top + 1) == tick) {
            top++;
        }
        for (int level = top; level >= 0; level--) {
            moveDown(level, Integer.MAX_VALUE); // a rest only if the owner did not come back often enough
        }
        for (int level = 0; level <= top; level++) {
            Ring done = rings[level];
            rings[level] = upcoming[level];
            upcoming[level] = done;
        }
        moveTo(tick);
    }

    /**
     * The next tick after {@code cur} at which {@link #advance} has work: a level-0 slot of this rotation that may
     * hold nodes; the start of a rotation whose upcoming ring or next-rotation slot holds nodes (they change places or
     * must be moved); or the start of the slot during which a slot above starts to be moved down. NONE if none.
     */
    private long nextEvent(long cur) {
        long event = nextLevel0Tick(cur);
        for (int level = 0; level < levels; level++) {
            if (level < levels - 1 && (occupied(upcoming[level]) || occupied(nextRotationSlot(level)))) {
                event = Math.min(event, nextRotationStart(cur, level));
            }
            if (level > 0) {
                event = Math.min(event, nextMoveDownStart(cur, level));
            }
        }
        return event;
    }

    /**
     * The first tick after {@code cur} at which a slot of level {@code level >= 1} beyond the next-rotation slot
     * starts to be moved down; or NONE. (The next-rotation slot itself is being moved already.)
     */
    private long nextMoveDownStart(long cur, int level) {
        int shift = level * bits;
        long current = cur >>> shift; // the absolute index of the current slot of this level
        long firstTick = NONE;
        Ring ring = rings[level];
        if (ring != null) {
            int index = ring.firstOccupied(((int) current & mask) + 2);
            if (index >= 0) {
                firstTick = moveDownTick(level, (current & ~(long) mask) + index);
            }
        }
        Ring next = upcoming[level];
        if (firstTick == NONE && next != null) {
            int index = next.firstOccupied(((current & mask) == mask) ? 1 : 0);
            if (index >= 0) {
                firstTick = moveDownTick(level, (current & ~(long) mask) + mask + 1 + index);
            }
        }
        return firstTick;
    }

    private static boolean occupied(Ring ring) {
        return ring != null && ring.firstOccupied(0) >= 0;
    }

    private static boolean occupied(Sentinel slot) {
        return slot != null && slot.next != slot;
    }

    /** The first tick after {@code cur}, in the current rotation, whose level-0 slot may hold nodes; or NONE. */
    private long nextLevel0Tick(long cur) {
        int index = rings[0].firstOccupied(((int) cur & mask) + 1);
        return index < 0 ? NONE : (cur & ~(long) mask) + index;
    }

    /**
     * The bound from the heads and lower bounds of at most three slots and the moving-down schedule: O(levels), never
     * a walk through a slot's nodes.
     */
    private void recomputeBound() {
        if (size == 0) {
            earliestBound = NONE;
            return;
        }
        long cur = currentTick;
        Sentinel current = rings[0].slot(cur);
        long bound = current.next == current ? NONE : currentSorted ? current.next.deadline : current.earliest;
        int nextIndex = rings[0].firstOccupied(((int) cur & mask) + 1);
        if (nextIndex >= 0) {
            bound = Math.min(bound, rings[0].slots[nextIndex].earliest);
        }
        int upcomingIndex = upcoming[0].firstOccupied(0);
        if (upcomingIndex >= 0) {
            bound = Math.min(bound, upcoming[0].slots[upcomingIndex].earliest);
        }
        for (int level = 1; level < levels; level++) {
            if (occupied(nextRotationSlot(level - 1))) {
                bound = Math.min(bound, (cur + 1) * tickNanos); // come back next tick for the next batch
            }
            long later = nextMoveDownStart(cur, level);
            if (later != NONE) {
                bound = Math.min(bound, later * tickNanos);
            }
        }
        earliestBound = bound;
    }

    /** The slots of one level (or of the upcoming rotation), with a bitmap of those that may hold nodes. */
    private static final class Ring {
        final Sentinel[] slots;
        final long[] occupied;
        final int mask;

        Ring(int size) {
            slots = new Sentinel[size];
            for (int i = 0; i < size; i++) {
                slots[i] = new Sentinel();
            }
            occupied = new long[Math.max(1, size >>> 6)];
            mask = size - 1;
        }

        /** @return the slot of the given tick (or index of the level's own ticks) */
        Sentinel slot(long tick) {
            return slots[(int) tick & mask];
        }

        void linkLast(TimerNode node, long tick) {
            Sentinel sentinel = slots[(int) tick & mask];
            linkAfter(sentinel.prev, node, tick);
        }

        void linkFirst(TimerNode node, long tick) {
            linkAfter(slots[(int) tick & mask], node, tick);
        }

        /** Links {@code node} after {@code before}, a node of (or the sentinel of) the slot of {@code tick}. */
        void linkAfter(TimerNode before, TimerNode node, long tick) {
            int index = (int) tick & mask;
            Sentinel sentinel = slots[index];
            if (sentinel.next == sentinel || node.deadline < sentinel.earliest) {
                sentinel.earliest = node.deadline; // an empty slot forgets the bound of the nodes it held before
            }
            TimerNode after = before.next;
            node.prev = before;
            node.next = after;
            before.next = node;
            after.prev = node;
            occupied[index >>> 6] |= 1L << index;
        }

        /** The first index at or after {@code from} whose slot holds nodes, or -1; clears stale bits. */
        int firstOccupied(int from) {
            int index = from;
            while (index <= mask) {
                int word = index >>> 6;
                long bitsLeft = occupied[word] & (-1L << index);
                if (bitsLeft == 0) {
                    index = (word + 1) << 6;
                    continue;
                }
                index = (word << 6) + Long.numberOfTrailingZeros(bitsLeft);
                if (slots[index].next != slots[index]) {
                    return index;
                }
                occupied[word] &= ~(1L << index);
                index++;
            }
            return -1;
        }
    }

    /**
     * The head of a slot's circular list; it never leaves the list. {@code earliest} is a lower bound of the
     * deadlines of the slot's nodes while it holds any: set when the first node is linked, lowered by later ones,
     * never raised when a node leaves (so it may be early, which costs a wake-up, never a late node).
     */
    private static final class Sentinel extends TimerNode {
        long earliest = NONE;

        Sentinel() {
            next = this;
            prev = this;
        }
    }
}
