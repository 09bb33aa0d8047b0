package io.timingwheel.tck;

import static org.junit.jupiter.api.Assertions.fail;

import io.timingwheel.TimingWheelExecutor;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The executors as the JDK's type {@link ScheduledThreadPoolExecutor}, for the tests that need what a
 * {@link SchedulerFactory} cannot give: a subclass that overrides the hooks, or the executor itself as a JDK type.
 * STPE is the reference; TWE runs tasks on its own workers; TWE-external-executor on a cached thread pool. The names
 * are those of {@link Factories}, and {@code -Dtck.factories=...} selects these too: STPE by its name, TWE by the name
 * of any factory of ours with its own workers (TWE, TWE-1-worker...), TWE-external-executor by its name.
 */
enum ExecutorKind {
    /** The JDK's {@code ScheduledThreadPoolExecutor}. */
    STPE("STPE", true, true),
    /** {@code TimingWheelExecutor} with its own worker threads. */
    TWE("TWE", false, true),
    /** {@code TimingWheelExecutor} over {@code builder().workerExecutor(cachedThreadPool)}. */
    TWE_EXTERNAL("TWE-external-executor", false, false);

    private final String factoryName;
    private final boolean reference;
    private final boolean ownThreads;

    ExecutorKind(String factoryName, boolean reference, boolean ownThreads) {
        this.factoryName = factoryName;
        this.reference = reference;
        this.ownThreads = ownThreads;
    }

    /** True for the JDK's executor, whose behaviour defines the contract. */
    boolean isReference() {
        return reference;
    }

    /** The selected kinds: the argument source of {@link ForEachKind}. */
    static Stream<ExecutorKind> all() {
        return select(Arrays.stream(values()));
    }

    /**
     * The selected kinds whose pool settings act on threads of their own (an external executor owns its threads, so
     * its pool settings are only remembered): the argument source of {@link ForEachPooledKind}.
     */
    static Stream<ExecutorKind> pooled() {
        return select(Arrays.stream(values()).filter(k -> k.ownThreads));
    }

    /**
     * The kinds that {@code -Dtck.factories} selects; if it selects none of them, the reference alone, since a
     * parameterised test must have an argument.
     */
    private static Stream<ExecutorKind> select(Stream<ExecutorKind> kinds) {
        String wanted = System.getProperty("tck.factories", "").trim();
        if (wanted.isEmpty()) {
            return kinds;
        }
        Set<String> names = Arrays.stream(wanted.split(",")).map(String::trim).collect(Collectors.toSet());
        List<ExecutorKind> selected = kinds.filter(k -> k.isSelectedBy(names)).collect(Collectors.toList());
        return selected.isEmpty() ? Stream.of(STPE) : selected.stream();
    }

    /** @return whether one of the factory names denotes this kind */
    private boolean isSelectedBy(Set<String> factoryNames) {
        if (this != TWE) {
            return factoryNames.contains(factoryName);
        }
        return factoryNames.stream().anyMatch(n -> n.startsWith("TWE") && !n.equals(TWE_EXTERNAL.factoryName));
    }

    /** A plain executor ({@code new ...(poolSize, threadFactory, handler)}, or the builder for the external one). */
    Subject create(int poolSize) {
        return create(poolSize, new ThreadPoolExecutor.AbortPolicy(), null);
    }

    /** A plain executor with the given rejection handler. */
    Subject create(int poolSize, RejectedExecutionHandler handler) {
        return create(poolSize, handler, null);
    }

    /** A subclass of the executor that overrides every hook and reports to {@code hooks}. */
    Subject createHooked(int poolSize, HookRecorder hooks) {
        return create(poolSize, new ThreadPoolExecutor.AbortPolicy(), hooks);
    }

    private Subject create(int poolSize, RejectedExecutionHandler handler, HookRecorder hooks) {
        Subject s = new Subject(this);
        ThreadFactory threads = s.threads;
        switch (this) {
            case STPE:
                s.executor = hooks == null
                        ? new ScheduledThreadPoolExecutor(poolSize, threads, handler)
                        : new HookedStpe(poolSize, threads, handler, hooks);
                break;
            case TWE:
                if (hooks == null) {
                    ScheduledThreadPoolExecutor e = new TimingWheelExecutor(poolSize, threads, handler);
                    s.executor = e;
                } else {
                    s.executor = new HookedTimingWheel(TimingWheelExecutor.builder().workerThreads(poolSize)
                            .threadFactory(threads).masterThreadFactory(threads).rejectedExecutionHandler(handler),
                            hooks);
                }
                break;
            case TWE_EXTERNAL:
                s.pool = Executors.newCachedThreadPool(threads);
                TimingWheelExecutor.Builder b = TimingWheelExecutor.builder().workerExecutor(s.pool)
                        .workerThreads(poolSize).masterThreadFactory(threads).rejectedExecutionHandler(handler);
                s.executor = hooks == null ? b.build() : new HookedTimingWheel(b, hooks);
                break;
            default:
                throw new AssertionError(this);
        }
        return s;
    }

