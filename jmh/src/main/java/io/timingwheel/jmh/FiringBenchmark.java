package io.timingwheel.jmh;

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

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Firing throughput: completed tasks per second when tasks become due at once. One invocation schedules a batch of
 * {@value #BATCH} tasks with a delay of 1 ns (due at once, but not the "delay &le; 0" fast path, so each task goes
 * through the scheduler's timer structure: STPE's heap; the ForkJoinPool's and Netty's scheduler thread; for
 * TimingWheelExecutor, which hands a task due within 50 ms to its workers itself, the workers' queue) and waits until
 * all of them have run; the score counts tasks, so it is completions per second, scheduling included.
 *
 * <p>The wheels fire on tick boundaries, so a batch costs at least one tick: with a 100 ms tick (Netty's default) this
 * benchmark mostly measures the tick, which is the point of showing it. Netty also moves at most 100 000 new timeouts
 * per tick into its wheel.
 *
 * <p>Run (from the repository root, after {@code mvn -B -q -DskipTests package}):
 * <pre>{@code java -cp jmh/target/benchmarks.jar org.openjdk.jmh.Main FiringBenchmark}</pre>
 * One implementation only: add {@code -p impl=tw}; shorter: add {@code -f 1 -wi 2 -i 3 -w 1s -r 1s}.
 * On a JDK before 25 the {@code fjp1} case fails in its set-up (the ForkJoinPool schedules only since JDK 25) and
 * JMH goes on with the others; to leave it out, add {@code -p impl=jdk1,jdkN,tw,twN,netty1ms,netty100ms}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-Xmn3g", "-XX:+AlwaysPreTouch"})
@State(Scope.Benchmark)
public class FiringBenchmark {

    /** Tasks per batch: large enough that one tick of waiting is a small part of a batch at 1 ms. */
    static final int BATCH = 100_000;

    /** The implementation under test, see {@link Subject}. */
    @Param({"jdk1", "jdkN", "fjp1", "tw", "twN", "netty1ms", "netty100ms"})
    public String impl;

    Subject subject;

    /** The latch of the batch in flight; a new batch starts only once the previous one has fully run. */
    volatile CountDownLatch done;

    /** The task of every batch: it counts itself done. */
    final Subject.Job countDown = new Subject.Job() {
        @Override
        public void run() {
            done.countDown();
        }
    };

    @Setup(Level.Trial)
    public void createScheduler() {
        subject = Subject.create(impl);
    }

    @TearDown(Level.Trial)
    public void dropScheduler() {
        subject.close();
    }

    /** Schedules {@value #BATCH} tasks due at once and waits until all have run. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void fireBatch() throws InterruptedException, TimeoutException {
        CountDownLatch latch = new CountDownLatch(BATCH);
        done = latch;
        for (int i = 0; i < BATCH; i++) {
            subject.schedule(countDown, 1);
        }
        if (!latch.await(60, TimeUnit.SECONDS)) {
            throw new TimeoutException(impl + ": " + latch.getCount() + " of " + BATCH + " tasks never ran");
        }
    }
}
