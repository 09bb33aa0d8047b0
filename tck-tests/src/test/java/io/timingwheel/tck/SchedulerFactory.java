package io.timingwheel.tck;

import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadFactory;

/**
 * Makes the executors under test: the JDK's {@code ScheduledThreadPoolExecutor} (the reference) or one configuration
 * of {@code TimingWheelExecutor}. Its {@link #toString()} names it in the test report.
 */
public interface SchedulerFactory {

    /** Short name shown in the report and accepted by {@code -Dtck.factories=...}. */
    String name();

    /** True for the JDK's ScheduledThreadPoolExecutor, whose behaviour defines the contract. */
    boolean isReference();

    /** A new executor with the given options; unset options take the factory's (or the constructor's) defaults. */
    ManagedScheduler create(Options options);

    /** A new executor with the factory's default settings. */
    default ManagedScheduler create() {
        return create(Options.DEFAULTS);
    }

    /** A new executor with {@code poolSize} workers (STPE's {@code corePoolSize}). */
    default ManagedScheduler create(int poolSize) {
        return create(Options.DEFAULTS.poolSize(poolSize));
    }

    /**
     * What a test may ask of a new executor, each null when the test does not care.
     *
     * @param poolSize      STPE's corePoolSize / the number of worker threads
     * @param threadFactory the thread factory for the worker threads
     * @param handler       the rejected-execution handler
     */
    record Options(Integer poolSize, ThreadFactory threadFactory, RejectedExecutionHandler handler) {

        static final Options DEFAULTS = new Options(null, null, null);

        Options poolSize(int n) {
            return new Options(n, threadFactory, handler);
        }

        Options threadFactory(ThreadFactory f) {
            return new Options(poolSize, f, handler);
        }

        Options handler(RejectedExecutionHandler h) {
            return new Options(poolSize, threadFactory, h);
        }
    }
}
