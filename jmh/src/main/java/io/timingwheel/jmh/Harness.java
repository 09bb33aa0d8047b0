package io.timingwheel.jmh;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * What JMH does not measure well, measured by hand in a JVM of its own for each implementation:
 * <ul>
 *   <li>{@code idle}: the CPU that the scheduler's own threads use while one far-off task (1 h) is pending, over a
 *       window of a few seconds, and how often they wake up (context switches of those threads, read from
 *       {@code /proc/self/task}; Linux only, else reported as -1);</li>
 *   <li>{@code memory}: retained heap bytes per pending one-shot task: the heap used after full GCs, before and after
 *       scheduling 1 000 000 tasks due in an hour (the futures are dropped: only what the scheduler keeps counts);</li>
 *   <li>{@code lateness}: how late one-shot tasks run under load: two producers schedule 200 000 tasks at an even pace
 *       over 2 s, each with a random delay in [0, 2 s); each task records when it ran minus its deadline (taken as the
 *       time just before the {@code schedule} call plus the delay, so a negative value is a certain early run).
 *       Reports p50, p99, p99.9 and max in microseconds, and the count of early runs. A smaller, unrecorded round
 *       comes first to warm the code up;</li>
 *   <li>{@code curve}: the cost of schedule + cancel (the {@link PendingBenchmark} operation: cancel the oldest of a
 *       ring of pending tasks, schedule a new one with a random delay in [1 s, 1 h) in its place) as the pending count
 *       grows 1 000, 10 000, ... 10 000 000, one producer (per count: a warm-up, then the median of three 1 s
 *       rounds), as wall time and as CPU time of the whole process per operation; the O(1) vs O(log n) curve.</li>
 * </ul>
 * Each result is one line {@code RESULT <part> <impl> key=value ...} on standard output, which
 * {@link ComparisonRunner} reads (see {@link ChildJvm}). Every implementation of {@link Subject} can do every part
 * ({@code fjp1} on JDK 25 and later).
 *
 * <p>Run (from the repository root, after {@code mvn -B -q -DskipTests package}), e.g.:
 * <pre>{@code java -Xms2g -Xmx2g -cp jmh/target/benchmarks.jar io.timingwheel.jmh.Harness idle,memory,lateness tw}</pre>
 * <pre>{@code java -Xms6g -Xmx6g -XX:+AlwaysPreTouch -cp jmh/target/benchmarks.jar io.timingwheel.jmh.Harness curve jdk1 10000000}</pre>
 * (the last argument of {@code curve} is the largest pending count; the comparison runner starts these for you.)
 */
public final class Harness {

    /** Delay of the tasks that must never fire during a measurement. */
    static final long FAR_NANOS = TimeUnit.HOURS.toNanos(1);

