package io.timingwheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The master's striped inbox: nothing lost, each producer's order kept, empty only when every stripe is. */
class StripedInboxTest {
    /** A node that says who offered it and when, in that producer's order. */
    record Item(int producer, int rank) {
    }

    /** Stripes are a power of two, twice the producers, at most 64. */
    @Test
    void stripeCount() {
        assertEquals(2, new StripedInbox<Item>(1).stripeCount());
        assertEquals(4, new StripedInbox<Item>(2).stripeCount());
        assertEquals(32, new StripedInbox<Item>(16).stripeCount());
        assertEquals(64, new StripedInbox<Item>(1000).stripeCount());
    }

    /** Eight producers at once: every node is delivered exactly once, each producer's nodes in their order. */
    @Test
    void concurrentProducersLoseNothingAndKeepTheirOrder() throws Exception {
        StripedInbox<Item> inbox = new StripedInbox<>(4);
        assertTrue(inbox.isEmpty());
        int producers = 8;
        int perProducer = 100_000;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int producer = p;
            Thread t = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                for (int i = 0; i < perProducer; i++) {
                    inbox.offer(new Item(producer, i));
                }
            });
            t.start();
            threads.add(t);
        }
        go.countDown();
        int[] next = new int[producers];
        int received = 0;
        while (received < producers * perProducer) {
            Item item = inbox.poll();
            if (item == null) {
                Thread.onSpinWait();
                continue;
            }
            assertEquals(next[item.producer()]++, item.rank(), "producer " + item.producer() + "'s order");
            received++;
        }
        for (Thread t : threads) {
            t.join();
        }
        assertNull(inbox.poll());
        assertTrue(inbox.isEmpty());
        for (int n : next) {
            assertEquals(perProducer, n);
        }
        inbox.offer(new Item(0, 0));
        assertFalse(inbox.isEmpty());
    }
}
