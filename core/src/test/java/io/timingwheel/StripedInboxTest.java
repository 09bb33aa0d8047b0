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

    /**
     * The master's drain up to a mark: {@code pollMarked} takes, from every stripe, what was offered before the mark and
     * nothing after it, and {@code reachedMark} turns true once all of that has been taken.
     */
    @Test
    void pollMarkedTakesWhatCameBeforeTheMarkAndMarkLagSaysWhenItIsAllTaken() {
        StripedInbox<Item> inbox = new StripedInbox<>(2);
        assertTrue(inbox.reachedMark(), "nothing offered, nothing marked");
        inbox.offerTo(0, new Item(0, 0));
        inbox.offerTo(2, new Item(2, 0));
        inbox.offerTo(2, new Item(2, 1));
        inbox.mark();
        inbox.offerTo(0, new Item(0, 1)); // after the mark
        inbox.offerTo(3, new Item(3, 0)); // in a stripe made after the mark
        assertTrue(!inbox.reachedMark(), "three nodes before the mark wait");

        Item first = inbox.pollMarked();
        assertTrue(first != null && first.rank() == 0, "a node from before the mark: " + first);
        assertTrue(!inbox.reachedMark(), "two before the mark still wait");
        List<Item> drained = new ArrayList<>(List.of(first));
        for (Item item; (item = inbox.pollMarked()) != null; ) {
            drained.add(item);
        }
        assertEquals(3, drained.size(), "only what came before the mark: " + drained);
        assertTrue(drained.containsAll(List.of(new Item(0, 0), new Item(2, 0), new Item(2, 1))), drained.toString());
        assertTrue(drained.indexOf(new Item(2, 0)) < drained.indexOf(new Item(2, 1)), "a stripe's order kept");
        assertTrue(inbox.reachedMark(), "all of it taken");

        List<Item> after = new ArrayList<>();
        for (Item item; (item = inbox.poll()) != null; ) {
            after.add(item);
        }
        assertEquals(2, after.size(), "what came after the mark is still there: " + after);
        assertTrue(after.containsAll(List.of(new Item(0, 1), new Item(3, 0))), after.toString());
        assertTrue(inbox.reachedMark(), "taking more than the mark leaves it reached");
    }

    /**
     * A node claimed before the mark but not yet written (its producer between claim and write) ends the drain for now,
     * and the lag stays negative until it is written and taken.
     */
    @Test
    void aNodeClaimedBeforeTheMarkButNotYetWrittenHoldsTheDrainBack() {
        StripedInbox<Item> inbox = new StripedInbox<>(1);
        inbox.offerTo(0, new Item(0, 0));
        FetchAddQueue<Item> stripe = inbox.stripe(0);
        stripe.head.claimed++; // a producer's claim of the next slot, whose write has not come yet
        inbox.mark();
        assertEquals(new Item(0, 0), inbox.pollMarked());
        assertNull(inbox.pollMarked(), "the next node before the mark is still being written");
        assertTrue(!inbox.reachedMark(), "so the mark is not reached");

        stripe.head.slots[1] = new Item(0, 1); // the producer's write
        assertEquals(new Item(0, 1), inbox.pollMarked());
        assertTrue(inbox.reachedMark(), "now it is");
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
