package io.timingwheel.tck;

import static java.util.concurrent.TimeUnit.HOURS;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.testing.GcFinalization;
import java.lang.ref.WeakReference;
import java.util.concurrent.ScheduledFuture;

/**
 * A cancelled task, and the state it captured, becomes garbage without waiting for its deadline. Deliberate
 * difference: STPE releases a cancelled task only with setRemoveOnCancelPolicy(true) (otherwise at its deadline);
 * ours always does.
 */
class GcRetentionTest extends TckTestCase {

    /** Weak references to a task's future and to the big object it captured. */
    private record Refs(WeakReference<Object> future, WeakReference<Object> captured) {
        void awaitCollected() {
            GcFinalization.awaitClear(captured);
            GcFinalization.awaitClear(future);
        }
    }

    /** The kinds of task a test can schedule and then drop. */
    private enum Kind { RUNNABLE, CALLABLE, FIXED_RATE, FIXED_DELAY }

    /**
     * Schedules a task of {@code kind} an hour away capturing 1 MiB, cancels it (or removes/purges it) and returns
     * weak references only: when this frame is gone, the executor is the only possible holder.
     */
    private static Refs scheduleCapturingAndCancel(ManagedScheduler s, Kind kind, boolean removeInstead) {
        byte[] big = new byte[1 << 20];
        ScheduledFuture<?> future = switch (kind) {
            case RUNNABLE -> s.executor().schedule(() -> big[0]++, 1, HOURS);
            case CALLABLE -> s.executor().schedule(() -> big.length, 1, HOURS);
            case FIXED_RATE -> s.executor().scheduleAtFixedRate(() -> big[0]++, 1, 1, HOURS);
            case FIXED_DELAY -> s.executor().scheduleWithFixedDelay(() -> big[0]++, 1, 1, HOURS);
        };
        if (removeInstead) {
            assertTrue(s.remove((Runnable) future));
        } else {
            assertTrue(future.cancel(false));
        }
        return new Refs(new WeakReference<>(future), new WeakReference<>(big));
    }

    private void assertCancelledTaskIsCollectable(SchedulerFactory f, Kind kind) {
        try (ManagedScheduler s = f.create()) {
            if (s.isReference()) {
                s.setRemoveOnCancelPolicy(true); // STPE keeps a cancelled task until its deadline without this
            }
            scheduleCapturingAndCancel(s, kind, false).awaitCollected();
        }
    }

    /** A cancelled one-shot Runnable and its captured state are collectable long before its deadline. */
    @ForEachExecutor
    void cancelledRunnableIsCollectable(SchedulerFactory f) {
        assertCancelledTaskIsCollectable(f, Kind.RUNNABLE);
    }

    /** A cancelled one-shot Callable and its captured state are collectable long before its deadline. */
    @ForEachExecutor
    void cancelledCallableIsCollectable(SchedulerFactory f) {
        assertCancelledTaskIsCollectable(f, Kind.CALLABLE);
    }

    /** A cancelled fixed-rate task and its captured state are collectable. */
    @ForEachExecutor
    void cancelledFixedRateTaskIsCollectable(SchedulerFactory f) {
        assertCancelledTaskIsCollectable(f, Kind.FIXED_RATE);
    }

    /** A cancelled fixed-delay task and its captured state are collectable. */
    @ForEachExecutor
    void cancelledFixedDelayTaskIsCollectable(SchedulerFactory f) {
        assertCancelledTaskIsCollectable(f, Kind.FIXED_DELAY);
    }

    /** A task taken out with remove() is collectable, on both (STPE's remove unlinks it too). */
    @ForEachExecutor
    void removedTaskIsCollectable(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            scheduleCapturingAndCancel(s, Kind.RUNNABLE, true).awaitCollected();
        }
    }

    /** A cancelled task is collectable after purge(), on both, with the default remove-on-cancel policy. */
    @ForEachExecutor
    void purgedTaskIsCollectable(SchedulerFactory f) {
        try (ManagedScheduler s = f.create()) {
            Refs refs = scheduleCapturingAndCancel(s, Kind.CALLABLE, false);
            s.purge();
            refs.awaitCollected();
        }
    }
}
