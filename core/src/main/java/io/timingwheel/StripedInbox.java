package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The master's inbox: a few {@link FetchAddQueue}s ("stripes"), a producer thread always offering to the same one,
 * so that producers on different cores do not all make their atomic add on one cache line (the claim counter of one
 * chunk) and write neighbouring slots of one array. Any thread may {@link #offer}; only the owner (the master) may
 * {@link #poll} and ask {@link #isEmpty}.
 *
 * <p>Order is kept per producer thread (one thread, one stripe), not across threads, which nothing needs: what a task
 * is (pending, cancelled) is decided by its own state, not by the order in which the master hears of it. A stripe is
 * created by the first offer that needs it, so an executor used by one thread holds one chunk.
 */
final class StripedInbox<E> {
    private static final VarHandle STRIPE = MethodHandles.arrayElementVarHandle(FetchAddQueue[].class);

    /** The stripes; a slot is null until a producer first offers to it, published by CAS, read with acquire. */
    private final FetchAddQueue<?>[] stripes;
    private final int mask;

    /**
     * 64 minus the number of bits of a stripe index (there are at least 2 stripes, so less than 64): a hash's top bits
     * are its best mixed.
     */
    private final int stripeShift;

    /** The stripe the owner drains now; owner only. */
    private int cursor;

    /** Per stripe, how many offers had claimed a place at the owner's last {@link #mark}; owner only. */
    private final long[] marks;

    /**
     * @param producers how many threads may offer at once (the machine's cores): twice as many stripes, a power of
     *     two from 2 to 64
     */
    StripedInbox(int producers) {
        int n = Math.min(64, Integer.highestOneBit(Math.max(1, producers) * 2 - 1) << 1);
        this.stripes = new FetchAddQueue<?>[n];
        this.mask = n - 1;
        this.stripeShift = 64 - Integer.numberOfTrailingZeros(n);
        this.marks = new long[n];
    }

    /** @return the number of stripes (for tests) */
    int stripeCount() {
        return mask + 1;
    }

    /** Appends a node to the calling thread's stripe (any thread); lock-free. */
    void offer(E node) {
        offerTo(stripeOf(Thread.currentThread()), node);
    }

    /**
     * Appends a node to stripe {@code i}, creating it if no offer has yet. Two threads whose ids share a stripe may
     * both find it missing: each tries to install its own queue by CAS, and both then offer to the one read back, the
     * winner's, so neither node goes to a queue that the owner never sees.
     */
    void offerTo(int i, E node) {
        FetchAddQueue<E> stripe = stripe(i);
        if (stripe == null) {
            STRIPE.compareAndSet(stripes, i, (FetchAddQueue<?>) null, new FetchAddQueue<E>());
            stripe = stripe(i);
        }
        stripe.offer(node);
    }

    /** @return stripe {@code i}, or null if no offer has made it yet (package-private for the tests) */
    @SuppressWarnings("unchecked") // every stripe is made by offer(), as a queue of E
    FetchAddQueue<E> stripe(int i) {
        return (FetchAddQueue<E>) STRIPE.getAcquire(stripes, i);
    }

    /**
     * A thread's stripe: its id, spread by Fibonacci hashing (the top bits of the product with 2^64 / phi), so that
     * threads made one after the other land on different stripes. The id is a plain field read; the identity hash
     * code would cost a call into the VM whenever the thread has been used as a monitor (as join() does).
     */
    @SuppressWarnings("deprecation") // getId(): Thread.threadId() comes only in Java 19
    private int stripeOf(Thread thread) {
        return (int) ((thread.getId() * 0x9E3779B97F4A7C15L) >>> stripeShift);
    }

    /**
     * Removes and returns a node, or null if there is none or the oldest of each stripe is still being written. It
     * drains one stripe before it moves to the next.
     */
    E poll() {
        for (int k = 0; k <= mask; k++) {
            FetchAddQueue<E> stripe = stripe(cursor);
            E node = stripe == null ? null : stripe.poll();
            if (node != null) {
                return node;
            }
            cursor = (cursor + 1) & mask;
        }
        return null;
    }

    /**
     * Remembers how many offers each stripe has claimed so far (owner only): {@link #pollMarked} takes no node offered
     * after this. An offer that claims its place after this look (a stripe made since included) is sequentially
     * consistent with it, so its producer's next volatile action comes after the look too.
     */
    void mark() {
        for (int i = 0; i <= mask; i++) {
            FetchAddQueue<E> stripe = stripe(i);
            marks[i] = stripe == null ? 0 : stripe.claimedCount();
        }
    }

    /**
     * Removes and returns a node offered before the last {@link #mark}, or null if none is left or those left are still
     * being written (then {@link #reachedMark} is false). Owner only.
     */
    E pollMarked() {
        for (int k = 0; k <= mask; k++) {
            FetchAddQueue<E> stripe = stripe(cursor);
            E node = stripe != null && stripe.polledCount() < marks[cursor] ? stripe.poll() : null;
            if (node != null) {
                return node;
            }
            cursor = (cursor + 1) & mask;
        }
        return null;
    }

    /** @return whether every node offered before the last {@link #mark} has been polled. Owner only. */
    boolean reachedMark() {
        for (int i = 0; i <= mask; i++) {
            FetchAddQueue<E> stripe = stripe(i);
            if (stripe != null && stripe.polledCount() < marks[i]) {
                return false;
            }
        }
        return true;
    }

    /** @return true if no node is queued or being written in any stripe; owner only (see the stripes' isEmpty) */
    boolean isEmpty() {
        for (int i = 0; i <= mask; i++) {
            FetchAddQueue<E> stripe = stripe(i);
            if (stripe != null && !stripe.isEmpty()) {
                return false;
            }
        }
        return true;
    }
}
