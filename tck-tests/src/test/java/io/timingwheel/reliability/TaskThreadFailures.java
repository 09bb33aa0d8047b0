package io.timingwheel.reliability;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Collects what goes wrong on threads other than the test's (an assertion inside a task, a producer's unexpected
 * exception) and fails the test with it when closed: declare it first in the test's try-with-resources, so that it is
 * closed last, after the executor.
 */
final class TaskThreadFailures implements AutoCloseable {
    private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();

    /** Records a failure seen on another thread. */
    void record(Throwable t) {
        failures.add(t);
    }

    /** @return a runnable that runs {@code body} and records whatever it throws */
    Runnable guard(ThrowingRunnable body) {
        return () -> {
            try {
                body.run();
            } catch (Throwable t) {
                record(t);
            }
        };
    }

    /** Throws the first recorded failure, the others suppressed; does nothing if there is none. */
    @Override
    public void close() {
        Throwable first = failures.poll();
        if (first == null) {
            return;
        }
        AssertionError error = new AssertionError("failure on another thread: " + first, first);
        for (Throwable t; (t = failures.poll()) != null; ) {
            error.addSuppressed(t);
        }
        throw error;
    }

    /** A body that may throw anything. */
    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Throwable;
    }
}
