package io.timingwheel.jmh;

import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Simulated time in a fresh JVM, as a test suite meets it: the three workloads of {@link VirtualTimeBenchmark}, each
 * on a scheduler of its own, in rounds one after another in one JVM, no warm-up; the real time per run of each. JMH's
 * figures are of code the JIT has long compiled; a test suite's first minutes are not.
 * <ul>
 *   <li>heartbeat: a 1 ms fixed-rate task, 60 s of time advanced in steps of 1 s (60 000 runs);</li>
 *   <li>fine steps: the same task, {@value #FINE_STEPS} ms of time advanced 1 ms per call (one run per call);</li>
 *   <li>one-shots: {@value VirtualTimeBenchmark#ONE_SHOTS} one-shot timers with delays uniform over an hour,
 *       scheduled first (not timed), then the hour advanced in one call;</li>
 *   <li>chain: {@value VirtualTimeBenchmark#CHAIN} runs, each scheduling the next 1 ms on, advanced in one call.</li>
 * </ul>
 *
 * <p>Run (from the repository root, after {@code mvn -B -q -DskipTests package}), one JVM per implementation:
 * <pre>{@code java -cp jmh/target/benchmarks.jar io.timingwheel.jmh.VirtualTimeRounds tw 1 3}</pre>
 * arguments: {@code tw}, {@code reactor} or {@code floor}, the executor's worker threads, the rounds. One line per
 * round: {@code round=R heartbeat=µs fineSteps=µs oneShots=µs chain=µs} (µs of real time per run).
 */
public final class VirtualTimeRounds {
    private static final int HEARTBEAT_STEPS = 60;
    private static final int FINE_STEPS = 5_000;

    private VirtualTimeRounds() {
    }

    public static void main(String[] args) {
        String impl = args.length > 0 ? args[0] : "tw";
        int workers = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        SplittableRandom random = new SplittableRandom(42);
        for (int round = 1; round <= rounds; round++) {
            double heartbeat = heartbeat(impl, workers, HEARTBEAT_STEPS, TimeUnit.SECONDS.toNanos(1), "heartbeat");
            double fineSteps = heartbeat(impl, workers, FINE_STEPS, TimeUnit.MILLISECONDS.toNanos(1), "fineSteps");
            double oneShots = oneShots(impl, workers, random);
            double chain = chain(impl, workers);
            System.out.printf(Locale.ROOT,
                    "impl=%s workers=%d round=%d heartbeat=%.3f fineSteps=%.3f oneShots=%.3f chain=%.3f%n",
                    impl, workers, round, heartbeat, fineSteps, oneShots, chain);
        }
    }

    /** A count of runs, written by one run at a time (every workload's runs follow one another). */
    private static final class Runs {
        volatile long count;

        void check(long expected, String workload) {
            if (count != expected) {
                throw new IllegalStateException(workload + ": " + count + " runs, expected " + expected);
            }
        }
    }

    private static VirtualTimeBenchmark.SimulatedTime create(String impl, int workers) {
        return switch (impl) {
            case "tw" -> new VirtualTimeBenchmark.OnVirtualClock(workers);
            case "reactor" -> new VirtualTimeBenchmark.OnReactor();
            case "floor" -> new VirtualTimeBenchmark.HandOffFloor();
            default -> throw new IllegalArgumentException("impl: tw, reactor or floor, not " + impl);
        };
    }

    /**
     * A 1 ms fixed-rate task, time advanced {@code steps} times by {@code stepNanos}.
     * @return µs of real time per run
     */
    private static double heartbeat(String impl, int workers, int steps, long stepNanos, String workload) {
        Runs runs = new Runs();
        long period = TimeUnit.MILLISECONDS.toNanos(1);
        try (VirtualTimeBenchmark.SimulatedTime time = create(impl, workers)) {
            time.scheduleAtFixedRate(() -> runs.count++, period);
            long start = System.nanoTime();
            for (int i = 0; i < steps; i++) {
                time.advance(stepNanos);
            }
            long elapsed = System.nanoTime() - start;
            runs.check(steps * stepNanos / period, workload);
            return elapsed / 1e3 / runs.count;
        }
    }

    private static double oneShots(String impl, int workers, SplittableRandom random) {
        Runs runs = new Runs();
        try (VirtualTimeBenchmark.SimulatedTime time = create(impl, workers)) {
            for (int i = 0; i < VirtualTimeBenchmark.ONE_SHOTS; i++) {
                time.schedule(() -> runs.count++, 1 + random.nextLong(VirtualTimeBenchmark.HOUR_NANOS));
            }
            long start = System.nanoTime();
            time.advance(VirtualTimeBenchmark.HOUR_NANOS);
            long elapsed = System.nanoTime() - start;
            runs.check(VirtualTimeBenchmark.ONE_SHOTS, "oneShots");
            return elapsed / 1e3 / runs.count;
        }
    }

    private static double chain(String impl, int workers) {
        Runs runs = new Runs();
        try (VirtualTimeBenchmark.SimulatedTime time = create(impl, workers)) {
            Runnable[] link = new Runnable[1];
            link[0] = () -> {
                if (++runs.count < VirtualTimeBenchmark.CHAIN) {
                    time.schedule(link[0], TimeUnit.MILLISECONDS.toNanos(1));
                }
            };
            long start = System.nanoTime();
            time.schedule(link[0], TimeUnit.MILLISECONDS.toNanos(1));
            time.advance(TimeUnit.MILLISECONDS.toNanos(VirtualTimeBenchmark.CHAIN));
            long elapsed = System.nanoTime() - start;
            runs.check(VirtualTimeBenchmark.CHAIN, "chain");
            return elapsed / 1e3 / runs.count;
        }
    }
}
