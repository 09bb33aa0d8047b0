package io.timingwheel.jmh;

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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Schedule + cancel among many pending tasks with random deadlines, the case a heap is bad at. The producers first
 * schedule {@code pending} tasks (10 000 or 1 000 000 in all) with random delays between 1 s and 1 h and keep their
 * handles in a ring; one operation then cancels the oldest task of the ring and schedules a new one with a random delay
 * in the same range in its place. So the pending count stays constant, and each cancel hits a task that has long
 * settled somewhere in the structure (a heap position, a wheel slot), as when connections re-arm their timeouts.
 * {@code replace} runs one producer, {@code replaceTwoProducers} two at once (each owns half of the ring).
 *
 * <p>The random delays come from a table made before the measurement (64 Ki entries per thread), so no random number is
 * drawn inside the measured code. STPE runs with {@code setRemoveOnCancelPolicy(true)} (see {@link Subject}). Nothing
 * fires: a task lives for far less than a second before it is replaced. The pending-count curve from 1 000 to
 * 10 000 000 is the harness's job ({@code Harness curve}).
 *
 * <p>Netty with its default 100 ms tick is left out: it moves at most 100 000 new timeouts per tick (1 million per
 * second) from its queue into its wheel, cancelled ones included, so at these rates its queue grows without bound
 * until the heap is gone; it cannot sustain this workload.
 *
 * <p>Run (from the repository root, after {@code mvn -B -q -DskipTests package}):
 * <pre>{@code java -cp jmh/target/benchmarks.jar org.openjdk.jmh.Main PendingBenchmark}</pre>
 * One case only: add {@code -p impl=tw -p pending=1000000}; shorter: add {@code -f 1 -wi 2 -i 3 -w 1s -r 1s}.
 * On a JDK before 25 the {@code fjp1} case fails in its set-up (the ForkJoinPool schedules only since JDK 25) and
 * JMH goes on with the others; to leave it out, add {@code -p impl=jdk1,jdkN,tw,netty1ms}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-Xmn3g", "-XX:+AlwaysPreTouch"})
@State(Scope.Benchmark)
public class PendingBenchmark {

    /** The implementation under test, see {@link Subject}. */
    @Param({"jdk1", "jdkN", "fjp1", "tw", "netty1ms"})
    public String impl;

    /** How many tasks are pending while the operation is measured (all producers together). */
    @Param({"10000", "1000000"})
    public int pending;

    Subject subject;

    @Setup(Level.Trial)
    public void createScheduler() {
        subject = Subject.create(impl);
    }

    @TearDown(Level.Trial)
    public void dropScheduler() {
        subject.close();
    }

    /** One producer's share of the pending tasks, see {@link TaskRing}. */
    @State(Scope.Thread)
    public static class Ring {
        TaskRing ring;

        @Setup(Level.Trial)
        public void fill(PendingBenchmark benchmark, BenchmarkParams params) {
            ring = new TaskRing(ThreadLocalRandom.current().nextLong());
            ring.growTo(benchmark.subject, benchmark.pending / params.getThreads());
            benchmark.subject.settle();
        }
    }

    /** One producer cancels its oldest pending task and schedules a new one with a random delay. */
    @Benchmark
    public void replace(Ring ring) {
        ring.ring.replaceOldest(subject);
    }

    /** Two producers at once each cancel their oldest pending task and schedule a new one with a random delay. */
    @Benchmark
    @Threads(2)
    public void replaceTwoProducers(Ring ring) {
        ring.ring.replaceOldest(subject);
    }
}
