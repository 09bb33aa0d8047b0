package io.timingwheel;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The pool settings of {@link java.util.concurrent.ThreadPoolExecutor}'s API, as last set: written by the executor's
 * setters, read by the {@link WorkerPool}, which acts on them (an executor that runs its tasks on a given
 * {@link java.util.concurrent.Executor} only remembers them, for the getters). Each field is read on its own, as the
 * JDK's are.
 */
final class PoolSettings {
    /** STPE's keep-alive: how long a thread beyond the core size (or any, with core timeout) may stay idle. */
    static final long DEFAULT_KEEP_ALIVE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /** The core pool size; 0 still runs one worker, as in the JDK. */
    volatile int corePoolSize;

    /** The maximum pool size: kept for the JDK's checks and getters only, as STPE ignores it too. */
    volatile int maximumPoolSize = Integer.MAX_VALUE;

    volatile long keepAliveNanos = DEFAULT_KEEP_ALIVE_NANOS;

    volatile boolean allowCoreThreadTimeOut;

    /** The factory for worker threads started from now on. */
    volatile ThreadFactory threadFactory;

    PoolSettings(int corePoolSize, ThreadFactory threadFactory) {
        this.corePoolSize = corePoolSize;
        this.threadFactory = threadFactory;
    }
}
