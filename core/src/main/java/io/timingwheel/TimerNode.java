package io.timingwheel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A node of a {@link TimingWheel} slot: the wheel's two links and the time the node is due. The task object is the
 * node, so the wheel allocates nothing beyond the task.
 *
 * <p>The links have one meaning only: the node's place in a wheel slot. Only the wheel writes them, on the thread that
 * owns the wheel (the master); the queues that carry a task elsewhere (the master's inbox, the workers' queue) hold
 * references of their own and never touch the links.
 */
abstract class TimerNode {
    /** The next node in the slot; owner thread only. */
    TimerNode next;

    /**
     * The previous node in the slot; owner thread only, but for {@link #isInWheelVolatile()}. Non-null exactly while
     * the node is in the wheel.
     */
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

    /**
     * @return whether the node is linked into a wheel, read from another thread. Exact only where the owner publishes
     *     its link with a full fence and re-reads what the caller changed before the call (see {@code MasterLoop.link}).
     */
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
