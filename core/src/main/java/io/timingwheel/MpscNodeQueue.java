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
 *
 * <p>The producers' {@code tail} and the consumer's {@code head} live on cache lines of their own (padding in the
 * superclasses, as JCTools does): every poll writes {@code head}, and sharing its line with {@code tail} would make
 * each producer's exchange wait for that line to come back.
 */
final class MpscNodeQueue extends MpscNodeQueueHead {
    private static final VarHandle NEXT;
    private static final VarHandle TAIL;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            NEXT = lookup.findVarHandle(TimerNode.class, "next", TimerNode.class);
            TAIL = lookup.findVarHandle(MpscNodeQueueTail.class, "tail", TimerNode.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    MpscNodeQueue() {
        super(new Stub());
    }

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

/** Padding before the tail: keeps it off the line of the object header and of whatever precedes it in memory. */
abstract class MpscNodeQueuePad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/** The producers' side. */
abstract class MpscNodeQueueTail extends MpscNodeQueuePad0 {
    /** The most recently offered node; swapped by producers. */
    volatile TimerNode tail;
}

/** Padding between the producers' tail and the consumer's head. */
abstract class MpscNodeQueuePad1 extends MpscNodeQueueTail {
    long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31, p32, p33, p34, p35;
}

/** The consumer's side. */
abstract class MpscNodeQueueHead extends MpscNodeQueuePad1 {
    /** Stands in for an empty queue so that the last real node can be returned. */
    final TimerNode stub;

    /** The next node to return, or the stub; consumer only. */
    TimerNode head;

    long p40, p41, p42, p43, p44, p45, p46, p47, p48, p49, p50, p51, p52, p53, p54, p55;

    MpscNodeQueueHead(TimerNode stub) {
        this.stub = stub;
        this.head = stub;
        this.tail = stub;
    }
}
