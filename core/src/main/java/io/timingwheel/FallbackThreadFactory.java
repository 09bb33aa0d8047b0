package io.timingwheel;

import java.util.concurrent.ThreadFactory;

/**
 * The user's factory for the executor's own threads ({@code masterThreadFactory}), and ours where it fails: a thread
 * the executor cannot do without (the releaser of a given executor's tasks, as the master) is not left to a factory
 * that throws or returns null. Its failure goes to the calling thread's uncaught-exception handler, as the master's.
 */
final class FallbackThreadFactory implements ThreadFactory {
    private final String executorName;
    private final ThreadFactory preferred;
    private final ThreadFactory fallback;

    FallbackThreadFactory(String executorName, ThreadFactory preferred, ThreadFactory fallback) {
        this.executorName = executorName;
        this.preferred = preferred;
        this.fallback = fallback;
    }

    @Override
    public Thread newThread(Runnable task) {
        try {
            Thread t = preferred.newThread(task);
            if (t != null) {
                return t;
            }
            InternalFailures.report(executorName, "the master thread factory returned null",
                    new NullPointerException());
        } catch (Throwable e) {
            InternalFailures.report(executorName, "the master thread factory failed", e);
        }
        return fallback.newThread(task);
    }
}
