package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A node of a {@link TimingWheel} slot, and what travels through the master's {@link MpscChunkedQueue}.
 *
 * <p>The task object is the node, so the wheel allocates nothing beyond the task. The links belong to the master:
 * the wheel's slot lists use them, and so does the batch of due tasks it hands to the workers ({@code next} only).
 * The queue holds references in arrays of its own, so a node may be queued while it is in the wheel (a cancelled
 * task posted for unlinking).
 */
abstract class TimerNode {
    /** Next node in the wheel slot, or in a batch of due tasks; owned by the master. */
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
