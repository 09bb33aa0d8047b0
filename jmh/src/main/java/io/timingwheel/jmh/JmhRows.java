package io.timingwheel.jmh;

import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The throughput rows of the comparison: each row is one JMH benchmark method with fixed parameters, run once per
 * implementation (one fork each, so the JIT sees one implementation at a time); the figure is the median of the
 * measured iterations in millions of operations per second.
 */
final class JmhRows {

    /** The implementations of the quick mode: the baseline, the JDK 25 pool, ours, and Netty with a 1 ms tick. */
    static final List<String> QUICK_IMPLS = List.of("jdk1", "fjp1", "tw", "netty1ms");

    /** Every implementation that can take any load, including 100 ms-tick Netty (schedule only, see its rows). */
    private static final List<String> ALL = List.of("jdk1", "jdkN", "fjp1", "tw", "netty1ms", "netty100ms");

    /**
     * The implementations that keep up with a sustained stream of schedule + cancel: not Netty's 100 ms tick, which
     * moves at most 100 000 new timeouts per tick into its wheel (see {@link CancelBenchmark}).
     */
    private static final List<String> SUSTAINED = List.of("jdk1", "jdkN", "fjp1", "tw", "netty1ms");

    /** The JVM flags of every fork, from the benchmarks' {@code @Fork} annotations (stated in the table's header). */
    static final String FORK_FLAGS = "-Xms4g -Xmx4g -Xmn3g -XX:+AlwaysPreTouch";

    /** One row: a benchmark method with fixed parameters, and the implementations it runs in the full mode. */
    private static final class Spec {
        final String key;
        final String label;
        final String method;
        final Map<String, String> params;
        final List<String> fullImpls;
        final boolean quick;

        Spec(String key, String label, String method, Map<String, String> params, List<String> fullImpls,
             boolean quick) {
            this.key = key;
            this.label = label;
            this.method = method;
            this.params = params;
            this.fullImpls = fullImpls;
            this.quick = quick;
        }

        /** SingleShotTime benchmarks measure one shot per iteration, so they need more iterations than 1 s ones. */
        boolean singleShot() {
            return method.startsWith("ScheduleBenchmark.");
        }
    }

    /** Every row, in table order; {@code quick} marks those of the quick mode. */
    private static final List<Spec> SPECS = List.of(
            new Spec("schedule", "schedule, 1 producer, fixed 1 h delay",
                    "ScheduleBenchmark.schedule", Map.of(), ALL, true),
            new Spec("schedule2", "schedule, 2 producers, fixed 1 h delay",
                    "ScheduleBenchmark.scheduleTwoProducers", Map.of(), ALL, true),
            new Spec("cancel", "schedule then cancel, 1 producer",
                    "CancelBenchmark.scheduleThenCancel", Map.of(), SUSTAINED, true),
            new Spec("cancel2", "schedule then cancel, 2 producers",
                    "CancelBenchmark.scheduleThenCancelTwoProducers", Map.of(), SUSTAINED, false),
            new Spec("pending10k", "cancel + schedule among 10 000 pending (random 1 s..1 h), 1 producer",
                    "PendingBenchmark.replace", Map.of("pending", "10000"), SUSTAINED, false),
            new Spec("pending1m", "cancel + schedule among 1 000 000 pending (random 1 s..1 h), 1 producer",
                    "PendingBenchmark.replace", Map.of("pending", "1000000"), SUSTAINED, true),
            new Spec("pending10k2", "cancel + schedule among 10 000 pending (random 1 s..1 h), 2 producers",
                    "PendingBenchmark.replaceTwoProducers", Map.of("pending", "10000"), SUSTAINED, false),
            new Spec("pending1m2", "cancel + schedule among 1 000 000 pending (random 1 s..1 h), 2 producers",
                    "PendingBenchmark.replaceTwoProducers", Map.of("pending", "1000000"), SUSTAINED, true),
            new Spec("firing", "firing: batches of 100 000 tasks due at once, completed",
                    "FiringBenchmark.fireBatch", Map.of(),
                    List.of("jdk1", "jdkN", "fjp1", "tw", "twN", "netty1ms", "netty100ms"), false),
            new Spec("periodic", "periodic: 10 000 tasks every 1 ms, runs completed",
                    "PeriodicBenchmark.periodic", Map.of(), List.of("jdk1", "jdkN", "fjp1", "tw", "twN", "netty1ms"),
                    false));

