package io.timingwheel.jmh;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import io.timingwheel.TimingWheelExecutor;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
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
 *   <li>{@code fjp1}: {@code new ForkJoinPool(1)}, a {@link ScheduledExecutorService} since JDK 25 (one scheduler
 *       thread with a 4-ary heap, fed by a lock-free stack; one worker). The project compiles for Java 17, so the pool
 *       is reached through that interface at run time; on an older JDK {@link #available} says no and
 *       {@link #create} throws, and the comparison shows "n/a";</li>
 *   <li>{@code tw}: {@code new TimingWheelExecutor(1)} (defaults: 1 ms tick, one worker);</li>
 *   <li>{@code twN}: {@code new TimingWheelExecutor(N)};</li>
 *   <li>{@code netty1ms}: {@code new HashedWheelTimer(daemonThreads, 1, MILLISECONDS, 512, false)};</li>
 *   <li>{@code netty100ms}: the same with Netty's default 100 ms tick.</li>
 * </ul>
 * Both JDK executors run with {@code setRemoveOnCancelPolicy(true)}: with the default ({@code false}) a cancelled task
 * stays in STPE's heap until its deadline (here up to an hour), which the cancel benchmarks could not survive and which
 * no program that cancels a lot can afford. TimingWheelExecutor, the ForkJoinPool and Netty always release cancelled
 * tasks (the pool and Netty through their scheduler thread, which takes the cancellation in from a queue).
 */
abstract class Subject implements AutoCloseable {

    /** N of {@code jdkN} and {@code twN}. */
    static final int N = Math.max(2, Runtime.getRuntime().availableProcessors());

    /** Column title of every value of the {@code impl} parameter, in the order of the comparison tables. */
    static final Map<String, String> TITLES = titles();

    /** Every value of the {@code impl} parameter, in the order of the comparison tables. */
    static final List<String> ALL = List.copyOf(TITLES.keySet());

    /** The baseline of every ratio. */
    static final String BASELINE = "jdk1";

    /**
     * Whether this JDK's {@link ForkJoinPool} schedules (JDK 25 and later). Asked of the class, so that no pool is made
     * on a JDK that cannot use it.
     */
    static final boolean FORK_JOIN_SCHEDULES = ScheduledExecutorService.class.isAssignableFrom(ForkJoinPool.class);

    /**
     * Delay of a barrier task ({@link #barrier}): 1 ns for every implementation, the shortest that each of them puts
     * through its timer structure (TimingWheelExecutor's barrier waits for its master first, see {@link TimingWheel}).
     */
    static final long BARRIER_DELAY_NANOS = 1;

    private static Map<String, String> titles() {
        Map<String, String> titles = new LinkedHashMap<>();
        titles.put("jdk1", "STPE(1)");
        titles.put("jdkN", "STPE(" + N + ")");
        titles.put("fjp1", "ForkJoinPool(1)");
        titles.put("tw", "TW");
        titles.put("twN", "TW(" + N + ")");
        titles.put("netty1ms", "Netty 1 ms");
        titles.put("netty100ms", "Netty 100 ms");
        return titles;
    }

    /** The column title of {@code impl}. */
    static String title(String impl) {
        return TITLES.getOrDefault(impl, impl);
    }

    /** Whether {@code impl} can run on this JDK (all but {@code fjp1} before JDK 25). */
    static boolean available(String impl) {
        return !impl.equals("fjp1") || FORK_JOIN_SCHEDULES;
    }

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

    /**
     * Creates the implementation named {@code impl} (one of {@link #ALL}).
     *
     * @throws UnsupportedOperationException for {@code fjp1} on a JDK before 25 (a JMH run reports that one parameter
     *         combination as failed and goes on with the others)
     */
    static Subject create(String impl) {
        switch (impl) {
            case "jdkN": return create("jdk1", N);
            case "twN": return create("tw", N);
            default: return create(impl, 1);
        }
    }

    /**
     * Creates the implementation named {@code impl} with {@code workers} threads that run tasks: STPE, the
     * ForkJoinPool and TimingWheelExecutor get that many; Netty's timer runs every task on its one thread whatever the
     * count. {@code jdkN} and {@code twN} take the count from their name.
     */
    static Subject create(String impl, int workers) {
        switch (impl) {
            case "jdk1": return new Jdk(impl, workers);
            case "jdkN": return new Jdk(impl, N);
            case "fjp1": return new Executor(impl, forkJoinPool(workers));
            case "tw": return new TimingWheel(impl, new TimingWheelExecutor(workers, daemonThreads("tw-worker")));
            case "twN": return new TimingWheel(impl, new TimingWheelExecutor(N, daemonThreads("tw-worker")));
            case "netty1ms": return new Netty(impl, 1);
            case "netty100ms": return new Netty(impl, 100);
            default: throw new IllegalArgumentException("unknown impl " + impl + ", expected one of " + ALL);
        }
    }

    /**
     * A {@code new ForkJoinPool(parallelism)} as the {@link ScheduledExecutorService} it is since JDK 25. Made as an
     * {@code Object} and cast at run time: the project compiles against Java 17's API, where the pool does not
     * implement the interface. Its threads are daemons (the pool's default factory).
     */
    private static ScheduledExecutorService forkJoinPool(int parallelism) {
        if (!FORK_JOIN_SCHEDULES) {
            throw new UnsupportedOperationException("fjp1 needs JDK 25 or later (ForkJoinPool implements"
                    + " ScheduledExecutorService since 25); this is " + System.getProperty("java.version"));
        }
        Object pool = new ForkJoinPool(parallelism);
        return (ScheduledExecutorService) pool;
    }

    /** Schedules {@code job} once after {@code delayNanos}; returns the handle for {@link #cancel}. */
    abstract Object schedule(Job job, long delayNanos);

    /** Runs {@code job} as soon as it can: {@code execute} on the executors, a timeout of 0 on Netty. */
    abstract void execute(Job job);

    /** Cancels what {@link #schedule} returned (without interrupting). */
    abstract void cancel(Object handle);

    /**
     * Runs {@code job} every {@code periodNanos}: {@code scheduleAtFixedRate} on the executors; Netty has no periodic
     * timeouts, so there the job re-arms itself after each run (fixed delay, as Netty users do it).
     */
    abstract void schedulePeriodic(Job job, long periodNanos);

    /**
     * Waits until every task handed over so far has reached the scheduler's own structure, so that a measurement starts
     * from a settled state: a {@link #barrier} has run (the thread-fed schedulers take their inbox in order, and Netty
     * moves at most 100 000 new timeouts into its wheel per tick), then 100 ms for the scheduler's threads to go idle.
     */
    void settle() {
        Barrier barrier = barrier();
        if (!barrier.await(TimeUnit.MINUTES.toNanos(2))) {
            throw new IllegalStateException(name + ": the settling barrier task did not run within 2 minutes");
        }
        sleepMillis(100);
    }

    /**
     * Schedules a barrier task with {@link #BARRIER_DELAY_NANOS}. It goes through the same path as every task before
     * it: where a scheduler thread takes tasks in from a queue (TimingWheelExecutor's master, the ForkJoinPool's
     * scheduler, Netty's worker), it runs only after that thread has taken in everything queued before it, so the time
     * it ran marks the end of any backlog. STPE takes tasks in on the caller's thread, so its barrier runs at once.
     */
    Barrier barrier() {
        Barrier barrier = new Barrier();
        schedule(barrier, BARRIER_DELAY_NANOS);
        return barrier;
    }

    /** A task that records when it ran and lets a thread wait for that. */
    static final class Barrier extends Job {
        private final CountDownLatch ran = new CountDownLatch(1);
        private volatile long ranAt;

        @Override
        public void run() {
            ranAt = System.nanoTime();
            ran.countDown();
        }

        /** Waits up to {@code timeoutNanos} for the run; true if it ran. */
        boolean await(long timeoutNanos) {
            try {
                return ran.await(timeoutNanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        /** {@link System#nanoTime()} when it ran (valid once {@link #await} returned true). */
        long ranAt() {
            return ranAt;
        }
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

    /**
     * A plain {@link ScheduledExecutorService}: the ForkJoinPool, and (through {@link Jdk} and {@link TimingWheel})
     * STPE and TimingWheelExecutor. Its calls never ask what class the executor is: TimingWheelExecutor extends STPE,
     * and STPE's own shortcut must not apply to it; only the barrier differs per subclass.
     */
    static class Executor extends Subject {
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
        void execute(Job job) {
            executor.execute(job);
        }

        @Override
        void cancel(Object handle) {
            ((ScheduledFuture<?>) handle).cancel(false);
        }

        @Override
        void schedulePeriodic(Job job, long periodNanos) {
            executor.scheduleAtFixedRate(job, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
        }

        /**
         * {@code shutdownNow}, then up to 10 s for termination. TimingWheelExecutor returns the pending tasks in a list
         * (O(n)); the ForkJoinPool returns nothing and its scheduler thread cancels the pending tasks one by one (O(n),
         * after taking in what is still on its stack); the threads are daemons either way, so a slow end only delays
         * the next step, never the JVM's exit.
         */
        @Override
        public void close() {
            executor.shutdownNow();
            try {
                executor.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A TimingWheelExecutor. Its barrier first waits for the master to have taken in everything: a task due within
     * 50 ms goes to the workers straight, past the master's inbox, so a barrier of 1 ns alone would not mark the end of
     * a backlog there. {@code getQueue().size()} answers only once the master has drained its inbox.
     */
    static final class TimingWheel extends Executor {
        TimingWheel(String name, TimingWheelExecutor executor) {
            super(name, executor);
        }

        @Override
        Barrier barrier() {
            ((TimingWheelExecutor) executor).getQueue().size();
            return super.barrier();
        }
    }

    /** {@code new ScheduledThreadPoolExecutor(threads)} with {@code setRemoveOnCancelPolicy(true)}. */
    static final class Jdk extends Executor {
        private final ScheduledThreadPoolExecutor stpe;

        Jdk(String name, int threads) {
            this(name, new ScheduledThreadPoolExecutor(threads, daemonThreads(name + "-worker")));
        }

        private Jdk(String name, ScheduledThreadPoolExecutor stpe) {
            super(name, stpe);
            this.stpe = stpe;
            stpe.setRemoveOnCancelPolicy(true);
        }

        @Override
        public void close() {
            // STPE's shutdownNow removes its queued tasks one by one (O(n log n)); clear() drops them at once.
            stpe.getQueue().clear();
            super.close();
        }
    }

    /** Netty's {@link HashedWheelTimer} with the given tick and its default 512 buckets. */
    static final class Netty extends Subject {
        /** The timer; null once closed (see {@link #close}). */
        private HashedWheelTimer timer;

        Netty(String name, long tickMillis) {
            super(name);
            // leakDetection=false: the detector only tracks timer instances, and it needs non-daemon threads.
            this.timer = new HashedWheelTimer(daemonThreads(name), tickMillis, TimeUnit.MILLISECONDS, 512, false);
        }

        @Override
        Object schedule(Job job, long delayNanos) {
            return timer.newTimeout(job, delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        void execute(Job job) {
            timer.newTimeout(job, 0, TimeUnit.NANOSECONDS);
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

        /**
         * {@code stop()}: with millions of timeouts pending this takes seconds, as it cancels each one and returns them
         * in a new set; the timer also keeps them in a set of its own, so it is dropped here, and the timeouts become
         * garbage even while this subject is still referenced.
         */
        @Override
        public void close() {
            timer.stop();
            timer = null;
        }
    }
}
