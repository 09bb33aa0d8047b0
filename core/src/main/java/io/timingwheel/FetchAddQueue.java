package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An unbounded, lock-free multi-producer single-consumer queue of references, kept in a linked list of array chunks.
 * Any thread may {@link #offer}; only the owner thread may {@link #poll} and ask {@link #isEmpty}.
 *
 * <p>A producer claims a slot with one atomic fetch-and-add (XADD) on its chunk's counter and then writes the slot
 * (hence the name): the idea of JCTools' {@code MpscUnboundedXaddArrayQueue}, rather than the compare-and-set loop of
 * its {@code MpscChunkedArrayQueue}, built more simply: the counter is the chunk's own, not the queue's. So a claim
 * never fails for contention, as a CAS does; it only misses when it lands past the end of a full chunk, and then the
 * producer claims again in the next chunk (once per {@value #CHUNK_SIZE} offers, or a few times when many producers
 * arrive at the end together). The next chunk is there before the last slot is written (a spare, appended a chunk
 * ahead), so the consumer finds it as it takes the last node. Between the claim and the write the consumer sees a gap:
 * {@link #poll} returns null although the queue is not empty, and {@link #isEmpty} still says false, so the owner knows
 * to retry rather than sleep.
 *
 * <p>Why an array and not an intrusive linked list (which allocates nothing): the consumer of a linked queue must load
 * each node to find the next, so under a backlog its cache misses come one after the other; here it reads the
 * references from consecutive slots, sixteen to a cache line, and the misses on the nodes themselves can overlap. A
 * producer never writes into the previous node, whose line the consumer may hold. And a task may be queued while
 * it sits in the wheel (the queue never touches the wheel's links), which lets a cancellation travel as the task
 * itself instead of as a message object. A chunk costs a four-byte slot per offer, a thousandth of an allocation.
 *
 * <p>The producers' tail and the consumer's head live on cache lines of their own (padding in the superclasses, as
 * JCTools does).
 */
final class FetchAddQueue<E> extends FetchAddQueueHead {
    /** Slots per chunk. */
    static final int CHUNK_SIZE = 1024;

    private static final VarHandle TAIL;
    private static final VarHandle CLAIMED;
    private static final VarHandle NEXT;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            TAIL = lookup.findVarHandle(FetchAddQueueTail.class, "tail", Chunk.class);
            CLAIMED = lookup.findVarHandle(Chunk.class, "claimed", int.class);
            NEXT = lookup.findVarHandle(Chunk.class, "next", Chunk.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    FetchAddQueue() {
        super(new Chunk(0));
        head.next = new Chunk(CHUNK_SIZE); // the spare: see offer
    }

    /**
     * Appends a node (any thread). Lock-free; one atomic add, plus a chunk every {@value #CHUNK_SIZE} offers. A spare
     * chunk waits ahead of the one the producers fill: the producer that claims a chunk's last slot moves the tail on
     * to it before it writes the slot, so that a consumer that has taken the last slot always finds the next chunk
     * (see {@link #poll}), and after the write appends the next spare, so that the consumer, which may be waiting for
     * that slot, never waits for an allocation. If the spare is not there yet (its producer was slow), the producer of
     * the last slot appends it first.
     */
    void offer(E node) {
        Chunk chunk = tail;
        for (;;) {
            int index = (int) CLAIMED.getAndAdd(chunk, 1);
            if (index < LAST_SLOT) {
                SLOT.setRelease(chunk.slots, index, node);
                return;
            }
            if (index == LAST_SLOT) {
                Chunk next = nextChunk(chunk, true);
                SLOT.setRelease(chunk.slots, index, node); // after the append: it publishes the next chunk too
                appendSpare(next);
                return;
            }
            chunk = nextChunk(chunk, false);
        }
    }

    /** Appends the spare after {@code chunk}, the producers' new one, unless another producer has already. */
    private static void appendSpare(Chunk chunk) {
        if (chunk.next == null) {
            appendAfter(chunk);
        }
    }

    /** @return the chunk after {@code chunk}: a fresh one this call appends, or one another producer appended first */
    private static Chunk appendAfter(Chunk chunk) {
        Chunk fresh = new Chunk(chunk.first + CHUNK_SIZE);
        Chunk first = (Chunk) NEXT.compareAndExchange(chunk, (Chunk) null, fresh);
        return first != null ? first : fresh;
    }

    /** The index of a chunk's last slot, whose producer moves the producers on to the next chunk. */
    private static final int LAST_SLOT = CHUNK_SIZE - 1;

    /**
     * Spins a producer whose claim fell past a chunk's end makes, waiting for the next chunk to be appended, before it
     * allocates one itself: about a microsecond, the time an allocation of a chunk takes.
     */
    private static final int APPEND_SPINS = 256;

    /**
     * The chunk after a full one (the spare, as a rule); also moves the tail on. If there is none yet, the producer
     * whose claim took the last slot appends it; the others, whose claims fell past the end, wait for that a moment,
     * so that a crowd of producers arriving at a full chunk does not allocate a chunk each to throw all but one away.
     * If the appender is slow (preempted), they append themselves: lock-free.
     */
    private Chunk nextChunk(Chunk full, boolean appender) {
        Chunk next = full.next;
        for (int spins = appender ? 0 : APPEND_SPINS; next == null && spins > 0; spins--) {
            Thread.onSpinWait();
            next = full.next;
        }
        if (next == null) {
            next = appendAfter(full);
        }
        TAIL.compareAndSet(this, full, next);
        return next;
    }

    /**
     * Removes and returns the oldest node, or null if there is none or the oldest is still being written. The consumer
     * moves to the next chunk as it takes a chunk's last node, which was written after the next chunk was appended: so
     * it never stands at the end of a chunk, and never meets the end of the last one, where a poll had to return null
     * by a test of its own. That test's side, met only where a burst of offers (timers due soon) was taken as fast as
     * it came, was compiled as a trap, and its first meeting sent the compiled worker's wait, into which the poll is
     * inlined, back to the interpreter as a burst began (the on-time harness's burst, compile logs, JDK 17).
     */
    @SuppressWarnings("unchecked") // only offer() writes slots, and it takes an E
    E poll() {
        int index = headIndex;
        Object[] slots = headSlots; // not head.slots: the producers' claims write the chunk's line
        E node = (E) SLOT.getAcquire(slots, index);
        if (node == null) {
            return null;
        }
        slots[index] = null; // the queue must not keep what it delivered alive
        if (index == LAST_SLOT) {
            moveToNextChunk();
        } else {
            headIndex = index + 1;
        }
        return node;
    }

    /**
     * @return how many offers have claimed a place so far, as one look at the producers' side sees it: every offer
     *     whose claim came before that look (they are sequentially consistent) has a place below it. Any thread.
     */
    long claimedCount() {
        Chunk chunk = tail;
        // The chunk that the tail names now is the last one any earlier claim went to: a producer moves the tail on
        // before it claims in the next chunk. Claims past a chunk's end are retried in the next, so they hold no place.
        return chunk.first + Math.min(chunk.claimed, CHUNK_SIZE);
    }

    /** @return how many nodes the consumer has taken so far; consumer only */
    long polledCount() {
        return head.first + headIndex;
    }

    /**
     * @return true if no node is queued or being written; consumer only. A volatile read of the chunk's claim count,
     *     which the producers' atomic adds order against what the consumer wrote before.
     */
    boolean isEmpty() {
        return unreadCount() == 0;
    }

    /**
     * @return how many nodes are queued or being written, 0 if none; consumer only. Claims past the end of the
     *     consumer's chunk count too: each is a node on its way into the next chunk.
     */
    int unreadCount() {
        return head.claimed - headIndex;
    }

    /**
     * Moves the consumer on from a chunk whose last node it took to the next chunk, which the producer of that node
     * appended before it wrote it (see {@link #offer}); consumer only.
     */
    private void moveToNextChunk() {
        Chunk next = head.next;
        head = next; // the consumed chunk is garbage now
        headSlots = next.slots;
        headIndex = 0;
    }

    /** A run of slots; {@code claimed} counts the claims made on it, which may exceed its size. */
    static final class Chunk {
        final Object[] slots = new Object[CHUNK_SIZE];
        /** The place of slot 0 among all offers to the queue. */
        final long first;
        volatile int claimed;
        volatile Chunk next;

        Chunk(long first) {
            this.first = first;
        }
    }
}

/** Padding before the tail: keeps it off the line of the object header and of whatever precedes it in memory. */
abstract class FetchAddQueuePad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/** The producers' side. */
abstract class FetchAddQueueTail extends FetchAddQueuePad0 {
    /** The chunk producers claim slots in; it may lag behind the newest chunk for a moment. */
    volatile FetchAddQueue.Chunk tail;
}

/** Padding between the producers' tail and the consumer's head. */
abstract class FetchAddQueuePad1 extends FetchAddQueueTail {
    long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31, p32, p33, p34, p35;
}

/** The consumer's side. */
abstract class FetchAddQueueHead extends FetchAddQueuePad1 {
    /** The chunk the consumer reads; consumer only. */
    FetchAddQueue.Chunk head;

    /** The slots of {@code head}, read without touching the chunk, whose claim count the producers write; consumer only. */
    Object[] headSlots;

    /** The next slot to read in {@code head}; consumer only. */
    int headIndex;

    long p40, p41, p42, p43, p44, p45, p46, p47, p48, p49, p50, p51, p52, p53, p54, p55;

    FetchAddQueueHead(FetchAddQueue.Chunk first) {
        this.head = first;
        this.headSlots = first.slots;
        this.tail = first;
    }
}