    private final Options options;
    private final boolean full;

    JmhRows(Options options) {
        this.options = options;
        this.full = options.mode == Options.Mode.FULL;
    }

    /** The JMH settings of this mode, for the table's header. */
    String settings() {
        return full
                ? "JMH " + jmhVersion() + ": 2 forks, warmup 3 × 1 s, measurement 5 × 1 s (schedule rows: 5 + 10"
                        + " one-shot batches of 1 000 000 per producer); forks run with " + FORK_FLAGS
                : "JMH " + jmhVersion() + ": 1 fork, warmup 2 × 1 s, measurement 5 × 1 s (schedule rows: 3 + 5"
                        + " one-shot batches of 1 000 000 per producer); forks run with " + FORK_FLAGS;
    }

    /** Adds the selected rows to {@code table} and measures them, printing progress; false if none was selected. */
    boolean run(Table table) {
        List<Spec> chosen = new ArrayList<>();
        List<Table.Row> rows = new ArrayList<>();
        int runs = 0;
        for (Spec spec : SPECS) {
            if (options.selected(spec.key, spec.quick)) {
                chosen.add(spec);
                rows.add(table.add(spec.key, spec.label, "M ops/s"));
                runs += impls(spec).size();
            }
        }
        int done = 0;
        for (int i = 0; i < chosen.size(); i++) {
            Spec spec = chosen.get(i);
            for (String impl : impls(spec)) {
                done++;
                System.out.printf(Locale.ROOT, "[%d/%d] %-46s %-10s ", done, runs,
                        spec.method + (spec.params.isEmpty() ? "" : " " + spec.params), impl);
                if (!Subject.available(impl)) {
                    rows.get(i).unavailable.add(impl);
                    System.out.println("n/a on JDK " + Machine.jdkFeature());
                    continue;
                }
                System.out.flush();
                double value = measure(spec, impl);
                rows.get(i).put(impl, value);
                System.out.println(Table.format(value) + " M ops/s");
            }
        }
        return !chosen.isEmpty();
    }

    /** The implementations of a row in this mode: all of its own in the full mode, else those of the quick mode. */
    private List<String> impls(Spec spec) {
        if (full) {
            return spec.fullImpls;
        }
        List<String> quick = new ArrayList<>(spec.fullImpls);
        quick.retainAll(QUICK_IMPLS);
        return quick;
    }

    /** Runs one benchmark method for one implementation; millions of operations per second, NaN if it failed. */
    private double measure(Spec spec, String impl) {
        ChainedOptionsBuilder jmh = new OptionsBuilder()
                .include("^" + Pattern.quote(JmhRows.class.getPackageName() + "." + spec.method) + "$")
                .param("impl", impl)
                .forks(full ? 2 : 1)
                .warmupIterations(spec.singleShot() ? (full ? 5 : 3) : (full ? 3 : 2))
                .measurementIterations(spec.singleShot() ? (full ? 10 : 5) : 5)
                .warmupTime(TimeValue.seconds(1))
                .measurementTime(TimeValue.seconds(1))
                .verbosity(VerboseMode.SILENT);
        spec.params.forEach(jmh::param);
        try {
            Collection<RunResult> results = new Runner(jmh.build()).run();
            if (results.isEmpty()) {
                return Double.NaN;
            }
            return opsPerSecond(results.iterator().next()) / 1e6;
        } catch (RunnerException | RuntimeException e) {
            System.out.print("failed: " + e.getMessage() + " ");
            return Double.NaN;
        }
    }

    /** The median rate of one run: operations (or, for the periodic benchmark, runs) per second. */
    static double opsPerSecond(RunResult run) {
        BenchmarkParams params = run.getParams();
        double unitSeconds = params.getTimeUnit().toNanos(1) / 1e9;
        Result<?> runs = run.getSecondaryResults().get("runs");
        Result<?> result = runs != null ? runs : run.getPrimaryResult();
        double median = result.getStatistics().getPercentile(50);
        if (params.getMode() == Mode.SingleShotTime) {
            // time of one shot of batchSize calls, per thread
            return params.getThreads() * (double) params.getMeasurement().getBatchSize() / (median * unitSeconds);
        }
        return median / unitSeconds;
    }

    private static String jmhVersion() {
        String version = org.openjdk.jmh.util.Version.getPlainVersion();
        return version == null ? "" : version;
    }
}
