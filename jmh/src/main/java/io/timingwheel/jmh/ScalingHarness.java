package io.timingwheel.jmh;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Throughput as producer threads are added, for one implementation and one workload, measured in batches by a timed
 * loop of its own, in a JVM of its own; {@link ScaleRun} starts one per implementation and workload and makes the
 * table. Two figures per producer count, both from the same batches:
 * <ul>
 *   <li><b>producer-side</b>: the operations of a batch, all producers together, divided by the time from the first
 *       producer's start to the last producer's end: how fast callers get through their {@code schedule}/{@code
 *       cancel} calls;</li>
 *   <li><b>sustained</b>: the same operations divided by the time from the first producer's start until a barrier
 *       task has run. The barrier is scheduled ({@link Subject#barrier}, 1 ns delay, the same for every
 *       implementation) right after the last producer has finished its share, so a batch ends only when the
 *       scheduler has also taken in everything the producers handed over: a backlog left in an unbounded inbox
 *       (TimingWheelExecutor's master, the ForkJoinPool's scheduler, Netty's worker) counts. For STPE, which does
 *       all its work on the caller's thread, both figures are the same but for the barrier's own latency.</li>
 * </ul>
 * The thread that finishes last schedules the barrier (by the count of producers still running), not a driver thread
 * woken by the producers: a parked thread's wake-up would add its latency to every batch. The wheels run the barrier
 * at their next tick, so sustained includes up to one tick (1 ms) per batch; the batches are long enough (tens to
 * hundreds of milliseconds) for that to stay small.
 *
 * <p>Workloads (the arguments name them):
 * <ul>
 *   <li>{@code schedule}: {@code schedule(task, 1 h)}, the {@link ScheduleBenchmark} operation. Every task stays
 *       pending, so each batch gets a fresh scheduler, which is closed after it; a batch is a fixed number of calls
 *       for all producers together (split evenly), so the heap holds the same number of tasks at every producer
 *       count;</li>
 *   <li>{@code pending}: cancel the oldest of its pending tasks and schedule one with a random delay in [1 s, 1 h) in
 *       its place, the {@link PendingBenchmark} operation ({@link TaskRing}), among 1 000 000 pending tasks split
 *       evenly over the producers; one scheduler per producer count, filled and settled before the first batch.</li>
 * </ul>
 * A full GC runs between batches (untimed), and the young generation of the JVM flags that {@link ScaleRun} gives holds
 * one batch's allocation, so no collection falls into a batch: the figure is the cost of the calls, allocation
 * included, as in {@link ScheduleBenchmark}. Producer threads are fresh for every batch and start together on a latch;
 * their start-up spread is inside the measured time.
 *
 * <p>Per producer count: {@code warmups} batches, then {@code measured} batches (fewer, but at least
 * {@code minMeasured}, once the point has used its time budget); the figure is the median of the measured batches.
 * Each result is one line {@code RESULT scale-<workload> <impl> producers=P producerSideMops=... sustainedMops=...
 * batches=... opsPerBatch=... pending=... backlogMs=...} ({@code backlogMs}: median time from the last producer's end
 * to the barrier's run); a failed point prints a line starting with {@code ERROR} and the next point runs.
 *
 * <p>Run (from the repository root, after {@code mvn -B -q -DskipTests package}), e.g.:
 * <pre>{@code java -Xms4g -Xmx4g -Xmn3g -XX:+AlwaysPreTouch -cp jmh/target/benchmarks.jar io.timingwheel.jmh.ScalingHarness pending tw 1,2,4}</pre>
 * Add {@code --smoke} for tiny batches (a check that it works, with meaningless figures). The comparison runner
 * starts these for every implementation: {@code java -jar jmh/target/benchmarks.jar --scale}.
 */
public final class ScalingHarness {

    /** Delay of every task of the {@code schedule} workload: far enough that nothing fires during a run. */
    static final long FAR_NANOS = TimeUnit.HOURS.toNanos(1);

    /** The sizes of a run; {@link #FULL} for figures, {@link #SMOKE} to check that everything works. */
    static final class Settings {
        /** Calls of the {@code schedule} workload per batch, all producers together. */
        final int scheduleBatch;
        /** Operations (cancel + schedule) of the {@code pending} workload per batch, all producers together. */
        final int pendingBatch;
        /** Tasks pending during the {@code pending} workload, all producers together. */
        final int pending;
        final int warmups;
        final int measured;
        final int minMeasured;
        /** Once a point has spent this long, it stops after {@code minMeasured} measured batches. */
        final long budgetNanos;

        Settings(int scheduleBatch, int pendingBatch, int pending, int warmups, int measured, int minMeasured,
                 long budgetSeconds) {
            this.scheduleBatch = scheduleBatch;
            this.pendingBatch = pendingBatch;
            this.pending = pending;
            this.warmups = warmups;
            this.measured = measured;
            this.minMeasured = minMeasured;
            this.budgetNanos = TimeUnit.SECONDS.toNanos(budgetSeconds);
        }

        String describe() {
            return String.format(Locale.ROOT, "batches of %s schedule calls (schedule) and of %s cancel + schedule"
                    + " among %s pending (pending), all producers together; per producer count %d warm-up + %d"
                    + " measured batches (at least %d once a point has run %d s), median",
                    PendingCurve.spaced(scheduleBatch), PendingCurve.spaced(pendingBatch),
                    PendingCurve.spaced(pending), warmups, measured, minMeasured,
                    TimeUnit.NANOSECONDS.toSeconds(budgetNanos));
        }
    }

    /**
     * Sizes for a 16-core machine, about 10 minutes for everything: a schedule batch takes 20 ms to 1 s there (4 000 000
     * tasks, about 400 MB pending in STPE, in a 3 GB young generation), a pending batch a few tenths of a second.
     */
    static final Settings FULL = new Settings(4_000_000, 2_000_000, 1_000_000, 2, 5, 3, 25);

    /** Sizes that only check that everything works, in seconds on 2 cores. Their figures mean nothing. */
    static final Settings SMOKE = new Settings(100_000, 50_000, 100_000, 1, 2, 2, 5);

    /** How long a barrier may take before the point counts as failed (a scheduler that cannot keep up at all). */
    private static final long BARRIER_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(120);

    private ScalingHarness() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: ScalingHarness schedule|pending IMPL PRODUCERS[,PRODUCERS...] [--smoke]");
            System.exit(2);
        }
        String workload = args[0];
        String impl = args[1];
        Settings settings = args.length > 3 && args[3].equals("--smoke") ? SMOKE : FULL;
        for (String count : args[2].split(",")) {
            int producers = Integer.parseInt(count);
            try {
                Point point;
                switch (workload) {
                    case "schedule": point = schedulePoint(impl, producers, settings); break;
                    case "pending": point = pendingPoint(impl, producers, settings); break;
                    default: throw new IllegalArgumentException("unknown workload " + workload);
                }
                ChildJvm.report("scale-" + workload, impl, point.toString());
            } catch (Exception | OutOfMemoryError e) {
                System.out.println("ERROR " + workload + " " + impl + " producers=" + producers + ": " + e);
                System.out.flush();
            }
        }
        System.exit(0); // the schedulers' threads are daemons, but do not wait for anything
    }

    // ---------------------------------------------------------------------------------------------------------------
    // the two workloads

    /** {@code schedule(task, 1 h)} by {@code producers} threads, a fresh scheduler per batch. */
    static Point schedulePoint(String impl, int producers, Settings settings) {
        int[] shares = shares(settings.scheduleBatch, producers);
        Point point = new Point(producers, settings.scheduleBatch, 0);
        long start = System.nanoTime();
        for (int batch = 0; point.wantsMore(batch, settings, start); batch++) {
            Batch result = scheduleBatch(impl, shares);
            collectGarbage(); // the scheduler is unreachable by now: its millions of tasks are garbage
            point.add(batch, settings, result);
        }
        return point;
    }

    /** One batch of the {@code schedule} workload into a scheduler of its own, closed before this returns. */
    private static Batch scheduleBatch(String impl, int[] shares) {
        try (Subject subject = Subject.create(impl)) {
            subject.settle(); // its threads have started and gone idle before the clock runs
            return runBatch(subject, shares, (p, calls) -> {
                for (int i = 0; i < calls; i++) {
                    subject.schedule(Subject.NOOP, FAR_NANOS);
                }
            });
        }
    }

    /** Cancel + schedule among {@code settings.pending} pending tasks by {@code producers} threads, one ring each. */
    static Point pendingPoint(String impl, int producers, Settings settings) {
        int[] shares = shares(settings.pendingBatch, producers);
        int perRing = settings.pending / producers;
        Point point = new Point(producers, settings.pendingBatch, perRing * producers);
        try (Subject subject = Subject.create(impl)) {
            TaskRing[] rings = new TaskRing[producers];
            for (int p = 0; p < producers; p++) {
                rings[p] = new TaskRing(0x5ca1e + p);
                rings[p].growTo(subject, perRing);
            }
            subject.settle();
            long start = System.nanoTime();
            for (int batch = 0; point.wantsMore(batch, settings, start); batch++) {
                collectGarbage();
                Batch result = runBatch(subject, shares, (p, operations) -> {
                    TaskRing ring = rings[p];
                    for (int i = 0; i < operations; i++) {
                        ring.replaceOldest(subject);
                    }
                });
                point.add(batch, settings, result);
            }
        }
        return point;
    }

    /**
     * Full GCs between batches, so that a batch starts with an empty young generation. Twice, with finalization in
     * between: Netty's {@code HashedWheelTimer} has a {@code finalize()} method, so the first GC after a timer became
     * unreachable keeps it, and the millions of timeouts its queue of cancelled ones still holds, for its finalizer.
     * The pause lets the JVM's reference handler queue the finalizer before {@code runFinalization} looks for it.
     */
    static void collectGarbage() {
        System.gc();
        Subject.sleepMillis(50);
        System.runFinalization();
        System.gc();
    }

    /** {@code total} split over {@code producers} as evenly as it goes. */
    static int[] shares(int total, int producers) {
        int[] shares = new int[producers];
        for (int p = 0; p < producers; p++) {
            shares[p] = total / producers + (p < total % producers ? 1 : 0);
        }
        return shares;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // one batch

    /** What one producer does in a batch: {@code count} operations as producer number {@code producer}. */
    interface Work {
        void run(int producer, int count);
    }

    /** The times of one batch, in {@link System#nanoTime()}. */
    static final class Batch {
        final long operations;
        final long firstStart;
        final long lastEnd;
        final long barrierRan;

        Batch(long operations, long firstStart, long lastEnd, long barrierRan) {
            this.operations = operations;
            this.firstStart = firstStart;
            this.lastEnd = lastEnd;
            this.barrierRan = barrierRan;
        }

        double producerSideMops() {
            return operations * 1e3 / (lastEnd - firstStart);
        }

        double sustainedMops() {
            return operations * 1e3 / (barrierRan - firstStart);
        }

        double backlogMillis() {
            return (barrierRan - lastEnd) / 1e6;
        }
    }

    /**
     * Runs one batch: one fresh thread per share, started together; the last to finish schedules the barrier. Returns
     * when the barrier has run; throws if a producer failed or the barrier did not run in time.
     */
    static Batch runBatch(Subject subject, int[] shares, Work work) {
        int producers = shares.length;
        long[] starts = new long[producers];
        long[] ends = new long[producers];
        CountDownLatch ready = new CountDownLatch(producers);
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger(producers);
        AtomicReference<Subject.Barrier> barrier = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] threads = new Thread[producers];
        for (int p = 0; p < producers; p++) {
            int producer = p;
            threads[p] = new Thread(() -> {
                try {
                    ready.countDown();
                    go.await();
                    starts[producer] = System.nanoTime();
                    work.run(producer, shares[producer]);
                    ends[producer] = System.nanoTime();
                    if (running.decrementAndGet() == 0) {
                        barrier.set(subject.barrier());
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }, "producer-" + p);
            threads[p].setDaemon(true);
            threads[p].start();
        }
        awaitQuietly(ready);
        go.countDown();
        for (Thread thread : threads) {
            joinQuietly(thread);
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a producer failed: " + failure.get(), failure.get());
        }
        Subject.Barrier done = barrier.get();
        if (!done.await(BARRIER_TIMEOUT_NANOS)) {
            throw new IllegalStateException("the barrier task did not run within "
                    + TimeUnit.NANOSECONDS.toSeconds(BARRIER_TIMEOUT_NANOS) + " s of the producers' end");
        }
        long operations = Arrays.stream(shares).asLongStream().sum();
        return new Batch(operations, Arrays.stream(starts).min().orElseThrow(), Arrays.stream(ends).max().orElseThrow(),
                done.ranAt());
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void joinQuietly(Thread thread) {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // one producer count

    /** The measured batches of one producer count, and their medians. */
    static final class Point {
        final int producers;
        final int opsPerBatch;
        final int pending;
        final List<Batch> measured = new ArrayList<>();

        Point(int producers, int opsPerBatch, int pending) {
            this.producers = producers;
            this.opsPerBatch = opsPerBatch;
            this.pending = pending;
        }

        /** Whether batch number {@code batch} (warm-ups first) should run. */
        boolean wantsMore(int batch, Settings settings, long startNanos) {
            if (batch < settings.warmups || measured.size() < settings.minMeasured) {
                return true;
            }
            return measured.size() < settings.measured && System.nanoTime() - startNanos < settings.budgetNanos;
        }

        void add(int batch, Settings settings, Batch result) {
            if (batch >= settings.warmups) {
                measured.add(result);
            }
        }

        private double median(java.util.function.ToDoubleFunction<Batch> figure) {
            double[] values = measured.stream().mapToDouble(figure).sorted().toArray();
            int n = values.length;
            return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
        }

        @Override
        public String toString() {
            return "producers=" + producers
                    + " producerSideMops=" + Harness.fmt(median(Batch::producerSideMops))
                    + " sustainedMops=" + Harness.fmt(median(Batch::sustainedMops))
                    + " batches=" + measured.size()
                    + " opsPerBatch=" + opsPerBatch
                    + " pending=" + pending
                    + " backlogMs=" + Harness.fmt(median(Batch::backlogMillis));
        }
    }
}
