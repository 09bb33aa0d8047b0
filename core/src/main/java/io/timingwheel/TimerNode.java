package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A node that can sit in a {@link TimingWheel} slot or in an {@link MpscNodeQueue}, never in both at once.
 *
 * <p>The task object is the node, so scheduling allocates nothing beyond the task. The {@code next} link serves
 * the producer-to-master queue first and the wheel's slot list afterwards: once the master has polled a node from
 * the queue, no producer writes its {@code next} again, so the master may reuse it. The queue accesses
 * {@code next} through a VarHandle with release/acquire ordering; the wheel, owned by one thread, uses plain access.
 */
abstract class TimerNode {
    /** Next node in the queue or in the wheel slot. */
    TimerNode next;

    /** Previous node in the wheel slot; owned by the master. Non-null exactly while the node is in the wheel. */
    TimerNode prev;

    /**
     * When the node is due, in nanoseconds since the owner's origin (never negative). Written before the node is
     * published to the master and, for periodic tasks, by the one worker that ran it, before it is published again.
     */
    long deadline;

    /** @return true while the node is linked into a wheel slot (owner thread only) */
    final boolean isInWheel() {
        return prev != null;
    }

    /** @return whether the node looks linked into a wheel, read from another thread (after a full fence) */
    final boolean isInWheelVolatile() {
        return PREV.getVolatile(this) != null;
    }

    private static final VarHandle PREV;

    static {
        try {
            PREV = MethodHandles.lookup().findVarHandle(TimerNode.class, "prev", TimerNode.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
