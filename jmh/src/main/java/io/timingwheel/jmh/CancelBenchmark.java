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

import java.util.concurrent.TimeUnit;

/**
 * Schedule-then-cancel throughput on an otherwise empty scheduler: one operation schedules a task due in an hour and
 * cancels it at once (the timeout that did not expire, the most common use of a timer). {@code scheduleThenCancel}
 * runs one producer, {@code scheduleThenCancelTwoProducers} two at once.
 *
 * <p>STPE runs with {@code setRemoveOnCancelPolicy(true)} (see {@link Subject}), so each cancel removes the task from
 * its heap under the lock, and nothing accumulates; the scheduler lives for the whole trial.
 *
 * <p>Netty with its default 100 ms tick is left out: it moves at most 100 000 new timeouts per tick (1 million per
 * second) from its queue into its wheel, cancelled ones included, so at these rates its queue grows without bound
 * until the heap is gone; it cannot sustain this workload.
 *
 * <p>Run (from the repository root, after {@code mvn -B -q -DskipTests package}):
 * <pre>{@code java -cp jmh/target/benchmarks.jar org.openjdk.jmh.Main CancelBenchmark}</pre>
 * One implementation only: add {@code -p impl=tw}; shorter: add {@code -f 1 -wi 2 -i 3 -w 1s -r 1s}.
 * On a JDK before 25 the {@code fjp1} case fails in its set-up (the ForkJoinPool schedules only since JDK 25) and
 * JMH goes on with the others; to leave it out, add {@code -p impl=jdk1,jdkN,tw,netty1ms}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-Xmn3g", "-XX:+AlwaysPreTouch"})
@State(Scope.Benchmark)
public class CancelBenchmark {

    /** The implementation under test, see {@link Subject}. */
    @Param({"jdk1", "jdkN", "fjp1", "tw", "netty1ms"})
    public String impl;

    Subject subject;

    @Setup(Level.Trial)
    public void createScheduler() {
        subject = Subject.create(impl);
    }

    @TearDown(Level.Trial)
    public void dropScheduler() {
        subject.close();
    }

    /** One producer schedules a task due in an hour and cancels it. */
    @Benchmark
    public void scheduleThenCancel() {
        subject.cancel(subject.schedule(Subject.NOOP, ScheduleBenchmark.DELAY_NANOS));
    }

    /** Two producers each schedule a task due in an hour and cancel it, into the same scheduler at once. */
    @Benchmark
    @Threads(2)
    public void scheduleThenCancelTwoProducers() {
        subject.cancel(subject.schedule(Subject.NOOP, ScheduleBenchmark.DELAY_NANOS));
    }
}
