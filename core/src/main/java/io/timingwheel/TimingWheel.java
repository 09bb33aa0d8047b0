package io.timingwheel;

import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A hierarchical hashed timing wheel: adding and removing a node is O(1), and advancing the wheel costs what
 * expires or cascades, never what is merely pending, and never a burst of cascading work at one tick. NOT thread
 * safe: one thread (the master) owns it.
 *
 * <p>It has no clock of its own: the owner passes the current time to {@link #advance}, so tests drive it with a
 * fake time. Times are nanoseconds since an origin chosen by the owner, never negative.
 *
 * <h2>Design</h2>
 * The classic hierarchy of Varghese and Lauck ("Hashed and Hierarchical Timing Wheels", 1987), arranged as in the
 * Linux kernel's timer wheel, with the cascade into level 0 spread over time:
 * <ol>
 *   <li>Time is cut into ticks. Level 0 has {@code 2^bits} slots of one tick: a rotation. A slot of level
 *       {@code L} spans {@code 2^(L*bits)} ticks, a whole rotation of level {@code L-1}. There are as many levels as
 *       it takes to cover {@link #MAX_DEADLINE}, so no deadline ever overflows into a catch-all list.</li>
 *   <li>A node due at tick {@code t} goes to level 0 if {@code t} is in the current rotation, to the
 *       <em>upcoming</em> ring (a second level 0, for the next rotation) if it is in the next one, and otherwise to
 *       the lowest level {@code L} whose current rotation contains {@code t}: with {@code x = t ^ currentTick} that is
 *       {@code (63 - numberOfLeadingZeros(x)) / bits}. All O(1).</li>
 *   <li>During a rotation, the level-1 slot of the next rotation is moved into the upcoming ring a batch per
 *       {@link #advance} ({@value #STAGING_BATCH} nodes), and the owner is told to come back each tick while some
 *       are left ({@link #nextDeadlineBound()}). At the end of the rotation the upcoming ring becomes level 0 at
 *       once. So the tasks of a busy level-1 slot never wait for tens of thousands of others to be moved when their
 *       time comes, which a plain cascade at the slot's start makes them do: a stall of milliseconds. Only slots of
 *       level 2 and above cascade at their start, as in the classic design (once per 2^(2*bits) ticks).</li>
 *   <li>Each slot is a circular doubly-linked list around a sentinel, so a node removes itself without knowing its
 *       slot. A bitmap per ring marks slots that may be non-empty; it lets {@link #advance} jump over empty ticks
 *       and lets the owner learn the next due time without walking the wheel. Bits are cleared lazily.</li>
 *   <li>Ticks only group nodes: a node fires when {@code now >= deadline}, never at the start of its tick, so the
 *       wheel is never early and its lateness is not bounded below by the tick. {@link #nextDeadlineBound()}
 *       reports the exact earliest deadline when it lies in level 0 or the upcoming ring, and otherwise the time of
 *       the next step of moving nodes down.</li>
 * </ol>
 */
final class TimingWheel<T extends TimerNode> {
    /** No deadline: the wheel is empty, or nothing is due before the end of time. */
    static final long NONE = Long.MAX_VALUE;

    /** The latest deadline the wheel accepts (about 146 years); later ones are clamped by the owner. */
    static final long MAX_DEADLINE = Long.MAX_VALUE >>> 1;

    /**
     * Nodes moved into the upcoming ring per {@link #advance}: about 30 microseconds of work, and, at one advance per
     * tick, half a million nodes per rotation of 512 ticks before the end of a rotation has any left to move.
     */
    static final int STAGING_BATCH = 1024;

    /** Receives the nodes that {@link #advance} and {@link #removeIf} take out of the wheel. */
    @FunctionalInterface
    interface NodeSink<T> {
        void accept(T node);
    }

    private final long tickNanos;
    private final int bits;
    private final int mask;
    private final int levels;

    /** Per level, its ring of slots; a level's ring is made when it first receives a node. {@code rings[0]} always. */
    private final Ring[] rings;

    /** The level-0 slots of the next rotation. */
    private Ring upcoming;

    /** The tick being processed: slots of earlier ticks are done; this tick's level-0 slot may hold future nodes. */
    private long currentTick;

    /** A lower bound on every deadline in the wheel, or {@link #NONE} when the wheel is empty. */
    private long earliestBound = NONE;

    private int size;

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
        this.rings[0] = new Ring(slotsPerLevel);
        this.upcoming = new Ring(slotsPerLevel);
    }

    /** @return the number of nodes in the wheel */
    int size() {
        return size;
    }

    /** @return the number of levels (for tests) */
    int levels() {
        return levels;
    }

    /** @return the nodes of the next rotation still to be moved into the upcoming ring (for tests; O(n)) */
    int stagingBacklog() {
        Sentinel source = stagingSource();
        int n = 0;
        if (source != null) {
            for (TimerNode node = source.next; node != source; node = node.next) {
                n++;
            }
        }
        return n;
    }

    /**
     * A time at or before which the earliest node in the wheel is due, or at which nodes must be moved down, or
     * {@link #NONE} if the wheel is empty. It is exact when the earliest node is in level 0 or the upcoming ring and
     * {@link #advance} ran since it was computed; otherwise it may be early (never late), which costs the owner a
     * wake-up, never a late task.
     */
    long nextDeadlineBound() {
        return size == 0 ? NONE : earliestBound;
    }

    /**
     * Adds a node. A node whose deadline has already passed goes to the current slot and leaves at the next
     * {@link #advance}.
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
     * Advances the wheel to {@code now} and passes every node with {@code deadline <= now} to {@code expired}, in no
     * particular order; then moves the next batch of nodes down for the next rotation. The sink must not modify the
     * wheel.
     */
    void advance(long now, NodeSink<? super T> expired) {
        long target = now / tickNanos;
        long cur = currentTick;
        for (;;) {
            expireDue(rings[0].slot(cur), now, expired);
            if (cur >= target) {
                break;
            }
            long event = nextEvent(cur);
            if (event > target) {
                // Nothing to do in (cur, target]: jump. (Had level 0 or the upcoming ring held a node in the way, or a
                // slot above had to move down, that would have been an event.)
                cur = target;
                break;
            }
            if ((event & mask) == 0) {
                beginRotation(event);
            }
            cur = event;
            currentTick = cur;
        }
        if ((cur >>> bits) != (currentTick >>> bits)) {
            beginRotation(cur & ~(long) mask); // the jump crossed rotations: both rings are empty, swap them all the same
        }
        currentTick = cur;
        stage(STAGING_BATCH);
        recomputeBound();
    }

    /** Removes every node that matches and passes it to {@code removed}. O(slots + size). */
    void removeIf(Predicate<? super T> filter, NodeSink<? super T> removed) {
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
        action.accept(upcoming);
        for (Ring ring : rings) {
            if (ring != null) {
                action.accept(ring);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    /** Every node but the sentinels came in through {@link #add}, as a T. */
    @SuppressWarnings("unchecked")
    private T element(TimerNode node) {
        return (T) node;
    }

    /**
     * Links a node where it belongs now. @return when the wheel must look at it next: its deadline if it is in level
     * 0 or the upcoming ring, else the time its slot is to be moved down (staged, or cascaded)
     */
    private long place(TimerNode node) {
        long tick = node.deadline / tickNanos;
        long cur = currentTick;
        long rotation = cur >>> bits;
        if (tick <= cur) {
            rings[0].link(node, cur);
        } else if ((tick >>> bits) == rotation) {
            rings[0].link(node, tick);
        } else if ((tick >>> bits) == rotation + 1) {
            upcoming.link(node, tick);
        } else {
            int level = (63 - Long.numberOfLeadingZeros(tick ^ cur)) / bits;
            int shift = level * bits;
            ring(level).link(node, tick >>> shift);
            long slotStart = (tick >>> shift) << shift;
            // a level-1 slot is moved down during the rotation before its own; a higher one cascades at its start
            return (level == 1 ? slotStart - (1L << bits) : slotStart) * tickNanos;
        }
        return node.deadline;
    }

    private Ring ring(int level) {
        Ring ring = rings[level];
        if (ring == null) {
            ring = rings[level] = new Ring(mask + 1);
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

    private void expireDue(Sentinel sentinel, long now, NodeSink<? super T> expired) {
        TimerNode node = sentinel.next;
        while (node != sentinel) {
            TimerNode following = node.next;
            if (node.deadline <= now) {
                unlink(node);
                size--;
                expired.accept(element(node));
            }
            node = following;
        }
    }

    /**
     * The level-1 slot that holds (some of) the next rotation's nodes, to be moved into the upcoming ring during this
     * one; null when the next rotation starts a new rotation of level 1, whose nodes then sit in a higher slot.
     */
    private Sentinel stagingSource() {
        long rotation = currentTick >>> bits;
        Ring level1 = rings.length > 1 ? rings[1] : null;
        if (level1 == null || (rotation & mask) == mask) {
            return null;
        }
        return level1.slot(rotation + 1);
    }

    /** Moves up to {@code batch} nodes of the next rotation from level 1 into the upcoming ring. */
    private void stage(int batch) {
        Sentinel source = stagingSource();
        if (source == null) {
            return;
        }
        for (TimerNode node = source.next; node != source && batch > 0; node = source.next, batch--) {
            unlink(node);
            upcoming.link(node, node.deadline / tickNanos);
        }
    }

    /**
     * Begins the rotation that starts at {@code tick} (the current tick is still in the one before): moves what is
     * left of the next rotation's nodes into the upcoming ring, makes that ring level 0 (the old level 0 is empty:
     * its ticks are all done) and cascades the slots of level 2 and above that start here.
     */
    private void beginRotation(long tick) {
        stage(Integer.MAX_VALUE); // a rest only if the owner did not come back often enough to move it in batches
        Ring done = rings[0];
        rings[0] = upcoming;
        upcoming = done;
        currentTick = tick;
        for (int level = levels - 1; level > 1; level--) {
            if ((tick & ((1L << (level * bits)) - 1)) != 0 || rings[level] == null) {
                continue;
            }
            Sentinel sentinel = rings[level].slot(tick >>> (level * bits));
            TimerNode node = sentinel.next;
            while (node != sentinel) {
                TimerNode following = node.next;
                unlink(node);
                place(node);
                node = following;
            }
        }
    }

    /**
     * The next tick after {@code cur} at which {@link #advance} has work: a level-0 slot of this rotation that may
     * hold nodes, or the start of a rotation that the upcoming ring, a level-1 slot or a cascade needs; or NONE.
     */
    private long nextEvent(long cur) {
        long event = nextLevel0Tick(cur);
        long nextRotation = ((cur >>> bits) + 1) << bits;
        if (upcoming.firstOccupied(0) >= 0 || stagingSource() != null && stagingSource().next != stagingSource()) {
            return Math.min(event, nextRotation);
        }
        return Math.min(event, Math.min(nextStagingStart(cur), nextCascadeTick(cur)));
    }

    /** The first tick after {@code cur}, in the current rotation, whose level-0 slot may hold nodes; or NONE. */
    private long nextLevel0Tick(long cur) {
        int index = rings[0].firstOccupied(((int) cur & mask) + 1);
        return index < 0 ? NONE : (cur & ~(long) mask) + index;
    }

    /**
     * The start of the rotation during which the next non-empty level-1 slot after the staging source is to be moved
     * down (the rotation before the slot's own); or NONE.
     */
    private long nextStagingStart(long cur) {
        Ring level1 = rings.length > 1 ? rings[1] : null;
        if (level1 == null) {
            return NONE;
        }
        int index = level1.firstOccupied(((int) (cur >>> bits) & mask) + 2);
        if (index < 0) {
            return NONE;
        }
        long level2Start = bits * 2 >= 64 ? 0 : (cur >>> (bits * 2)) << (bits * 2);
        return level2Start + ((long) (index - 1) << bits);
    }

    /** The first tick after {@code cur} at which a non-empty slot of level 2 or above must cascade; or NONE. */
    private long nextCascadeTick(long cur) {
        for (int level = 2; level < levels; level++) {
            if (rings[level] == null) {
                continue;
            }
            int shift = level * bits;
            int index = rings[level].firstOccupied(((int) (cur >>> shift) & mask) + 1);
            if (index >= 0) {
                // The lowest non-empty level cascades first: a higher level's next slot starts after this one ends.
                int parentShift = shift + bits;
                long parentStart = parentShift >= 64 ? 0 : (cur >>> parentShift) << parentShift;
                return parentStart + ((long) index << shift);
            }
        }
        return NONE;
    }

    private void recomputeBound() {
        if (size == 0) {
            earliestBound = NONE;
            return;
        }
        long cur = currentTick;
        long bound = earliestIn(rings[0].slot(cur));
        long level0 = nextLevel0Tick(cur);
        if (level0 != NONE) {
            bound = Math.min(bound, earliestIn(rings[0].slot(level0)));
        }
        int upcomingIndex = upcoming.firstOccupied(0);
        if (upcomingIndex >= 0) {
            bound = Math.min(bound, earliestIn(upcoming.slots[upcomingIndex]));
        }
        Sentinel source = stagingSource();
        if (source != null && source.next != source) {
            bound = Math.min(bound, (cur + 1) * tickNanos); // come back next tick for the next batch
        }
        long later = Math.min(nextStagingStart(cur), nextCascadeTick(cur));
        if (later != NONE) {
            bound = Math.min(bound, later * tickNanos);
        }
        earliestBound = bound;
    }

    private static long earliestIn(Sentinel sentinel) {
        long earliest = NONE;
        for (TimerNode node = sentinel.next; node != sentinel; node = node.next) {
            earliest = Math.min(earliest, node.deadline);
        }
        return earliest;
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

        void link(TimerNode node, long tick) {
            int index = (int) tick & mask;
            Sentinel sentinel = slots[index];
            TimerNode last = sentinel.prev;
            node.next = sentinel;
            node.prev = last;
            last.next = node;
            sentinel.prev = node;
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

    /** The head of a slot's circular list; it never leaves the list. */
    private static final class Sentinel extends TimerNode {
        Sentinel() {
            next = this;
            prev = this;
        }
    }
}
