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
 * The cost of {@code schedule} with one fixed, long delay (one hour, so nothing fires): {@code schedule} from one
 * producer thread, {@code scheduleTwoProducers} from two at once. This is STPE's best case: every new deadline is the
 * latest, so its heap never sifts.
 *
 * <p>Every scheduled task stays pending, so memory is bounded by construction: each iteration is one shot of
 * {@value #BATCH} schedules per producer thread into a scheduler made for that iteration, which is then stopped and
 * collected. The young generation (3 GB, the same JVM flags for every implementation and benchmark) holds one
 * iteration's tasks, so the GC does not copy a million live tasks in the middle of a measurement: the score is the cost
 * of {@code schedule} itself, allocation included. What holding tasks costs is the harness's bytes-per-pending-task
 * figure. (Letting tasks pile up for a whole timed iteration instead makes the figure mostly GC copying, and makes
 * Netty's {@code stop()}, which puts every pending timeout into a HashSet, take longer than the run.)
 *
 * <p>Every benchmark's fork runs with {@code -XX:+AlwaysPreTouch}: the JVM touches its whole heap at start-up
 * (about 2 s for 4 GB here). Without it, allocation runs into pages the kernel has never mapped until the young
 * generation has been used once, and every first touch of a 4 KB page costs a page fault; measured with a scratch
 * harness on the pending workload, the producer took 155 instead of 57 ns per operation for the seconds that lasted,
 * which made single iterations of every implementation swing threefold.
 *
 * <p>The score is the time of one shot per producer thread, in milliseconds per {@value #BATCH} calls, which reads as
 * nanoseconds per {@code schedule} call; the comparison runner turns it into schedules per second (producers &times;
 * {@value #BATCH} / time of a shot).
 *
 * <p>Run (from the repository root, after {@code mvn -B -q -DskipTests package}):
 * <pre>{@code java -cp jmh/target/benchmarks.jar org.openjdk.jmh.Main ScheduleBenchmark}</pre>
 * One implementation only: add {@code -p impl=tw}.
 * On a JDK before 25 the {@code fjp1} case fails in its set-up (the ForkJoinPool schedules only since JDK 25) and
 * JMH goes on with the others; to leave it out, add {@code -p impl=jdk1,jdkN,tw,netty1ms,netty100ms}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, batchSize = ScheduleBenchmark.BATCH)
@Measurement(iterations = 10, batchSize = ScheduleBenchmark.BATCH)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-Xmn3g", "-XX:+AlwaysPreTouch"})
@State(Scope.Benchmark)
public class ScheduleBenchmark {

    /** Schedules per producer thread and iteration. */
    static final int BATCH = 1_000_000;

    /** One hour: far enough that nothing fires during a run. */
    static final long DELAY_NANOS = TimeUnit.HOURS.toNanos(1);

    /** The implementation under test, see {@link Subject}. */
    @Param({"jdk1", "jdkN", "fjp1", "tw", "netty1ms", "netty100ms"})
    public String impl;

    Subject subject;

    @Setup(Level.Iteration)
    public void createScheduler() {
        subject = Subject.create(impl);
    }

    @TearDown(Level.Iteration)
    public void dropScheduler() {
        subject.close();
        subject = null;
        System.gc();
    }

    /** One producer schedules a task due in an hour. */
    @Benchmark
    public Object schedule() {
        return subject.schedule(Subject.NOOP, DELAY_NANOS);
    }

    /** Two producers schedule tasks due in an hour into the same scheduler at once. */
    @Benchmark
    @Threads(2)
    public Object scheduleTwoProducers() {
        return subject.schedule(Subject.NOOP, DELAY_NANOS);
    }
}
