package io.timingwheel.jmh;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Many periodic tasks running: {@code tasks} (10 000) tasks at a fixed rate of one run per millisecond each, i.e. 10
 * million runs per second asked for, more than two cores can give, so the score is the most periodic runs per second
 * the scheduler sustains (each run: dispatch, the task, computing and re-inserting its next deadline).
 *
 * <p>The score is the secondary result {@code runs} (runs per second, an {@link AuxCounters} counter); the primary
 * score only counts how often the benchmark thread looked at the counter (it sleeps 1 ms in between, leaving the cores
 * to the scheduler). Netty has no periodic timeouts: there each run re-arms its timeout (fixed delay), as Netty users
 * do. Netty's 100 ms tick cannot run a 1 ms period and is left out.
 *
 * <p>Run (from the repository root, after {@code mvn -B -q -DskipTests package}):
 * <pre>{@code java -cp jmh/target/benchmarks.jar org.openjdk.jmh.Main PeriodicBenchmark}</pre>
 * One implementation only: add {@code -p impl=tw}; shorter: add {@code -f 1 -wi 2 -i 3 -w 1s -r 1s}.
 * On a JDK before 25 the {@code fjp1} case fails in its set-up (the ForkJoinPool schedules only since JDK 25) and
 * JMH goes on with the others; to leave it out, add {@code -p impl=jdk1,jdkN,tw,twN,netty1ms}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-Xmn3g", "-XX:+AlwaysPreTouch"})
public class PeriodicBenchmark {

    /** The period of every task. */
    static final long PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** The scheduler with its periodic tasks, shared by the whole trial. */
    @State(Scope.Benchmark)
    public static class Scheduler {
        /** The implementation under test, see {@link Subject}. */
        @Param({"jdk1", "jdkN", "fjp1", "tw", "twN", "netty1ms"})
        public String impl;

        /** How many periodic tasks run. */
        @Param({"10000"})
        public int tasks;

        final LongAdder runs = new LongAdder();
        Subject subject;

        @Setup(Level.Trial)
        public void start() {
            subject = Subject.create(impl);
            Subject.Job job = new Subject.Job() {
                @Override
                public void run() {
                    runs.increment();
                }
            };
            for (int i = 0; i < tasks; i++) {
                subject.schedulePeriodic(job, PERIOD_NANOS);
            }
        }

        @TearDown(Level.Trial)
        public void stop() {
            subject.close();
        }
    }

    /** The runs seen during the current iteration, reported by JMH as a rate. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Runs {
        /** Periodic runs completed in this iteration (JMH divides it by the iteration's time). */
        public long runs;
        private long seen;

        @Setup(Level.Iteration)
        public void reset(Scheduler scheduler) {
            runs = 0;
            seen = scheduler.runs.sum();
        }

        void update(Scheduler scheduler) {
            long now = scheduler.runs.sum();
            runs += now - seen;
            seen = now;
        }
    }

    /** Takes in the runs since the last look, then sleeps 1 ms. */
    @Benchmark
    public void periodic(Scheduler scheduler, Runs runs) {
        runs.update(scheduler);
        LockSupport.parkNanos(PERIOD_NANOS);
    }
}
