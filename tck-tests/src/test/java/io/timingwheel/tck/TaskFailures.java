package io.timingwheel.tck;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Throwables raised on task threads (an assertion inside a task, an unexpected exception) collected for the test
 * thread, which rethrows them when the test ends: a failure on any thread fails the test.
 */
final class TaskFailures {

    private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();

    /** Records {@code t} as a failure of the current test. */
    void record(Throwable t) {
        failures.add(t);
    }

    /** Throws the first recorded failure, with the others as suppressed exceptions; does nothing if there is none. */
    void rethrow() {
        Throwable first = failures.poll();
        if (first == null) {
            return;
        }
        AssertionError error = new AssertionError("failure on a task thread: " + first, first);
        for (Throwable t; (t = failures.poll()) != null; ) {
            error.addSuppressed(t);
        }
        throw error;
    }
}
