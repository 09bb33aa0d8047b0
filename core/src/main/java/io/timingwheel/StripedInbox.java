package io.timingwheel;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The master's inbox: a few {@link MpscChunkedQueue}s ("stripes"), a producer thread always offering to the same one,
 * so that producers on different cores do not all make their atomic add on one cache line (the claim counter of one
 * chunk) and write neighbouring slots of one array. Any thread may {@link #offer}; only the owner (the master) may
 * {@link #poll} and ask {@link #isEmpty}.
 *
 * <p>Order is kept per producer thread (one thread, one stripe), not across threads, which nothing needs: what a task
 * is (pending, cancelled) is decided by its own state, not by the order in which the master hears of it. A stripe is
 * created by the first offer that needs it, so an executor used by one thread holds one chunk, as before.
 */
final class StripedInbox<E> {
    /** The stripes; a slot is null until a producer first offers to it. */
    private final AtomicReferenceArray<MpscChunkedQueue<E>> stripes;
    private final int mask;

    /** The stripe the owner drains now; owner only. */
    private int cursor;

    /** @param producers how many threads may offer at once (the machine's cores): twice as many stripes, to 64 */
    StripedInbox(int producers) {
        int n = Math.min(64, Integer.highestOneBit(Math.max(1, producers) * 2 - 1) << 1);
        this.stripes = new AtomicReferenceArray<>(n);
        this.mask = n - 1;
    }

    /** @return the number of stripes (for tests) */
    int stripeCount() {
        return mask + 1;
    }

    /** Appends a node to the calling thread's stripe (any thread); lock-free. */
    void offer(E node) {
        int i = stripeOf(Thread.currentThread());
        MpscChunkedQueue<E> stripe = stripes.get(i);
        if (stripe == null) {
            stripes.compareAndSet(i, null, new MpscChunkedQueue<>());
            stripe = stripes.get(i);
        }
        stripe.offer(node);
    }

    /** A thread's stripe: its identity hash, mixed, so that threads made one after the other spread. */
    private int stripeOf(Thread thread) {
        int h = System.identityHashCode(thread) * 0x9E3779B9;
        return (h ^ (h >>> 16)) & mask;
    }

    /**
     * Removes and returns a node, or null if there is none or the oldest of each stripe is still being written. It
     * drains one stripe before it moves to the next.
     */
    E poll() {
        for (int k = 0; k <= mask; k++) {
            MpscChunkedQueue<E> stripe = stripes.get(cursor);
            E node = stripe == null ? null : stripe.poll();
            if (node != null) {
                return node;
            }
            cursor = (cursor + 1) & mask;
        }
        return null;
    }

    /** @return true if no node is queued or being written in any stripe; owner only (see the stripes' isEmpty) */
    boolean isEmpty() {
        for (int i = 0; i <= mask; i++) {
            MpscChunkedQueue<E> stripe = stripes.get(i);
            if (stripe != null && !stripe.isEmpty()) {
                return false;
            }
        }
        return true;
    }
}
