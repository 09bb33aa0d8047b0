package io.timingwheel.jmh;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * How late tasks run in the workloads where a timer is judged first, measured by hand in a JVM of its own per
 * implementation (and per part where the JVM must be fresh): the tail a user sees who swaps
 * {@code new ScheduledThreadPoolExecutor(n)} for another scheduler. Each task records when it started minus when it
 * was due, taken as the time just before the call that handed it over plus its delay, so a negative figure is a
 * certain early run. Executors are made as a user makes them: fresh, no thread prestarted.
 * <ul>
 *   <li>{@code burst}: one thread schedules {@value #BURST_TASKS} one-shot timers as fast as it can, delays uniform in
 *       [0, 2 s); lateness by delay band: under 50 ms (the timers due while the burst is still being handed over),
 *       50-200 ms, 200 ms-2 s (steady firing). {@value #WARM_UP_ROUNDS} bursts of the same size and delays, each
 *       on an executor of its own, warm the code up first; each line also gives how long the producer's loop of
 *       calls took ({@code scheduleMs}), what the burst cost its caller;</li>
 *   <li>{@code cold}: the same as the first thing a fresh JVM does: {@value #COLD_TASKS} timers, delays in
 *       [0, 500 ms), no warm-up;</li>
 *   <li>{@code duenow WORKERS}: tasks due at once ({@code execute}) among firing timers: one thread executes a task,
 *       parks 20 µs, and so on, while another schedules a timer every 50 µs (about 20 per ms) with a delay uniform in
 *       [1, 6 ms); lateness of the executed tasks from the call to their start, and of the timers (a line of their
 *       own, {@code duenow-timers}) from their deadlines, after a warm-up of {@value #DUE_NOW_WARMUP_MILLIS} ms, over
 *       {@value #DUE_NOW_MILLIS} ms;</li>
 *   <li>{@code heartbeat}: a 1 ms fixed-rate task while another thread schedules a burst as above; the lateness of its
 *       runs (start minus {@code start + n * period}) from the burst's first call until 2.5 s later. Netty has no fixed
 *       rate: not measured for it;</li>
 *   <li>{@code firing WORKERS}: the firing rate: as many producer threads as workers schedule tasks due at once (a
 *       delay of 1 ns, so each goes through the scheduler's timer structure), {@value #FIRING_BATCH} per batch all
 *       together, and the batch ends when all have run; tasks completed per second, the median of
 *       {@value #FIRING_MEASURED} batches after {@value #FIRING_WARMUPS} warm-up ones;</li>
 *   <li>{@code steady WORKERS PER_MS}: what steady firing costs: {@code PER_MS} timers a millisecond (default
 *       {@value #STEADY_DEFAULT_PER_MS}) fall due over {@value #STEADY_WINDOW_MILLIS} ms, deadlines uniform, all
 *       scheduled before the first falls due; the process's CPU time over the window but its first and last
 *       {@value #STEADY_EDGE_MILLIS} ms, as a percentage of one core ({@code cpuPct}: the scheduler's threads, and what
 *       else the JVM does meanwhile), and the timers' lateness, in band {@code <PER_MS>perMs}. Measured on a fresh
 *       executor after {@value #WARM_UP_ROUNDS} rounds of the same on executors of their own.</li>
 *   <li>{@code rate WORKERS PER_MS}: what firing at a steady rate costs its host, as a service's timeouts do: one
 *       thread schedules {@code PER_MS} timers at the start of every millisecond, delays uniform in [5, 50 ms), and
 *       sleeps until the next; {@value #RATE_WARMUP_MILLIS} ms of that (longer at low rates: until
 *       {@value #RATE_WARMUP_TIMERS} timers have fired), then {@value #RATE_MEASURED_MILLIS} ms measured, on one
 *       executor. The process's CPU time over the measured window as a percentage of one core
 *       ({@code cpuPct}; the producer's and the JVM's own included, the same for every implementation), that time
 *       per timer falling due in the window ({@code cpuUsPerTimer}), and those timers' lateness.</li>
 *   <li>{@code calls WORKERS}: how long a caller spends inside {@code schedule} on an overloaded machine: two threads
 *       schedule {@value #CALLS_PER_PRODUCER} timers each as fast as they can (delays uniform in [0, 1 s)) while a
 *       third spins on its own; the time of each call, in a round after a warm-up round on an executor of its own
 *       (the percentiles stand for the calls' times, not for lateness; {@code over50us} counts the calls longer than
 *       50 µs).</li>
 *   <li>{@code external 1 PER_SECOND KIND}: timers whose tasks block on an executor of the user's (one virtual thread
 *       per task, or a pool of four threads): {@link ExternalTimers}.</li>
 *   <li>{@code first}: what the first calls of a fresh JVM cost, the executor's making and its first schedules:
 *       {@link FirstCalls}.</li>
 * </ul>
 * Every part runs the executor with {@code WORKERS} threads (default 1; {@code burst}, {@code cold}, {@code duenow}
 * and {@code firing} take it). Each result is one line {@code RESULT <part> <impl> band=... workers=... n=...
 * p50us=... p99us=... p999us=... maxUs=... early=... gcs=... jitMs=...} (the garbage collections in the measured window
 * and the milliseconds the JIT spent compiling in it: {@link WindowCounters}) ({@code firing}: {@code workers=... producers=...
 * tasksPerSec=...}) on standard output (see {@link ChildJvm}).
 *
 * <p>Run (from the repository root, after {@code mvn -B -q -DskipTests package}), e.g.:
 * <pre>{@code java -Xms3g -Xmx3g -Xmn2g -cp jmh/target/benchmarks.jar io.timingwheel.jmh.OnTimeHarness burst tw}</pre>
 * <pre>{@code java -Xms3g -Xmx3g -Xmn2g -cp jmh/target/benchmarks.jar io.timingwheel.jmh.OnTimeHarness duenow jdk1 4}</pre>
 */
public final class OnTimeHarness {

    static final int BURST_TASKS = 200_000;
    static final long BURST_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(2);
    static final int COLD_TASKS = 50_000;
    static final long COLD_WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    static final long DUE_NOW_WARMUP_MILLIS = 2_000;
    static final long DUE_NOW_MILLIS = 3_000;
    static final long HEARTBEAT_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * Full-size warm-up bursts before a measured one, each on an executor of its own: the JIT compiles the code of a
     * run, recompiles what a fresh executor's first calls take (its threads starting, its structures made) that the
     * first one's went through before any profile existed, and compiles the master's loop, which runs once per turn
     * rather than once per task and reaches the top tier only in the third burst (measured with
     * {@code -XX:+PrintCompilation}: with two, the C2 compiler thread took 3-5 ms of a core in the windows where the
     * measured burst's timers were late). The measured burst then sees warm code, as a service that has been running
     * does; the cold start is measured apart.
     */
    static final int WARM_UP_ROUNDS = 3;

    /** The delay bands of the burst, in nanoseconds: [0, 50 ms), [50 ms, 200 ms), [200 ms, end). */
    static final long[] BAND_LIMITS = {TimeUnit.MILLISECONDS.toNanos(50), TimeUnit.MILLISECONDS.toNanos(200),
            Long.MAX_VALUE};
    static final String[] BAND_NAMES = {"lt50ms", "50to200ms", "ge200ms"};

    private OnTimeHarness() {
    }

    static final int FIRING_BATCH = 200_000;
    static final int FIRING_WARMUPS = 3;
    static final int FIRING_MEASURED = 5;

    /** The parts, by the name the command line and {@link OnTimeRows} use. */
    static final java.util.List<String> PARTS =
            java.util.List.of("burst", "cold", "duenow", "heartbeat", "firing", "steady", "rate", "calls", "external",
                    "first");

    static final int STEADY_DEFAULT_PER_MS = 100;
    static final long STEADY_WINDOW_MILLIS = 2_000;
    static final long STEADY_EDGE_MILLIS = 100;

    /** How long after its first schedule a steady round's first deadline comes: time to schedule them all. */
    static final long STEADY_LEAD_MILLIS = 500;

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: OnTimeHarness burst|cold|duenow|heartbeat|firing|steady|rate|calls IMPL"
                    + " [WORKERS [PER_MS]]; OnTimeHarness external tw|jdk1 1 PER_SECOND vt|pool4;"
                    + " OnTimeHarness first tw|jdk1");
            System.exit(2);
        }
        String impl = args[1];
        int workers = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        if (!args[0].equals("cold") && !args[0].equals("first")) {
            WindowCounters.read(); // see the method: its first call must not fall in a measured window (cold: see there)
        }
        switch (args[0]) {
            case "burst": burst(impl, workers); break;
            case "cold": cold(impl, workers); break;
            case "duenow": dueNow(impl, workers); break;
            case "heartbeat": heartbeat(impl); break;
            case "firing": firing(impl, workers); break;
            case "steady": steady(impl, workers, args.length > 3 ? Integer.parseInt(args[3]) : STEADY_DEFAULT_PER_MS);
                break;
            case "rate": rate(impl, workers, args.length > 3 ? Integer.parseInt(args[3]) : STEADY_DEFAULT_PER_MS);
                break;
            case "calls": calls(impl, workers); break;
            case "external": ExternalTimers.run(impl, Integer.parseInt(args[3]), args[4]); break;
            case "first": FirstCalls.run(impl); break;
            default: throw new IllegalArgumentException("unknown part " + args[0]);
        }
        System.exit(0); // the schedulers' threads are daemons, but do not wait for anything
    }

    // ---------------------------------------------------------------------------------------------------------------
    // burst and cold start

    /** A one-shot task that records how late it started. */
    static final class Timer extends Subject.Job {
        private final long[] lateness;
        private final int index;
        private final long deadline;
        private final CountDownLatch done;

        Timer(long[] lateness, int index, long deadline, CountDownLatch done) {
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

    /** The delays of one burst, drawn before it, so that the producer's loop only schedules. */
    static long[] delays(int count, long window, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] delays = new long[count];
        for (int i = 0; i < count; i++) {
            delays[i] = random.nextLong(window);
        }
        return delays;
    }

    /**
     * What a burst gave: the lateness of each timer, in nanoseconds, in the order of its delays; and how long the
     * producer's loop of schedule calls took, first call to last return, what the burst costs its caller.
     */
    record Burst(long[] lateness, long scheduleNanos) {
        /** @return the loop's time as a result field */
        String scheduleField() {
            return " scheduleMs=" + Harness.fmt(scheduleNanos / 1e6);
        }
    }

    /** Schedules one timer per delay from this thread, as fast as it can, and waits until all have run. */
    static Burst runBurst(Subject subject, long[] delays) throws InterruptedException {
        int count = delays.length;
        long[] lateness = new long[count];
        CountDownLatch done = new CountDownLatch(count);
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            long now = System.nanoTime();
            subject.schedule(new Timer(lateness, i, now + delays[i], done), delays[i]);
        }
        long scheduleNanos = System.nanoTime() - start;
        if (!done.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException(subject.name + ": " + done.getCount() + " timers never ran");
        }
        return new Burst(lateness, scheduleNanos);
    }

    static void burst(String impl, int workers) throws InterruptedException {
        for (int round = 0; round < WARM_UP_ROUNDS; round++) {
            try (Subject warmUp = Subject.create(impl, workers)) {
                runBurst(warmUp, delays(BURST_TASKS, BURST_WINDOW_NANOS, 7 + round));
            }
        }
        long[] delays = delays(BURST_TASKS, BURST_WINDOW_NANOS, 42);
        settleHeap();
        try (Subject subject = Subject.create(impl, workers)) {
            WindowCounters before = WindowCounters.read();
            Burst burst = runBurst(subject, delays);
            reportBands("burst", impl, workers, delays, burst, WindowCounters.read().since(before));
        }
    }

    /**
     * The cold start. The management classes stay unloaded until the burst is over (their first call, and the JIT's
     * work on it, would fall in the measured window or just before it, competing with the code under test): the
     * collections and compile time counted then are all those since the JVM started, a bound of those in the window.
     */
    static void cold(String impl, int workers) throws InterruptedException {
        long[] delays = delays(COLD_TASKS, COLD_WINDOW_NANOS, 42);
        try (Subject subject = Subject.create(impl, workers)) {
            Burst burst = runBurst(subject, delays);
            reportBands("cold", impl, workers, delays, burst, WindowCounters.read());
        }
    }

    /** One result line per delay band, and one for all timers; each with the producer's loop time. */
    private static void reportBands(String part, String impl, int workers, long[] delays, Burst burst,
                                    WindowCounters counters) {
        long[] lateness = burst.lateness();
        for (int band = 0; band <= BAND_LIMITS.length; band++) {
            long low = band == 0 || band == BAND_LIMITS.length ? 0 : BAND_LIMITS[band - 1];
            long high = band == BAND_LIMITS.length ? Long.MAX_VALUE : BAND_LIMITS[band];
            long[] selected = new long[lateness.length];
            int n = 0;
            for (int i = 0; i < lateness.length; i++) {
                if (delays[i] >= low && delays[i] < high) {
                    selected[n++] = lateness[i];
                }
            }
            if (n > 0) {
                report(part, impl, band == BAND_LIMITS.length ? "all" : BAND_NAMES[band], workers,
                        Arrays.copyOf(selected, n), counters, burst.scheduleField());
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // tasks due at once among firing timers

    /** A task due at once that records how long after its {@code execute} call it started. */
    static final class Immediate extends Subject.Job {
        private final long[] lateness;
        private final int index;
        private final long calledAt;

        Immediate(long[] lateness, int index, long calledAt) {
            this.lateness = lateness;
            this.index = index;
            this.calledAt = calledAt;
        }

        @Override
        public void run() {
            lateness[index] = System.nanoTime() - calledAt;
        }
    }

    static void dueNow(String impl, int workers) throws InterruptedException {
        settleHeap();
        try (Subject subject = Subject.create(impl, workers)) {
            long[] timerLateness = new long[1 << 20];
            long[] timerDeadlines = new long[timerLateness.length];
            AtomicInteger timersRun = new AtomicInteger();
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DUE_NOW_WARMUP_MILLIS + DUE_NOW_MILLIS);
            Thread timers = new Thread(() -> fireTimers(subject, end, timerLateness, timerDeadlines, timersRun),
                    "timers");
            timers.setDaemon(true);
            timers.start();
            long measureFrom = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DUE_NOW_WARMUP_MILLIS);
            // The window is cut out afterwards, by call time, and its counters are read by a thread of their own: the
            // producer's loop and the tasks run the same code from the first call to the last. A branch that changed
            // as the window began (a task that stored its lateness only from then on) sent the compiled code that
            // inlines it, the worker's run path, back to the interpreter at the window's first task, and the JIT
            // compiled that path again within the window, for either executor (JDK 25, -Xlog:deoptimization: an
            // unstable_if trap in the task's run, inlined into the worker's runClaimed).
            long[] lateness = new long[1 << 20];
            long[] calledAt = new long[lateness.length];
            CompletableFuture<WindowCounters> before = readCountersAt(measureFrom);
            int n = 0;
            for (long called = System.nanoTime(); called < end && n < lateness.length; called = System.nanoTime()) {
                calledAt[n] = called;
                subject.execute(new Immediate(lateness, n++, called));
                LockSupport.parkNanos(20_000);
            }
            timers.join();
            Subject.sleepMillis(100); // the last tasks run
            WindowCounters counters = WindowCounters.read().since(before.join());
            int first = 0;
            while (first < n && calledAt[first] < measureFrom) {
                first++;
            }
            report("duenow", impl, "all", workers, Arrays.copyOfRange(lateness, first, n), counters);
            int fired = Math.min(timersRun.get(), timerLateness.length);
            long[] windowTimers = new long[fired];
            int timersInWindow = 0;
            for (int i = 0; i < fired; i++) {
                if (timerDeadlines[i] >= measureFrom) {
                    windowTimers[timersInWindow++] = timerLateness[i];
                }
            }
            report("duenow-timers", impl, "all", workers, Arrays.copyOf(windowTimers, timersInWindow), counters);
        }
    }

    /**
     * Reads the window counters at {@code time} on a thread of its own, so that the measuring thread's code does not
     * change as the window begins. @return the reading, complete from {@code time} on (give or take a wake-up)
     */
    private static CompletableFuture<WindowCounters> readCountersAt(long time) {
        CompletableFuture<WindowCounters> reading = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            for (long wait; (wait = time - System.nanoTime()) > 0; ) {
                LockSupport.parkNanos(wait);
            }
            reading.complete(WindowCounters.read());
        }, "window-counters");
        reader.setDaemon(true);
        reader.start();
        return reading;
    }

    /**
     * Schedules a timer every 50 µs with a delay in [1, 6 ms) until {@code end}; records their lateness and deadlines,
     * in the order they run.
     */
    private static void fireTimers(Subject subject, long end, long[] lateness, long[] deadlines, AtomicInteger run) {
        SplittableRandom random = new SplittableRandom(5);
        long next = System.nanoTime();
        while (next < end) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            long delay = random.nextLong(TimeUnit.MILLISECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(6));
            long deadline = System.nanoTime() + delay;
            subject.schedule(new Subject.Job() {
                @Override
                public void run() {
                    int i = run.getAndIncrement();
                    if (i < lateness.length) {
                        lateness[i] = System.nanoTime() - deadline;
                        deadlines[i] = deadline;
                    }
                }
            }, delay);
            next += 50_000;
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // steady firing: its cost

    static void steady(String impl, int workers, int perMs) throws InterruptedException {
        for (int round = 0; round < WARM_UP_ROUNDS; round++) {
            steadyRound(impl, workers, perMs, 7 + round, false);
        }
        settleHeap();
        steadyRound(impl, workers, perMs, 42, true);
    }

    private static void steadyRound(String impl, int workers, int perMs, long seed, boolean measured)
            throws InterruptedException {
        int count = (int) (perMs * STEADY_WINDOW_MILLIS);
        long[] lateness = new long[count];
        CountDownLatch done = new CountDownLatch(count);
        SplittableRandom random = new SplittableRandom(seed);
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        try (Subject subject = Subject.create(impl, workers)) {
            long first = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STEADY_LEAD_MILLIS);
            long window = TimeUnit.MILLISECONDS.toNanos(STEADY_WINDOW_MILLIS);
            for (int i = 0; i < count; i++) {
                long deadline = first + random.nextLong(window);
                subject.schedule(new Timer(lateness, i, deadline, done), deadline - System.nanoTime());
            }
            long edge = TimeUnit.MILLISECONDS.toNanos(STEADY_EDGE_MILLIS);
            sleepUntil(first + edge);
            WindowCounters before = WindowCounters.read();
            long cpuBefore = os.getProcessCpuTime();
            long start = System.nanoTime();
            sleepUntil(first + window - edge);
            long cpu = os.getProcessCpuTime() - cpuBefore;
            long elapsed = System.nanoTime() - start;
            WindowCounters counters = WindowCounters.read().since(before);
            if (!done.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(subject.name + ": " + done.getCount() + " timers never ran");
            }
            if (measured) {
                report("steady", impl, perMs + "perMs", workers, lateness, counters,
                        " cpuPct=" + Harness.fmt(100.0 * cpu / elapsed));
            }
        }
    }

    static final long RATE_WARMUP_MILLIS = 2_000;

    /**
     * At least this many timers fire before the measured window: at 1 timer a millisecond, 2 s of warm-up left the
     * JIT compiling in the window (the compile time in it was 240-360 ms for TW, 60-160 for STPE, JDK 17), and the CPU
     * time it measured was the compilers' more than the schedulers'.
     */
    static final int RATE_WARMUP_TIMERS = 10_000;
    static final long RATE_MEASURED_MILLIS = 4_000;
    static final long RATE_MIN_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    static final long RATE_MAX_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    static void rate(String impl, int workers, int perMs) throws InterruptedException {
        long warmUpMillis = Math.max(RATE_WARMUP_MILLIS, RATE_WARMUP_TIMERS / perMs);
        long millis = warmUpMillis + RATE_MEASURED_MILLIS;
        int count = (int) (perMs * millis);
        long[] lateness = new long[count];
        long[] deadlines = new long[count];
        CountDownLatch done = new CountDownLatch(count);
        SplittableRandom random = new SplittableRandom(42);
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        try (Subject subject = Subject.create(impl, workers)) {
            long start = System.nanoTime();
            long windowStart = start + TimeUnit.MILLISECONDS.toNanos(warmUpMillis);
            long windowEnd = start + TimeUnit.MILLISECONDS.toNanos(millis);
            WindowCounters before = null;
            long cpuBefore = 0;
            int i = 0;
            for (long ms = 0; ms < millis; ms++) {
                long tick = start + TimeUnit.MILLISECONDS.toNanos(ms);
                sleepUntil(tick);
                if (before == null && tick >= windowStart) {
                    before = WindowCounters.read();
                    cpuBefore = os.getProcessCpuTime();
                }
                for (int k = 0; k < perMs; k++, i++) {
                    long delay = random.nextLong(RATE_MIN_DELAY_NANOS, RATE_MAX_DELAY_NANOS);
                    long now = System.nanoTime();
                    deadlines[i] = now + delay;
                    subject.schedule(new Timer(lateness, i, now + delay, done), delay);
                }
            }
            sleepUntil(windowEnd);
            long cpu = os.getProcessCpuTime() - cpuBefore;
            long elapsed = System.nanoTime() - windowStart;
            WindowCounters counters = WindowCounters.read().since(before);
            if (!done.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(subject.name + ": " + done.getCount() + " timers never ran");
            }
            long[] inWindow = new long[count];
            int n = 0;
            for (int t = 0; t < count; t++) {
                if (deadlines[t] >= windowStart && deadlines[t] < windowEnd) {
                    inWindow[n++] = lateness[t];
                }
            }
            report("rate", impl, perMs + "perMs", workers, Arrays.copyOf(inWindow, n), counters,
                    " cpuPct=" + Harness.fmt(100.0 * cpu / elapsed) + " cpuUsPerTimer=" + Harness.fmt(cpu / 1e3 / n));
        }
    }

    static final int CALLS_PER_PRODUCER = 200_000;

    static void calls(String impl, int workers) throws InterruptedException {
        callsRound(impl, workers, false);
        settleHeap();
        callsRound(impl, workers, true);
    }

    private static void callsRound(String impl, int workers, boolean measured) throws InterruptedException {
        int producers = 2;
        long[][] times = new long[producers][CALLS_PER_PRODUCER];
        CountDownLatch done = new CountDownLatch(producers * CALLS_PER_PRODUCER);
        java.util.concurrent.atomic.AtomicBoolean spinning = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread hog = new Thread(() -> {
            long x = 0;
            while (spinning.get()) {
                x += System.nanoTime() & 1; // busy, as an application thread beside the callers
            }
            if (x == 42) {
                System.out.print("");
            }
        }, "cpu-hog");
        hog.setDaemon(true);
        try (Subject subject = Subject.create(impl, workers)) {
            hog.start();
            WindowCounters before = WindowCounters.read();
            Thread[] threads = new Thread[producers];
            CountDownLatch go = new CountDownLatch(1);
            for (int p = 0; p < producers; p++) {
                long[] mine = times[p];
                SplittableRandom random = new SplittableRandom(42 + p);
                threads[p] = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    Subject.Job countDown = new Subject.Job() {
                        @Override
                        public void run() {
                            done.countDown();
                        }
                    };
                    for (int i = 0; i < mine.length; i++) {
                        long delay = random.nextLong(TimeUnit.SECONDS.toNanos(1));
                        long start = System.nanoTime();
                        subject.schedule(countDown, delay);
                        mine[i] = System.nanoTime() - start;
                    }
                }, "producer-" + p);
                threads[p].setDaemon(true);
                threads[p].start();
            }
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            spinning.set(false);
            WindowCounters counters = WindowCounters.read().since(before);
            if (!done.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(subject.name + ": " + done.getCount() + " timers never ran");
            }
            if (measured) {
                long[] all = new long[producers * CALLS_PER_PRODUCER];
                int over = 0;
                for (int p = 0; p < producers; p++) {
                    System.arraycopy(times[p], 0, all, p * CALLS_PER_PRODUCER, CALLS_PER_PRODUCER);
                    for (long t : times[p]) {
                        over += t > 50_000 ? 1 : 0;
                    }
                }
                report("calls", impl, "all", workers, all, counters, " over50us=" + over);
            }
        } finally {
            spinning.set(false);
        }
    }

    /** Parks until {@code time} ({@code System.nanoTime()}); {@code Thread.sleep(Duration)} is Java 19+. */
    static void sleepUntil(long time) {
        for (long left = time - System.nanoTime(); left > 0; left = time - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // heartbeat

    static void heartbeat(String impl) throws InterruptedException {
        if (impl.startsWith("netty")) {
            return; // no fixed rate
        }
        for (int round = 0; round < WARM_UP_ROUNDS; round++) {
            try (Subject warmUp = Subject.create(impl)) {
                warmUp.schedulePeriodic(Subject.NOOP, HEARTBEAT_PERIOD_NANOS);
                runBurst(warmUp, delays(BURST_TASKS / 4, BURST_WINDOW_NANOS, 7 + round));
            }
        }
        settleHeap();
        try (Subject subject = Subject.create(impl)) {
            subject.schedule(Subject.NOOP, 1); // its threads start before the heartbeat's phase is read
            Subject.sleepMillis(50);
            long[] runs = new long[1 << 16];
            AtomicInteger count = new AtomicInteger();
            Subject.Job beat = new Subject.Job() {
                @Override
                public void run() {
                    int i = count.getAndIncrement();
                    if (i < runs.length) {
                        runs[i] = System.nanoTime();
                    }
                }
            };
            // The start is read right before the call, with the job's class loaded, so that the phase it gives the
            // runs is the executor's own (within the call's cost).
            long start = System.nanoTime();
            subject.schedulePeriodic(beat, HEARTBEAT_PERIOD_NANOS);
            Subject.sleepMillis(500); // warm-up
            int firstMeasured = count.get();
            WindowCounters before = WindowCounters.read();
            long burstStart = System.nanoTime();
            long[] delays = delays(BURST_TASKS, BURST_WINDOW_NANOS, 42);
            runBurst(subject, delays);
            long measureUntil = burstStart + TimeUnit.MILLISECONDS.toNanos(2_500);
            while (System.nanoTime() < measureUntil + 2 * HEARTBEAT_PERIOD_NANOS) {
                Subject.sleepMillis(10);
            }
            int total = Math.min(count.get(), runs.length);
            long[] lateness = new long[total];
            int n = 0;
            for (int i = firstMeasured; i < total; i++) {
                long due = start + (i + 1) * HEARTBEAT_PERIOD_NANOS; // run i is due at start + (i + 1) periods
                if (due >= burstStart && due < measureUntil) {
                    lateness[n++] = runs[i] - due;
                }
            }
            report("heartbeat", impl, "all", 1, Arrays.copyOf(lateness, n),
                    WindowCounters.read().since(before));
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    // ---------------------------------------------------------------------------------------------------------------
    // firing rate

    static void firing(String impl, int workers) throws InterruptedException {
        int producers = workers;
        try (Subject subject = Subject.create(impl, workers)) {
            double[] rates = new double[FIRING_MEASURED];
            for (int batch = 0; batch < FIRING_WARMUPS + FIRING_MEASURED; batch++) {
                double rate = fireBatch(subject, producers);
                if (batch >= FIRING_WARMUPS) {
                    rates[batch - FIRING_WARMUPS] = rate;
                }
            }
            Arrays.sort(rates);
            ChildJvm.report("firing", impl, "band=all workers=" + workers + " producers=" + producers
                    + " tasksPerSec=" + Harness.fmt(rates[rates.length / 2]));
        }
    }

    /** One batch: the producers schedule their shares at once; completed tasks per second until the last has run. */
    private static double fireBatch(Subject subject, int producers) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(FIRING_BATCH);
        Subject.Job countDown = new Subject.Job() {
            @Override
            public void run() {
                done.countDown();
            }
        };
        CountDownLatch go = new CountDownLatch(1);
        Thread[] threads = new Thread[producers];
        for (int p = 0; p < producers; p++) {
            int share = FIRING_BATCH / producers + (p < FIRING_BATCH % producers ? 1 : 0);
            threads[p] = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < share; i++) {
                    subject.schedule(countDown, Subject.BARRIER_DELAY_NANOS);
                }
            }, "producer-" + p);
            threads[p].setDaemon(true);
            threads[p].start();
        }
        long start = System.nanoTime();
        go.countDown();
        if (!done.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException(subject.name + ": " + done.getCount() + " tasks never ran");
        }
        long elapsed = System.nanoTime() - start;
        for (Thread t : threads) {
            t.join();
        }
        return FIRING_BATCH * 1e9 / elapsed;
    }

    // ---------------------------------------------------------------------------------------------------------------

    /**
     * Collects the garbage of the warm-up before a measured part, so that the part starts with an empty young
     * generation: with the JVM flags of {@link OnTimeRows}, no collection then falls in it, whichever implementation
     * (a young collection of the JDK's executor took 69 ms of a burst with a 2 GB heap and G1's default young
     * generation). Each result says how many collections fell in its window.
     */
    static void settleHeap() {
        System.gc();
    }

    static void report(String part, String impl, String band, int workers, long[] lateness, WindowCounters counters) {
        report(part, impl, band, workers, lateness, counters, "");
    }

    /** The same, with {@code extra} fields at the end. */
    static void report(String part, String impl, String band, int workers, long[] lateness, WindowCounters counters,
                       String extra) {
        long[] sorted = lateness.clone();
        Arrays.sort(sorted);
        long early = 0;
        for (long l : sorted) {
            if (l < 0) {
                early++;
            }
        }
        ChildJvm.report(part, impl, "band=" + band + " workers=" + workers + " n=" + sorted.length
                + " p50us=" + Harness.fmt(Harness.percentile(sorted, 0.50) / 1e3)
                + " p99us=" + Harness.fmt(Harness.percentile(sorted, 0.99) / 1e3)
                + " p999us=" + Harness.fmt(Harness.percentile(sorted, 0.999) / 1e3)
                + " maxUs=" + Harness.fmt(sorted.length == 0 ? 0 : sorted[sorted.length - 1] / 1e3)
                + " early=" + early + " " + counters.fields() + extra);
    }
}
