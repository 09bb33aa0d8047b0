package io.timingwheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The master's inbox alone: order, no loss across chunks and producers, and what {@code isEmpty} promises. */
class FetchAddQueueTest {

    /** A node that remembers who offered it and its rank among that producer's offers. */
    static final class Item {
        final int producer;
        final int rank;

        Item(int producer, int rank) {
            this.producer = producer;
            this.rank = rank;
        }
    }

    /** One producer: nodes come out in the order they went in, across several chunks, and then the queue is empty. */
    @Test
    void singleProducerIsFifoAcrossChunks() {
        FetchAddQueue<Item> queue = new FetchAddQueue<>();
        assertTrue(queue.isEmpty());
        assertNull(queue.poll());
        int count = 3 * FetchAddQueue.CHUNK_SIZE + 7;
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Item item = new Item(0, i);
            items.add(item);
            queue.offer(item);
            assertFalse(queue.isEmpty());
        }
        for (int i = 0; i < count; i++) {
            assertSame(items.get(i), queue.poll(), "item " + i);
        }
        assertNull(queue.poll());
        assertTrue(queue.isEmpty());
    }

    /** Offers and polls interleaved at a chunk's boundary leave nothing behind and invent nothing. */
    @Test
    void interleavedOfferAndPollAtChunkBoundaries() {
        FetchAddQueue<Item> queue = new FetchAddQueue<>();
        int rank = 0;
        int expected = 0;
        for (int round = 0; round < 5 * FetchAddQueue.CHUNK_SIZE; round++) {
            queue.offer(new Item(0, rank++));
            if (round % 3 != 0) {
                queue.offer(new Item(0, rank++));
            }
            Item polled = queue.poll();
            assertEquals(expected++, polled.rank);
        }
        for (Item node; (node = queue.poll()) != null; ) {
            assertEquals(expected++, node.rank);
        }
        assertEquals(rank, expected);
        assertTrue(queue.isEmpty());
    }

    /**
     * The next chunk is there before a chunk's last node is written (the spare, see {@link #aSpareChunkWaitsAhead}), so
     * a consumer that takes that node stands in the next chunk at once, never at the end of the last one; a claim made
     * there and not yet written leaves the queue not empty: the owner must not sleep (or terminate) on an offer that
     * is on its way.
     */
    @Test
    void takingAChunksLastNodeMovesOnToTheNextChunk() {
        FetchAddQueue<Item> queue = new FetchAddQueue<>();
        FetchAddQueue.Chunk first = queue.head;
        for (int i = 0; i < FetchAddQueue.CHUNK_SIZE; i++) {
            queue.offer(new Item(0, i));
        }
        assertNotNull(first.next, "the last slot's producer appended the next chunk");
        for (int i = 0; i < FetchAddQueue.CHUNK_SIZE; i++) {
            assertNotNull(queue.poll());
        }
        assertSame(first.next, queue.head);
        assertEquals(FetchAddQueue.CHUNK_SIZE, queue.polledCount());
        assertTrue(queue.isEmpty());
        assertEquals(0, queue.unreadCount());
        queue.head.claimed++; // what a producer's claim does before it writes its node
        assertFalse(queue.isEmpty());
        assertEquals(1, queue.unreadCount());
        assertNull(queue.poll());
    }

    /**
     * A spare chunk waits ahead of the one the producers fill, so the producer of a chunk's last slot never allocates
     * between its claim and its write: it finds the next chunk there, and appends the one after it once it has written.
     */
    @Test
    void aSpareChunkWaitsAhead() {
        FetchAddQueue<Item> queue = new FetchAddQueue<>();
        FetchAddQueue.Chunk first = queue.head;
        FetchAddQueue.Chunk spare = first.next;
        assertNotNull(spare, "a new queue has its spare");
        for (int i = 0; i < FetchAddQueue.CHUNK_SIZE; i++) {
            queue.offer(new Item(0, i));
        }
        assertSame(spare, first.next, "the last slot's producer took the spare");
        assertNotNull(spare.next, "and appended the next spare");
        queue.offer(new Item(0, FetchAddQueue.CHUNK_SIZE));
        for (int i = 0; i <= FetchAddQueue.CHUNK_SIZE; i++) {
            assertEquals(i, queue.poll().rank);
        }
        assertTrue(queue.isEmpty());
    }

    /** Without its spare (its producer was slow), the producer of a chunk's last slot appends the next chunk itself. */
    @Test
    void withoutASpareTheLastSlotsProducerAppends() {
        FetchAddQueue<Item> queue = new FetchAddQueue<>();
        FetchAddQueue.Chunk first = queue.head;
        first.next = null;
        for (int i = 0; i < FetchAddQueue.CHUNK_SIZE; i++) {
            queue.offer(new Item(0, i));
        }
        assertNotNull(first.next);
        for (int i = 0; i < FetchAddQueue.CHUNK_SIZE; i++) {
            assertEquals(i, queue.poll().rank);
        }
        assertSame(first.next, queue.head);
        queue.offer(new Item(0, FetchAddQueue.CHUNK_SIZE));
        assertEquals(FetchAddQueue.CHUNK_SIZE, queue.poll().rank);
    }

    /** Claims past the end of the consumer's chunk count as unread: each is a node on its way into the next chunk. */
    @Test
    void claimsPastTheEndCountAsUnread() {
        FetchAddQueue<Item> queue = new FetchAddQueue<>();
        for (int i = 0; i < FetchAddQueue.CHUNK_SIZE - 1; i++) {
            queue.offer(new Item(0, i));
        }
        for (int i = 0; i < FetchAddQueue.CHUNK_SIZE - 2; i++) {
            queue.poll();
        }
        assertEquals(1, queue.unreadCount());
        queue.head.claimed += 3; // the last slot claimed, and two claims past the end, none written yet
        assertEquals(4, queue.unreadCount());
        assertEquals(FetchAddQueue.CHUNK_SIZE - 2, queue.poll().rank);
        assertNull(queue.poll(), "the last slot is claimed but not written");
        assertEquals(3, queue.unreadCount());
    }

    /**
     * Once a chunk's last node is taken, the next chunk decides: not empty while a node waits there, empty once it is
     * taken; looking takes nothing.
     */
    @Test
    void atAChunksEndTheNextChunkDecides() {
        FetchAddQueue<Item> queue = new FetchAddQueue<>();
        for (int i = 0; i <= FetchAddQueue.CHUNK_SIZE; i++) {
            queue.offer(new Item(0, i));
        }
        for (int i = 0; i < FetchAddQueue.CHUNK_SIZE; i++) {
            assertNotNull(queue.poll());
        }
        long taken = queue.polledCount();
        assertFalse(queue.isEmpty(), "a node waits in the next chunk");
        assertEquals(taken, queue.polledCount(), "looking took nothing");
        assertEquals(FetchAddQueue.CHUNK_SIZE, queue.poll().rank);
        assertTrue(queue.isEmpty());
        assertNull(queue.poll());
    }

    /** Four producers at once: every node is delivered exactly once, each producer's nodes in their order. */
    @Test
    void concurrentProducersLoseNothingAndKeepTheirOrder() throws Exception {
        FetchAddQueue<Item> queue = new FetchAddQueue<>();
        int producers = 4;
        int perProducer = 200_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int id = p;
            Thread t = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perProducer; i++) {
                    queue.offer(new Item(id, i));
                }
            });
            t.start();
            threads.add(t);
        }
        start.countDown();
        int[] nextRank = new int[producers];
        int received = 0;
        while (received < producers * perProducer) {
            Item node = queue.poll();
            if (node == null) {
                Thread.onSpinWait();
                continue;
            }
            Item item = node;
            assertEquals(nextRank[item.producer], item.rank, "producer " + item.producer);
            nextRank[item.producer]++;
            received++;
        }
        for (Thread t : threads) {
            t.join();
        }
        assertNull(queue.poll());
        assertTrue(queue.isEmpty());
        for (int p = 0; p < producers; p++) {
            assertEquals(perProducer, nextRank[p]);
        }
    }
}