    private Harness() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: Harness idle,memory,lateness,curve IMPL [CURVE_MAX_PENDING]");
            System.exit(2);
        }
        String impl = args[1];
        for (String part : args[0].split(",")) {
            switch (part) {
                case "idle": idle(impl, 2_000); break;
                case "memory": memory(impl, 1_000_000); break;
                case "lateness": lateness(impl, 200_000, 2_000); break;
                case "curve": curve(impl, args.length > 2 ? Long.parseLong(args[2]) : 10_000_000L); break;
                default: throw new IllegalArgumentException("unknown part " + part);
            }
        }
        System.exit(0); // Netty's and the JDK's threads are daemons, but do not wait for anything
    }

    static String fmt(double value) {
        return String.format(Locale.ROOT, "%.3f", value);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // idle

    /** Measures the CPU time and wake-ups of the scheduler's threads over {@code windowMillis} with one far-off task. */
    static void idle(String impl, long windowMillis) throws InterruptedException {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Set<Long> javaBefore = new HashSet<>();
        for (long id : threads.getAllThreadIds()) {
            javaBefore.add(id);
        }
        Set<String> nativeBefore = new HashSet<>(nativeTasks());

        try (Subject subject = Subject.create(impl)) {
            subject.schedule(Subject.NOOP, FAR_NANOS);
            Thread.sleep(300); // let its threads start and settle

            List<Long> javaNew = new ArrayList<>();
            for (long id : threads.getAllThreadIds()) {
                if (!javaBefore.contains(id) && !isJvmThread(threads.getThreadInfo(id))) {
                    javaNew.add(id);
                }
            }
            List<String> nativeNew = new ArrayList<>();
            for (String tid : nativeTasks()) {
                if (!nativeBefore.contains(tid) && !isJvmThreadName(comm(tid))) {
                    nativeNew.add(tid);
                }
            }

            long cpu0 = cpuNanos(threads, javaNew);
            long switches0 = contextSwitches(nativeNew);
            long t0 = System.nanoTime();
            Thread.sleep(windowMillis);
            long elapsed = System.nanoTime() - t0;
            long cpu = cpuNanos(threads, javaNew) - cpu0;
            long switches = switches0 < 0 ? -1 : contextSwitches(nativeNew) - switches0;

            double seconds = elapsed / 1e9;
            ChildJvm.report("idle", impl, "threads=" + javaNew.size()
                    + " cpuMsPerSec=" + fmt(cpu / 1e6 / seconds)
                    + " wakeupsPerSec=" + (switches < 0 ? "-1" : fmt(switches / seconds)));
        }
    }

    private static boolean isJvmThread(java.lang.management.ThreadInfo info) {
        return info == null || isJvmThreadName(info.getThreadName());
    }

    /** Threads the JVM itself may start at any time (JIT compilers, GC, attach): not the scheduler's. */
    private static boolean isJvmThreadName(String name) {
        return name == null || name.contains("Compiler") || name.startsWith("C1 ") || name.startsWith("C2 ")
                || name.startsWith("G1 ") || name.startsWith("GC ") || name.startsWith("VM ")
                || name.startsWith("Attach") || name.startsWith("Sweeper") || name.startsWith("Common-Cleaner")
                || name.startsWith("Notification") || name.startsWith("Service Thread");
    }

    private static long cpuNanos(ThreadMXBean threads, List<Long> ids) {
        long sum = 0;
        for (long id : ids) {
            long t = threads.getThreadCpuTime(id);
            if (t > 0) {
                sum += t;
            }
        }
        return sum;
    }

    /** The native thread ids of this process (Linux), or none. */
    private static List<String> nativeTasks() {
        Path tasks = Path.of("/proc/self/task");
        if (!Files.isDirectory(tasks)) {
            return List.of();
        }
        try (Stream<Path> list = Files.list(tasks)) {
            return list.map(p -> p.getFileName().toString()).collect(java.util.stream.Collectors.toList());
        } catch (IOException e) {
            return List.of();
        }
    }

    private static String comm(String tid) {
        try {
            return Files.readString(Path.of("/proc/self/task", tid, "comm")).trim();
        } catch (IOException e) {
            return null;
        }
    }

    /** Voluntary + involuntary context switches of the given native threads, or -1 where /proc cannot tell. */
    private static long contextSwitches(List<String> tids) {
        if (tids.isEmpty()) {
            return -1;
        }
        long sum = 0;
        for (String tid : tids) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/self/task", tid, "status"))) {
                    if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                        sum += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                    }
                }
            } catch (IOException | NumberFormatException e) {
                return -1;
            }
        }
        return sum;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // memory

    /** Measures retained heap bytes per pending one-shot task with {@code count} tasks due in an hour. */
    static void memory(String impl, int count) {
        try (Subject subject = Subject.create(impl)) {
            subject.schedule(Subject.NOOP, FAR_NANOS); // threads and first structures exist before the baseline
            subject.settle();
            long before = usedHeapAfterGc();
            for (int i = 0; i < count; i++) {
                subject.schedule(Subject.NOOP, FAR_NANOS);
            }
            subject.settle();
            long after = usedHeapAfterGc();
            ChildJvm.report("memory", impl, "tasks=" + count
                    + " bytesPerTask=" + fmt((after - before) / (double) count));
        }
    }

    private static long usedHeapAfterGc() {
        Runtime runtime = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Subject.sleepMillis(50);
            used = Math.min(used, runtime.totalMemory() - runtime.freeMemory());
        }
        return used;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // lateness

    /** A one-shot task that records how late it ran. */
    static final class LatenessTask extends Subject.Job {
        final long[] lateness;
        final int index;
        final long deadline;
        final CountDownLatch done;

        LatenessTask(long[] lateness, int index, long deadline, CountDownLatch done) {
            this.lateness = lateness;
            this.index = index;
            this.deadline = deadline;
            this.done = done;
        }

        @Override
        public void run() {
            lateness[index] = System.nanoTime() - deadline;
            done.countDown();
        }
    }

    /**
     * Measures lateness: two producers schedule {@code count} tasks at an even pace over {@code windowMillis}, each with
     * a random delay in [0, windowMillis).
     */
    static void lateness(String impl, int count, long windowMillis) throws InterruptedException {
        try (Subject subject = Subject.create(impl)) {
            latenessRound(subject, count / 4, windowMillis / 4); // warm-up, not reported
            long[] lateness = latenessRound(subject, count, windowMillis);
            Arrays.sort(lateness);
            long early = 0;
            for (long l : lateness) {
                if (l < 0) {
                    early++;
                }
            }
            ChildJvm.report("lateness", impl, "tasks=" + count
                    + " p50us=" + fmt(percentile(lateness, 0.50) / 1e3)
                    + " p99us=" + fmt(percentile(lateness, 0.99) / 1e3)
                    + " p999us=" + fmt(percentile(lateness, 0.999) / 1e3)
                    + " maxUs=" + fmt(lateness[lateness.length - 1] / 1e3)
                    + " early=" + early);
        }
    }

    static long percentile(long[] sorted, double p) {
        int index = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    private static long[] latenessRound(Subject subject, int count, long windowMillis) throws InterruptedException {
        long[] lateness = new long[count];
        CountDownLatch done = new CountDownLatch(count);
        long window = TimeUnit.MILLISECONDS.toNanos(windowMillis);
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        Thread[] producers = new Thread[2];
        for (int p = 0; p < producers.length; p++) {
            int first = p;
            producers[p] = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
                int mine = (count - first + 1) / 2;
                for (int k = 0; k < mine; k++) {
                    long due = start + k * window / mine;
                    long wait = due - System.nanoTime();
                    if (wait > 20_000) {
                        LockSupport.parkNanos(wait);
                    }
                    long delay = random.nextLong(window);
                    int index = first + 2 * k;
                    long now = System.nanoTime();
                    subject.schedule(new LatenessTask(lateness, index, now + delay, done), delay);
                }
            }, "producer-" + p);
            producers[p].start();
        }
        for (Thread producer : producers) {
            producer.join();
        }
        if (!done.await(window / 1_000_000 + 30_000, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(subject.name + ": " + done.getCount() + " tasks never ran");
        }
        return lateness;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // curve

    /**
     * Measures schedule + cancel at pending counts 1 000, 10 000, ... up to {@code maxPending}: per count, the median
     * of three 1 s rounds of wall time per operation (the producer's view) and of CPU time of the whole process per
     * operation (every thread: the producer, the scheduler's own thread, GC; on a shared machine this one does not
     * count the time the threads wait for a core).
     */
    static void curve(String impl, long maxPending) {
        // Never closed: stopping Netty's timer with millions of timeouts takes longer than the whole measurement, and
        // the JVM exits right after this part anyway.
        Subject subject = Subject.create(impl);
        TaskRing ring = new TaskRing(42);
        for (long pending = 1_000; pending <= maxPending; pending *= 10) {
            int old = ring.size();
            ring.growTo(subject, (int) pending);
            subject.settle();
            System.gc();
            replaceFor(subject, ring, old == 0 ? 5_000 : 1_000, new double[2]); // the first count warms the code up
            double[] wall = new double[3];
            double[] cpu = new double[3];
            for (int i = 0; i < wall.length; i++) {
                double[] perOp = new double[2];
                replaceFor(subject, ring, 1_000, perOp);
                wall[i] = perOp[0];
                cpu[i] = perOp[1];
            }
            Arrays.sort(wall);
            Arrays.sort(cpu);
            ChildJvm.report("curve", impl, "pending=" + pending + " nsPerOp=" + fmt(wall[1])
                    + " cpuNsPerOp=" + fmt(cpu[1]) + " opsPerSec=" + fmt(1e9 / wall[1]));
        }
    }

    /**
     * Replaces the oldest task of the ring by a new one for about {@code millis}; puts the wall time and the process
     * CPU time per operation, in nanoseconds, into {@code perOp[0]} and {@code perOp[1]}.
     */
    private static void replaceFor(Subject subject, TaskRing ring, long millis, double[] perOp) {
        long cpuStart = processCpuNanos();
        long start = System.nanoTime();
        long end = start + TimeUnit.MILLISECONDS.toNanos(millis);
        long ops = 0;
        long now;
        do {
            for (int k = 0; k < 1024; k++) {
                ring.replaceOldest(subject);
            }
            ops += 1024;
            now = System.nanoTime();
        } while (now < end);
        perOp[0] = (now - start) / (double) ops;
        perOp[1] = (processCpuNanos() - cpuStart) / (double) ops;
    }

    /** CPU time of the whole process, in nanoseconds, or -1 if the JVM cannot tell. */
    static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return -1;
    }
}
