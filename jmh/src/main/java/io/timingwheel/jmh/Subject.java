package io.timingwheel.jmh;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import io.timingwheel.TimingWheelExecutor;

import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * One scheduler under test behind one small surface, so that every benchmark and the harness run the very same code
 * against each implementation.
 *
 * <p>The names are the values of the {@code impl} parameter:
 * <ul>
 *   <li>{@code jdk1}: {@code new ScheduledThreadPoolExecutor(1)}, the baseline of every ratio;</li>
 *   <li>{@code jdkN}: {@code new ScheduledThreadPoolExecutor(N)}, N = available processors;</li>
 *   <li>{@code tw}: {@code new TimingWheelExecutor(1)} (defaults: 1 ms tick, one worker);</li>
 *   <li>{@code twN}: {@code new TimingWheelExecutor(N)};</li>
 *   <li>{@code netty1ms}: {@code new HashedWheelTimer(daemonThreads, 1, MILLISECONDS, 512, false)};</li>
 *   <li>{@code netty100ms}: the same with Netty's default 100 ms tick.</li>
 * </ul>
 * Both JDK executors run with {@code setRemoveOnCancelPolicy(true)}: with the default ({@code false}) a cancelled task
 * stays in STPE's heap until its deadline (here up to an hour), which the cancel benchmarks could not survive and which
 * no program that cancels a lot can afford. TimingWheelExecutor and Netty always release cancelled tasks.
 */
abstract class Subject implements AutoCloseable {

    /** Every value of the {@code impl} parameter, in the order of the comparison table. */
    static final List<String> ALL = List.of("jdk1", "jdkN", "tw", "twN", "netty1ms", "netty100ms");

    /** The baseline of every ratio. */
    static final String BASELINE = "jdk1";

    /** N of {@code jdkN} and {@code twN}. */
    static final int N = Math.max(2, Runtime.getRuntime().availableProcessors());

    /**
     * A task that every implementation accepts as it is: a {@link Runnable} for the executors and a {@link TimerTask}
     * for Netty, so that no adapter is allocated per call.
     */
    abstract static class Job implements Runnable, TimerTask {
        @Override
        public final void run(Timeout timeout) {
            run();
        }
    }

    /** A job that does nothing (for tasks that are never meant to run). */
    static final Job NOOP = new Job() {
        @Override
        public void run() {
        }
    };

    /** The implementation's name, one of {@link #ALL}. */
    final String name;

    Subject(String name) {
        this.name = name;
    }

    /** Creates the implementation named {@code impl} (one of {@link #ALL}). */
    static Subject create(String impl) {
        switch (impl) {
            case "jdk1": return jdk(impl, 1);
            case "jdkN": return jdk(impl, N);
            case "tw": return new Executor(impl, new TimingWheelExecutor(1, daemonThreads("tw-worker")));
            case "twN": return new Executor(impl, new TimingWheelExecutor(N, daemonThreads("tw-worker")));
            case "netty1ms": return new Netty(impl, 1);
            case "netty100ms": return new Netty(impl, 100);
            default: throw new IllegalArgumentException("unknown impl " + impl + ", expected one of " + ALL);
        }
    }

    private static Subject jdk(String name, int threads) {
        ScheduledThreadPoolExecutor stpe = new ScheduledThreadPoolExecutor(threads, daemonThreads(name + "-worker"));
        stpe.setRemoveOnCancelPolicy(true);
        return new Executor(name, stpe);
    }

    /** Schedules {@code job} once after {@code delayNanos}; returns the handle for {@link #cancel}. */
    abstract Object schedule(Job job, long delayNanos);

    /** Cancels what {@link #schedule} returned (without interrupting). */
    abstract void cancel(Object handle);

    /**
     * Runs {@code job} every {@code periodNanos}: {@code scheduleAtFixedRate} on the executors; Netty has no periodic
     * timeouts, so there the job re-arms itself after each run (fixed delay, as Netty users do it).
     */
    abstract void schedulePeriodic(Job job, long periodNanos);

    /**
     * Waits until {@code scheduled} tasks just handed over have reached the scheduler's own structure, so that a
     * measurement starts from a settled state (Netty moves at most 100 000 new timeouts into its wheel per tick).
     */
    void settle(long scheduled) {
        sleepMillis(100);
    }

    static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the implementation and drops whatever is pending (quickly, even with millions of tasks). */
    @Override
    public abstract void close();

    /** A factory of daemon threads, so that a benchmark JVM never waits for a forgotten scheduler. */
    static ThreadFactory daemonThreads(String prefix) {
        return r -> {
            Thread t = new Thread(r, prefix);
            t.setDaemon(true);
            return t;
        };
    }

    /** STPE or TimingWheelExecutor: both are plain {@link ScheduledExecutorService}s. */
    static final class Executor extends Subject {
        final ScheduledExecutorService executor;

        Executor(String name, ScheduledExecutorService executor) {
            super(name);
            this.executor = executor;
        }

        @Override
        Object schedule(Job job, long delayNanos) {
            return executor.schedule(job, delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        void cancel(Object handle) {
            ((ScheduledFuture<?>) handle).cancel(false);
        }

        @Override
        void schedulePeriodic(Job job, long periodNanos) {
            executor.scheduleAtFixedRate(job, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void close() {
            if (executor instanceof ScheduledThreadPoolExecutor) {
                // STPE's shutdownNow removes its queued tasks one by one (O(n log n)); clear() drops them at once.
                ((ScheduledThreadPoolExecutor) executor).getQueue().clear();
            }
            executor.shutdownNow();
            awaitQuietly(executor);
        }

        private static void awaitQuietly(ScheduledExecutorService executor) {
            try {
                executor.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Netty's {@link HashedWheelTimer} with the given tick and its default 512 buckets. */
    static final class Netty extends Subject {
        final HashedWheelTimer timer;
        final long tickMillis;

        Netty(String name, long tickMillis) {
            super(name);
            this.tickMillis = tickMillis;
            // leakDetection=false: the detector only tracks timer instances, and it needs non-daemon threads.
            this.timer = new HashedWheelTimer(daemonThreads(name), tickMillis, TimeUnit.MILLISECONDS, 512, false);
        }

        @Override
        Object schedule(Job job, long delayNanos) {
            return timer.newTimeout(job, delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        void cancel(Object handle) {
            ((Timeout) handle).cancel();
        }

        @Override
        void schedulePeriodic(Job job, long periodNanos) {
            timer.newTimeout(new TimerTask() {
                @Override
                public void run(Timeout timeout) {
                    job.run();
                    try {
                        timer.newTimeout(this, periodNanos, TimeUnit.NANOSECONDS);
                    } catch (IllegalStateException stopped) {
                        // the timer is being stopped: the series ends here
                    }
                }
            }, periodNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        void settle(long scheduled) {
            sleepMillis((scheduled / 100_000 + 3) * tickMillis);
        }

        @Override
        public void close() {
            timer.stop();
        }
    }
}
