package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An unbounded, intrusive, lock-free multi-producer single-consumer queue of {@link TimerNode}s, linked through
 * {@link TimerNode#next}: offering allocates nothing. Any thread may {@link #offer}; only the owner thread may
 * {@link #poll} and ask {@link #isEmpty}.
 *
 * <p>The algorithm is Dmitry Vyukov's intrusive MPSC queue. A producer swaps itself into {@code tail} with one
 * atomic exchange (wait-free) and then links the previous tail to itself. Between those two steps the consumer sees a
 * gap and {@link #poll} returns null although the queue is not empty; {@link #isEmpty} still says false then, so the
 * owner knows to retry rather than sleep. A node is returned only once its successor is linked, so no producer
 * writes a returned node's {@code next} again.
 */
final class MpscNodeQueue {
    private static final VarHandle NEXT;
    private static final VarHandle TAIL;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            NEXT = lookup.findVarHandle(TimerNode.class, "next", TimerNode.class);
            TAIL = lookup.findVarHandle(MpscNodeQueue.class, "tail", TimerNode.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Stands in for an empty queue so that the last real node can be returned. */
    private final TimerNode stub = new Stub();

    /** The most recently offered node; swapped by producers. */
    @SuppressWarnings("unused") // accessed through TAIL
    private volatile TimerNode tail = stub;

    /** The next node to return, or the stub; consumer only. */
    private TimerNode head = stub;

    /** Appends a node. Wait-free. The node must not be in any queue or wheel. */
    void offer(TimerNode node) {
        NEXT.set(node, (TimerNode) null);
        TimerNode previous = (TimerNode) TAIL.getAndSet(this, node);
        NEXT.setRelease(previous, node);
    }

    /** Removes and returns the oldest node, or null if there is none or the oldest is still being linked. */
    TimerNode poll() {
        TimerNode first = head;
        TimerNode second = (TimerNode) NEXT.getAcquire(first);
        if (first == stub) {
            if (second == null) {
                return null;
            }
            head = second;
            first = second;
            second = (TimerNode) NEXT.getAcquire(second);
        }
        if (second != null) {
            head = second;
            return first;
        }
        if (first != tail) {
            return null; // a producer has swapped the tail but not yet linked to it
        }
        offer(stub);
        second = (TimerNode) NEXT.getAcquire(first);
        if (second != null) {
            head = second;
            return first;
        }
        return null;
    }

    /** @return true if no node is queued or being linked; consumer only. A volatile read of the tail. */
    boolean isEmpty() {
        return head == stub && tail == stub;
    }

    private static final class Stub extends TimerNode {
    }
}
