package io.timingwheel.jmh;

import io.timingwheel.TimingWheelExecutor;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The {@code external} part of {@link OnTimeHarness}: timers whose tasks run on an executor of the user's, the way a
 * service runs tasks that block. {@code RATE} one-shot timers, delays uniform over one second, are scheduled from one
 * thread as fast as it can; each task blocks on that executor (a timed park, as a sleep is): 5 ms on a virtual
 * thread, 100 µs on the pool (four threads that block 5 ms a task could run only 800 a second). A task's lateness is
 * the end of its block minus its deadline minus the block: what the user sees, the hand-over, the executor's start of
 * the task and the wake-up all in it.
 * <ul>
 *   <li>{@code tw}: {@code TimingWheelExecutor.builder().workerExecutor(executor).build()};</li>
 *   <li>{@code jdk1}: {@code new ScheduledThreadPoolExecutor(1)} whose task is {@code executor.execute(task)}, the
 *       simplest thing a user would write instead.</li>
 * </ul>
 * The executor ({@code KIND}): {@code vt}, one virtual thread per task
 * ({@code Executors.newVirtualThreadPerTaskExecutor()}, Java 21+), or {@code pool4},
 * {@code Executors.newFixedThreadPool(4)}; the rounds share it, as a service's would. The first round is the first
 * thing the JVM does (band {@code cold}: as a service's first second after its start, the JIT compiling beside it);
 * then {@value #WARM_UP_ROUNDS} rounds of at least {@value #WARM_UP_TIMERS} timers warm the code up, each on a
 * scheduler of its own, and a last one at the rate is measured (band {@code warm}). With warm-ups at the rate itself,
 * 2 000 timers a round left TW still compiling in the measured round (216-306 ms of JIT in it against STPE's 12-18).
 *
 * <p>Run: {@code java -Xms3g -Xmx3g -Xmn2g -cp jmh/target/benchmarks.jar io.timingwheel.jmh.OnTimeHarness external tw 1
 * 20000 vt}
 */
final class ExternalTimers {
    /** How long a task blocks, by executor kind. */
    static final long VIRTUAL_THREAD_BLOCK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    static final long POOL_BLOCK_NANOS = TimeUnit.MICROSECONDS.toNanos(100);
    static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);
    static final int WARM_UP_ROUNDS = 2;
    static final int WARM_UP_TIMERS = 20_000;

    /** The rates of the rows, timers per second: the quick comparison's, and the full one's. */
    static final java.util.List<Integer> QUICK_RATES = java.util.List.of(2_000, 20_000);
    static final java.util.List<Integer> FULL_RATES = java.util.List.of(2_000, 5_000, 10_000, 20_000);

    /** The executor kinds of the rows. */
    static final java.util.List<String> KINDS = java.util.List.of("vt", "pool4");

    private ExternalTimers() {
    }

    /** @return whether the executor {@code kind} exists on this JDK (virtual threads from Java 21) */
    static boolean available(String kind) {
        return !kind.equals("vt") || Runtime.version().feature() >= 21;
    }

    static void run(String impl, int perSecond, String kind) throws Exception {
        ExecutorService executor = executor(kind);
        long block = kind.equals("vt") ? VIRTUAL_THREAD_BLOCK_NANOS : POOL_BLOCK_NANOS;
        try {
            for (int round = 0; round < WARM_UP_ROUNDS + 2; round++) {
                boolean measured = round == 0 || round == WARM_UP_ROUNDS + 1;
                if (round == WARM_UP_ROUNDS + 1) {
                    OnTimeHarness.settleHeap();
                }
                WindowCounters before = measured ? WindowCounters.read() : null;
                int count = measured ? perSecond : Math.max(perSecond, WARM_UP_TIMERS);
                long[] lateness = round(impl, count, executor, block, 42 + round);
                if (measured) {
                    OnTimeHarness.report("external", impl, (round == 0 ? "cold" : "warm") + "-" + kind + "-"
                            + perSecond, 1, lateness, WindowCounters.read().since(before));
                }
            }
        } finally {
            executor.shutdownNow();
        }
    }

    private static ExecutorService executor(String kind) throws ReflectiveOperationException {
        switch (kind) {
            case "vt": // by reflection: the module compiles for Java 17
                return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
            case "pool4":
                return Executors.newFixedThreadPool(4);
            default:
                throw new IllegalArgumentException("unknown executor kind " + kind);
        }
    }

    private static ScheduledExecutorService scheduler(String impl, Executor executor) {
        switch (impl) {
            case "tw": return TimingWheelExecutor.builder().workerExecutor(executor).build();
            case "jdk1": return new ScheduledThreadPoolExecutor(1);
            default: throw new IllegalArgumentException("the external part runs tw and jdk1, not " + impl);
        }
    }

    /** One round on a fresh scheduler: @return the lateness of each task, as the class comment says */
    private static long[] round(String impl, int count, Executor executor, long block, long seed)
            throws InterruptedException {
        SplittableRandom random = new SplittableRandom(seed);
        long[] delays = new long[count];
        for (int i = 0; i < count; i++) {
            delays[i] = random.nextLong(WINDOW_NANOS);
        }
        long[] lateness = new long[count];
        CountDownLatch done = new CountDownLatch(count);
        ScheduledExecutorService scheduler = scheduler(impl, executor);
        boolean handsOver = !impl.equals("tw");
        try {
            for (int i = 0; i < count; i++) {
                long deadline = System.nanoTime() + delays[i];
                Runnable task = new BlockingTask(lateness, i, deadline, block, done);
                if (handsOver) {
                    scheduler.schedule(() -> executor.execute(task), delays[i], TimeUnit.NANOSECONDS);
                } else {
                    scheduler.schedule(task, delays[i], TimeUnit.NANOSECONDS);
                }
            }
            if (!done.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(impl + ": " + done.getCount() + " tasks never ended");
            }
        } finally {
            scheduler.shutdownNow();
        }
        return lateness;
    }

    /** Blocks (parks) for its time, then records how late its block ended. */
    private static final class BlockingTask implements Runnable {
        private final long[] lateness;
        private final int index;
        private final long deadline;
        private final long block;
        private final CountDownLatch done;

        BlockingTask(long[] lateness, int index, long deadline, long block, CountDownLatch done) {
            this.lateness = lateness;
            this.index = index;
            this.deadline = deadline;
            this.block = block;
            this.done = done;
        }

        @Override
        public void run() {
            OnTimeHarness.sleepUntil(System.nanoTime() + block);
            lateness[index] = System.nanoTime() - deadline - block;
            done.countDown();
        }
    }
}
