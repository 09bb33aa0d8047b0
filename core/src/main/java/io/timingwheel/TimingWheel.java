package io.timingwheel;

import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A hierarchical hashed timing wheel: adding and removing a node is O(1), and advancing the wheel costs what
 * expires or cascades, never what is merely pending. NOT thread safe: one thread (the master) owns it.
 *
 * <p>It has no clock of its own: the owner passes the current time to {@link #advance}, so tests drive it with a
 * fake time. Times are nanoseconds since an origin chosen by the owner, never negative.
 *
 * <h2>Design</h2>
 * The classic hierarchy of Varghese and Lauck ("Hashed and Hierarchical Timing Wheels", 1987), arranged as in the
 * Linux kernel's timer wheel:
 * <ol>
 *   <li>Time is cut into ticks. Level 0 has {@code 2^bits} slots of one tick; a slot of level {@code L} spans
 *       {@code 2^(L*bits)} ticks, a whole rotation of level {@code L-1}. There are as many levels as it takes to
 *       cover {@link #MAX_DEADLINE}, so no deadline ever overflows into a catch-all list.</li>
 *   <li>A node due at tick {@code t} goes to the lowest level whose current rotation contains {@code t}, that is,
 *       the lowest {@code L} for which {@code t} and the current tick agree on all digits above level {@code L}.
 *       With {@code x = t ^ currentTick} that level is {@code (63 - numberOfLeadingZeros(x)) / bits}: O(1).</li>
 *   <li>When the current tick reaches the start of a slot of level {@code L > 0}, that slot's nodes are re-added
 *       and fall to lower levels ("cascade"). A node cascades at most once per level.</li>
 *   <li>Each slot is a circular doubly-linked list around a sentinel, so a node removes itself without knowing its
 *       slot. A bitmap per level marks slots that may be non-empty; it lets {@link #advance} jump over empty ticks
 *       and lets the owner learn the next due time without walking the wheel. Bits are cleared lazily.</li>
 *   <li>Ticks only group nodes: a node fires when {@code now >= deadline}, never at the start of its tick, so the
 *       wheel is never early and its lateness is not bounded below by the tick. {@link #nextDeadlineBound()}
 *       reports the exact earliest deadline when it lies in level 0, and the start of the next cascade otherwise.</li>
 * </ol>
 */
final class TimingWheel<T extends TimerNode> {
    /** No deadline: the wheel is empty, or nothing is due before the end of time. */
    static final long NONE = Long.MAX_VALUE;

    /** The latest deadline the wheel accepts (about 146 years); later ones are clamped by the owner. */
    static final long MAX_DEADLINE = Long.MAX_VALUE >>> 1;

    /** Receives the nodes that {@link #advance} and {@link #removeIf} take out of the wheel. */
    @FunctionalInterface
    interface NodeSink<T> {
        void accept(T node);
    }

    private final long tickNanos;
    private final int bits;
    private final int mask;
    private final int levels;

    /** Slot sentinels per level; a level's array is allocated when it first receives a node. */
    private final Sentinel[][] slots;

    /** Per level, one bit per slot that may hold nodes (set on add, cleared lazily when found empty). */
    private final long[][] occupied;

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
        this.slots = new Sentinel[levels][];
        this.occupied = new long[levels][];
    }

    /** @return the number of nodes in the wheel */
    int size() {
        return size;
    }

    /** @return the number of levels (for tests) */
    int levels() {
        return levels;
    }

    /**
     * A time at or before which the earliest node in the wheel is due, or {@link #NONE} if the wheel is empty. It is
     * exact when the earliest node is in level 0 and {@link #advance} ran since it was computed; otherwise it may be
     * early (never late), which costs the owner a spurious wake-up, never a late task.
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
        place(node);
        size++;
        if (node.deadline < earliestBound) {
            earliestBound = node.deadline;
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
     * particular order. The sink must not modify the wheel.
     */
    void advance(long now, NodeSink<? super T> expired) {
        long target = now / tickNanos;
        long cur = currentTick;
        for (;;) {
            expireDue(level0Slot(cur), now, expired);
            if (cur >= target) {
                break;
            }
            long event = Math.min(nextLevel0Tick(cur), nextCascadeTick(cur));
            if (event > target) {
                cur = target; // nothing to do in (cur, target]: jump
                break;
            }
            cur = event;
            currentTick = cur;
            cascade(cur);
        }
        currentTick = cur;
        recomputeBound();
    }

    /** Removes every node that matches and passes it to {@code removed}. O(slots + size). */
    void removeIf(Predicate<? super T> filter, NodeSink<? super T> removed) {
        for (int level = 0; level < levels; level++) {
            Sentinel[] row = slots[level];
            if (row == null) {
                continue;
            }
            for (Sentinel sentinel : row) {
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
        }
    }

    /** Passes every node to {@code action}, which must not modify the wheel. O(slots + size). */
    void forEach(Consumer<? super T> action) {
        for (int level = 0; level < levels; level++) {
            Sentinel[] row = slots[level];
            if (row == null) {
                continue;
            }
            for (Sentinel sentinel : row) {
                for (TimerNode node = sentinel.next; node != sentinel; node = node.next) {
                    action.accept(element(node));
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    /** Every node but the sentinels came in through {@link #add}, as a T. */
    @SuppressWarnings("unchecked")
    private T element(TimerNode node) {
        return (T) node;
    }

    private void place(TimerNode node) {
        long tick = node.deadline / tickNanos;
        long cur = currentTick;
        int level;
        int index;
        if (tick <= cur) {
            level = 0;
            index = (int) cur & mask;
        } else {
            level = (63 - Long.numberOfLeadingZeros(tick ^ cur)) / bits;
            index = (int) (tick >>> (level * bits)) & mask;
        }
        Sentinel sentinel = sentinel(level, index);
        TimerNode last = sentinel.prev;
        node.next = sentinel;
        node.prev = last;
        last.next = node;
        sentinel.prev = node;
        occupied[level][index >>> 6] |= 1L << index;
    }

    private static void unlink(TimerNode node) {
        TimerNode before = node.prev;
        TimerNode after = node.next;
        before.next = after;
        after.prev = before;
        node.next = null;
        node.prev = null;
    }

    private Sentinel sentinel(int level, int index) {
        Sentinel[] row = slots[level];
        if (row == null) {
            row = new Sentinel[mask + 1];
            for (int i = 0; i < row.length; i++) {
                row[i] = new Sentinel();
            }
            slots[level] = row;
            occupied[level] = new long[Math.max(1, (mask + 1) >>> 6)];
        }
        return row[index];
    }

    private Sentinel level0Slot(long tick) {
        return sentinel(0, (int) tick & mask);
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

    /** Moves the nodes of every higher-level slot that starts at {@code tick} down the hierarchy, top first. */
    private void cascade(long tick) {
        for (int level = levels - 1; level > 0; level--) {
            if ((tick & ((1L << (level * bits)) - 1)) != 0 || slots[level] == null) {
                continue;
            }
            int index = (int) (tick >>> (level * bits)) & mask;
            Sentinel sentinel = slots[level][index];
            TimerNode node = sentinel.next;
            while (node != sentinel) {
                TimerNode following = node.next;
                unlink(node);
                place(node);
                node = following;
            }
        }
    }

    /** The first tick after {@code cur}, in the current level-0 rotation, whose slot may hold nodes; or NONE. */
    private long nextLevel0Tick(long cur) {
        int index = nextOccupied(0, ((int) cur & mask) + 1);
        return index < 0 ? NONE : (cur & ~(long) mask) + index;
    }

    /** The first tick after {@code cur} at which a non-empty higher-level slot must cascade; or NONE. */
    private long nextCascadeTick(long cur) {
        for (int level = 1; level < levels; level++) {
            if (slots[level] == null) {
                continue;
            }
            int shift = level * bits;
            int index = nextOccupied(level, ((int) (cur >>> shift) & mask) + 1);
            if (index >= 0) {
                // The lowest non-empty level cascades first: a higher level's next slot starts after this one ends.
                int parentShift = shift + bits;
                long parentStart = parentShift >= 64 ? 0 : (cur >>> parentShift) << parentShift;
                return parentStart + ((long) index << shift);
            }
        }
        return NONE;
    }

    /** The first index at or after {@code from} in {@code level} whose slot holds nodes, or -1; clears stale bits. */
    private int nextOccupied(int level, int from) {
        long[] words = occupied[level];
        if (words == null) {
            return -1;
        }
        Sentinel[] row = slots[level];
        int index = from;
        while (index <= mask) {
            int word = index >>> 6;
            long bitsLeft = words[word] & (-1L << index);
            if (bitsLeft == 0) {
                index = (word + 1) << 6;
                continue;
            }
            index = (word << 6) + Long.numberOfTrailingZeros(bitsLeft);
            if (row[index].next != row[index]) {
                return index;
            }
            words[word] &= ~(1L << index);
            index++;
        }
        return -1;
    }

    private void recomputeBound() {
        if (size == 0) {
            earliestBound = NONE;
            return;
        }
        long cur = currentTick;
        long bound = earliestIn(level0Slot(cur));
        long level0 = nextLevel0Tick(cur);
        if (level0 != NONE) {
            bound = Math.min(bound, earliestIn(level0Slot(level0)));
        }
        long cascade = nextCascadeTick(cur);
        if (cascade != NONE) {
            bound = Math.min(bound, cascade * tickNanos);
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

    /** The head of a slot's circular list; it never leaves the list. */
    private static final class Sentinel extends TimerNode {
        Sentinel() {
            next = this;
            prev = this;
        }
    }
}