    @Override
    public String toString() {
        return factoryName;
    }

    /** An uncaught exception and the thread it killed. */
    record Uncaught(Thread thread, Throwable failure) {
    }

    /**
     * An executor under test, with the threads it made (and the external pool, if any). {@link #close()} is the test's
     * clean-up for try-with-resources: shutdown with both shutdown policies off, then insist on termination.
     */
    static final class Subject implements AutoCloseable {
        final ExecutorKind kind;
        /** The executor, as the JDK's type. */
        ScheduledThreadPoolExecutor executor;
        /** The external pool of TWE-external-executor, else null. */
        ExecutorService pool;
        /** Every thread the executor (or its pool) made, in order. */
        final Queue<Thread> madeThreads = new ConcurrentLinkedQueue<>();
        /** What killed any of those threads, in order. */
        final Queue<Uncaught> uncaught = new ConcurrentLinkedQueue<>();
        /** Daemon threads named after the kind that record their deaths in {@link #uncaught}. */
        final ThreadFactory threads;

        private Subject(ExecutorKind kind) {
            this.kind = kind;
            AtomicInteger n = new AtomicInteger();
            this.threads = r -> {
                Thread t = new Thread(r, "tck-" + kind.factoryName + "-" + n.incrementAndGet());
                t.setDaemon(true);
                t.setUncaughtExceptionHandler((thread, e) -> uncaught.add(new Uncaught(thread, e)));
                madeThreads.add(t);
                return t;
            };
        }

        boolean isReference() {
            return kind.isReference();
        }

        /** @return the throwables that killed a thread of this executor, in order */
        List<Throwable> uncaughtFailures() {
            return uncaught.stream().map(Uncaught::failure).collect(Collectors.toList());
        }

        @Override
        public void close() {
            executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
            executor.shutdown();
            try {
                awaitTermination(executor);
                if (pool != null) {
                    pool.shutdown();
                    awaitTermination(pool);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void awaitTermination(ExecutorService e) throws InterruptedException {
            if (!e.awaitTermination(TckTestCase.LONG_DELAY_MS, TimeUnit.MILLISECONDS)) {
                e.shutdownNow();
                fail(kind + ": did not terminate within " + TckTestCase.LONG_DELAY_MS + " ms after shutdown() with "
                        + "both shutdown policies off: " + e);
            }
        }

        @Override
        public String toString() {
            return kind + ": " + executor;
        }
    }

    /** The JDK's executor, with every hook reporting to a {@link HookRecorder}. */
    static final class HookedStpe extends ScheduledThreadPoolExecutor {
        private final HookRecorder hooks;

        HookedStpe(int poolSize, ThreadFactory threads, RejectedExecutionHandler handler, HookRecorder hooks) {
            super(poolSize, threads, handler);
            this.hooks = hooks;
        }

        @Override
        protected <V> RunnableScheduledFuture<V> decorateTask(Runnable runnable, RunnableScheduledFuture<V> task) {
            return hooks.decorate(runnable, task);
        }

        @Override
        protected <V> RunnableScheduledFuture<V> decorateTask(Callable<V> callable, RunnableScheduledFuture<V> task) {
            return hooks.decorate(callable, task);
        }

        @Override
        protected void beforeExecute(Thread thread, Runnable task) {
            hooks.beforeExecute(thread, task);
        }

        @Override
        protected void afterExecute(Runnable task, Throwable thrown) {
            hooks.afterExecute(task, thrown);
        }

        @Override
        protected void terminated() {
            hooks.terminated(this);
        }
    }

    /** A {@code TimingWheelExecutor} made through the protected constructor, with every hook reporting. */
    static final class HookedTimingWheel extends TimingWheelExecutor {
        private final HookRecorder hooks;

        HookedTimingWheel(TimingWheelExecutor.Builder settings, HookRecorder hooks) {
            super(settings);
            this.hooks = hooks;
        }

        @Override
        protected <V> RunnableScheduledFuture<V> decorateTask(Runnable runnable, RunnableScheduledFuture<V> task) {
            return hooks.decorate(runnable, task);
        }

        @Override
        protected <V> RunnableScheduledFuture<V> decorateTask(Callable<V> callable, RunnableScheduledFuture<V> task) {
            return hooks.decorate(callable, task);
        }

        @Override
        protected void beforeExecute(Thread thread, Runnable task) {
            hooks.beforeExecute(thread, task);
        }

        @Override
        protected void afterExecute(Runnable task, Throwable thrown) {
            hooks.afterExecute(task, thrown);
        }

        @Override
        protected void terminated() {
            hooks.terminated(this);
        }
    }
}
