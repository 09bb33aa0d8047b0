package io.timingwheel.jmh;

import io.timingwheel.TimingWheelExecutor;
import io.timingwheel.VirtualClock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.Disposable;
import reactor.test.scheduler.VirtualTimeScheduler;

import java.time.Duration;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Simulated time: the real time a run costs when a test moves the clock, {@link VirtualClock} driving the executor
 * (its own worker threads, {@code workers} of them) against Reactor's {@code VirtualTimeScheduler}, which runs its
 * tasks on the thread that advances it. The score is microseconds of real time per run (lower is better), over three
 * workloads a test suite of a service with heartbeats, leases and retries simulates:
 * <ul>
 *   <li>{@link #heartbeat}: a 1 ms fixed-rate task, time advanced by 1 s per call (1 000 runs);</li>
 *   <li>{@link #heartbeatByTheMillisecond}: the same task, time advanced by 1 ms per call (one run per call);</li>
 *   <li>{@link #oneShots}: {@value #ONE_SHOTS} one-shot timers with delays uniform over an hour, scheduled before each
 *       call (not timed), then the hour advanced in one call;</li>
 *   <li>{@link #chain}: a chain of {@value #CHAIN} runs, each scheduling the next 1 ms on, advanced in one call.</li>
 * </ul>
 * Reactor's scheduler has no threads, so its {@code workers} cases are one and the same; nor has {@code floor}
 * ({@link HandOffFloor}) more than one: it is the least any scheduler pays whose tasks run on a thread of its own.
 *
 * <p>Run (from the repository root, after {@code mvn -B -q -DskipTests package}):
 * <pre>{@code java -cp jmh/target/benchmarks.jar org.openjdk.jmh.Main VirtualTimeBenchmark}</pre>
 * about 2 minutes; one implementation only: add {@code -p impl=tw}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class VirtualTimeBenchmark {

    static final int HEARTBEAT_RUNS = 1_000;
    static final int ONE_SHOTS = 10_000;
    static final int CHAIN = 20_000;
    static final long HOUR_NANOS = TimeUnit.HOURS.toNanos(1);

    /** A scheduler on simulated time, as the workloads use it. */
    interface SimulatedTime extends AutoCloseable {
        void schedule(Runnable task, long delayNanos);

        void scheduleAtFixedRate(Runnable task, long periodNanos);

        void advance(long nanos);

        @Override
        void close();
    }

    /** The executor on a {@link VirtualClock}. */
    static final class OnVirtualClock implements SimulatedTime {
        private final VirtualClock clock = new VirtualClock();
        private final TimingWheelExecutor executor;

        OnVirtualClock(int workers) {
            executor = TimingWheelExecutor.builder().clock(clock).workerThreads(workers).build();
        }

        @Override
        public void schedule(Runnable task, long delayNanos) {
            executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void scheduleAtFixedRate(Runnable task, long periodNanos) {
            executor.scheduleAtFixedRate(task, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void advance(long nanos) {
            clock.advance(nanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void close() {
            executor.shutdownNow();
            try {
                if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the executor did not terminate");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Reactor's {@code VirtualTimeScheduler}: its tasks run on the advancing thread. */
    static final class OnReactor implements SimulatedTime {
        private final VirtualTimeScheduler scheduler = VirtualTimeScheduler.create();

        @Override
        public void schedule(Runnable task, long delayNanos) {
            scheduler.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void scheduleAtFixedRate(Runnable task, long periodNanos) {
            Disposable ignored = scheduler.schedulePeriodically(task, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void advance(long nanos) {
            scheduler.advanceTimeBy(Duration.ofNanos(nanos));
        }

        @Override
        public void close() {
            scheduler.dispose();
        }
    }

    /**
     * The least a scheduler pays whose tasks run on a thread of its own, not on the advancing one (as the executor's
     * do): one worker thread, a heap of tasks under one lock, and per advance one wake-up of the worker and one of the
     * advancer. No executor semantics (no cancel, no shutdown policy, no counts, no real-time limit): a floor for
     * comparing the executor against the advancing-thread design of Reactor, not a scheduler to use.
     */
    static final class HandOffFloor implements SimulatedTime {
        private record Entry(long deadline, long sequence, long period, Runnable task) implements Comparable<Entry> {
            @Override
            public int compareTo(Entry other) {
                int byDeadline = Long.compare(deadline, other.deadline);
                return byDeadline != 0 ? byDeadline : Long.compare(sequence, other.sequence);
            }
        }

        private final ReentrantLock lock = new ReentrantLock();
        private final Condition advanceAsked = lock.newCondition();
        private final Condition advanceDone = lock.newCondition();
        private final PriorityQueue<Entry> queue = new PriorityQueue<>();
        private final Thread worker = new Thread(this::work, "hand-off-floor");
        private long time;
        private long sequence;
        /** The time the advance under way moves to, or -1 when none is. Under the lock. */
        private long target = -1;
        private boolean closed;

        HandOffFloor() {
            worker.setDaemon(true);
            worker.start();
        }

        @Override
        public void schedule(Runnable task, long delayNanos) {
            add(task, delayNanos, 0);
        }

        @Override
        public void scheduleAtFixedRate(Runnable task, long periodNanos) {
            add(task, periodNanos, periodNanos);
        }

        private void add(Runnable task, long delayNanos, long periodNanos) {
            lock.lock();
            try {
                queue.add(new Entry(time + delayNanos, sequence++, periodNanos, task));
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void advance(long nanos) {
            lock.lock();
            try {
                target = time + nanos;
                advanceAsked.signal();
                while (target >= 0) {
                    advanceDone.awaitUninterruptibly();
                }
            } finally {
                lock.unlock();
            }
        }

        private void work() {
            lock.lock();
            try {
                for (;;) {
                    while (target < 0 && !closed) {
                        advanceAsked.awaitUninterruptibly();
                    }
                    if (closed) {
                        return;
                    }
                    for (Entry head = queue.peek(); head != null && head.deadline <= target; head = queue.peek()) {
                        queue.poll();
                        time = head.deadline;
                        lock.unlock();
                        try {
                            head.task.run();
                        } finally {
                            lock.lock();
                        }
                        if (head.period > 0) {
                            queue.add(new Entry(head.deadline + head.period, sequence++, head.period, head.task));
                        }
                    }
                    time = target;
                    target = -1;
                    advanceDone.signal();
                }
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void close() {
            lock.lock();
            try {
                closed = true;
                advanceAsked.signal();
            } finally {
                lock.unlock();
            }
        }
    }

    /** One scheduler for the whole trial, and the counts each workload checks its runs by. */
    @State(Scope.Benchmark)
    public static class Simulation {
        /**
         * {@code tw}: the executor on a virtual clock; {@code reactor}: Reactor's VirtualTimeScheduler;
         * {@code floor}: {@link HandOffFloor}, the least a scheduler whose tasks run on a thread of its own pays.
         */
        @Param({"tw", "reactor", "floor"})
        public String impl;

        /** The executor's worker threads (Reactor has none). */
        @Param({"1", "2"})
        public int workers;

        SimulatedTime time;
        /** Runs of the current workload; written by the runs, read by the benchmark thread after an advance. */
        volatile long runs;
        private final SplittableRandom random = new SplittableRandom(42);
        private boolean heartbeatStarted;

        @Setup(Level.Trial)
        public void start() {
            time = switch (impl) {
                case "tw" -> new OnVirtualClock(workers);
                case "reactor" -> new OnReactor();
                case "floor" -> new HandOffFloor();
                default -> throw new IllegalArgumentException("impl: tw, reactor or floor, not " + impl);
            };
        }

        /** Starts the heartbeat once, on the first call of {@link #heartbeat}. */
        void startHeartbeat() {
            if (!heartbeatStarted) {
                heartbeatStarted = true;
                time.scheduleAtFixedRate(this::countRun, TimeUnit.MILLISECONDS.toNanos(1));
            }
        }

        void countRun() {
            runs++; // one run at a time: every workload runs its tasks one after another
        }

        /** Each run of the chain counts itself and schedules the next, until {@link #CHAIN} have run. */
        void chainLink() {
            if (++runs % CHAIN != 0) {
                time.schedule(this::chainLink, TimeUnit.MILLISECONDS.toNanos(1));
            }
        }

        void checkRuns(long expected) {
            if (runs != expected) {
                throw new IllegalStateException(impl + ": " + runs + " runs, expected " + expected);
            }
        }

        @TearDown(Level.Trial)
        public void stop() {
            time.close();
        }
    }

    /** The one-shot timers of the next call, scheduled before it. */
    @State(Scope.Thread)
    public static class OneShots {
        long runsBefore;

        @Setup(Level.Invocation)
        public void schedule(Simulation s) {
            runsBefore = s.runs;
            for (int i = 0; i < ONE_SHOTS; i++) {
                s.time.schedule(s::countRun, 1 + s.random.nextLong(HOUR_NANOS));
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(HEARTBEAT_RUNS)
    public void heartbeat(Simulation s) {
        s.startHeartbeat();
        long before = s.runs;
        s.time.advance(TimeUnit.SECONDS.toNanos(1));
        s.checkRuns(before + HEARTBEAT_RUNS);
    }

    /**
     * The same heartbeat, time advanced by 1 ms per call: one run per advance, as a test that steps time finely and
     * looks after each step pays; the score is per advance, so what a single advance costs beyond its run shows.
     */
    @Benchmark
    public void heartbeatByTheMillisecond(Simulation s) {
        s.startHeartbeat();
        long before = s.runs;
        s.time.advance(TimeUnit.MILLISECONDS.toNanos(1));
        s.checkRuns(before + 1);
    }

    @Benchmark
    @OperationsPerInvocation(ONE_SHOTS)
    public void oneShots(Simulation s, OneShots shots) {
        s.time.advance(HOUR_NANOS);
        s.checkRuns(shots.runsBefore + ONE_SHOTS);
    }

    @Benchmark
    @OperationsPerInvocation(CHAIN)
    public void chain(Simulation s) {
        long before = s.runs;
        s.time.schedule(s::chainLink, TimeUnit.MILLISECONDS.toNanos(1));
        s.time.advance(TimeUnit.MILLISECONDS.toNanos(CHAIN));
        s.checkRuns(before + CHAIN);
    }
}
