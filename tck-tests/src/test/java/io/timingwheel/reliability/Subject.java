package io.timingwheel.reliability;

import io.timingwheel.TimingWheelExecutor;

import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * The executors under test: the JDK's {@link ScheduledThreadPoolExecutor} (the reference) and
 * {@link TimingWheelExecutor}. A fault test parameterised over both states a behaviour the two share; a test of
 * {@link #TWE} alone says in its Javadoc why the JDK is not the reference there.
 */
enum Subject {
    /** {@code new ScheduledThreadPoolExecutor(n, factory, handler)}. */
    STPE {
        @Override
        ScheduledExecutorService create(Config config) {
            if (config.maxPendingTasks > 0) {
                throw new IllegalArgumentException("the JDK's executor has no pending limit");
            }
            return new ScheduledThreadPoolExecutor(config.threads, config.factoryOrDefault(), config.handler);
        }
    },
    /** {@code TimingWheelExecutor.builder()...build()}. */
    TWE {
        @Override
        ScheduledExecutorService create(Config config) {
            TimingWheelExecutor.Builder b = TimingWheelExecutor.builder()
                    .workerThreads(config.threads)
                    .rejectedExecutionHandler(config.handler);
            if (config.factory != null) {
                b.threadFactory(config.factory); // otherwise the default names: timingwheel-N-worker-M
            }
            if (config.maxPendingTasks > 0) {
                b.maxPendingTasks(config.maxPendingTasks);
            }
            if (config.masterFactory != null) {
                b.masterThreadFactory(config.masterFactory);
            }
            return b.build();
        }
    };

    /** @return a new executor of this kind */
    abstract ScheduledExecutorService create(Config config);

    /** @return a new executor of this kind with {@code threads} workers and the default factory and handler */
    ScheduledExecutorService create(int threads) {
        return create(config().threads(threads));
    }

    /** @return the settings of a new executor: 2 workers, the JDK's default factory, AbortPolicy */
    static Config config() {
        return new Config();
    }

    /** Settings shared by both kinds; the pending limit and master factory exist only in ours. */
    static final class Config {
        int threads = 2;
        ThreadFactory factory;
        RejectedExecutionHandler handler = new ThreadPoolExecutor.AbortPolicy();
        long maxPendingTasks;
        ThreadFactory masterFactory;

        Config threads(int n) {
            this.threads = n;
            return this;
        }

        Config factory(ThreadFactory f) {
            this.factory = f;
            return this;
        }

        Config handler(RejectedExecutionHandler h) {
            this.handler = h;
            return this;
        }

        Config maxPendingTasks(long max) {
            this.maxPendingTasks = max;
            return this;
        }

        Config masterFactory(ThreadFactory f) {
            this.masterFactory = f;
            return this;
        }

        private ThreadFactory factoryOrDefault() {
            return factory != null ? factory : Executors.defaultThreadFactory();
        }
    }
}
