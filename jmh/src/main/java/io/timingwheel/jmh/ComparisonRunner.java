package io.timingwheel.jmh;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.openjdk.jmh.annotations.Mode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The one-command comparison: runs the benchmarks and the harness for TimingWheelExecutor, ScheduledThreadPoolExecutor
 * and Netty's HashedWheelTimer in one go and prints one table, each figure with its ratio to STPE with one thread from
 * the same run.
 *
 * <pre>{@code mvn -B -q -DskipTests package && java -jar jmh/target/benchmarks.jar}</pre>
 *
 * <ul>
 *   <li>default (quick, about 3 minutes on 2 cores): STPE(1), TimingWheelExecutor and Netty (1 ms tick) on the
 *       workloads that carry a target (firing and periodic throughput only in {@code --full}); JMH with 1 fork,
 *       warmup 2 &times; 1 s, measurement 5 &times; 1 s (five, not three: on a shared machine a median of three
 *       lands on an iteration that a young collection or the host's scheduler hit too often; the schedule rows:
 *       3 + 5 one-shot batches of a million); the harness (lateness, memory, idle) once per implementation;</li>
 *   <li>{@code --full} (about 20 minutes): every implementation ({@code jdk1 jdkN tw twN netty1ms netty100ms} where
 *       the peer can do the work) on every benchmark, 2 forks, warmup 3 &times; 1 s, measurement 5 &times; 1 s, plus
 *       the pending-count curve from 1 000 to 10 000 000 and its chart ({@code docs/schedule-vs-pending.png});</li>
 *   <li>{@code --curve}: only the pending-count curve and its chart;</li>
 *   <li>{@code --only KEY[,KEY...]}: only those rows (keys: schedule, schedule2, cancel, cancel2, pending10k,
 *       pending1m, pending10k2, pending1m2, firing, periodic, lateness, memory, idle, curve);</li>
 *   <li>{@code --out FILE}: where the Markdown table goes as well (default
 *       {@code jmh/target/comparison-<mode>.md}, or the current directory outside the repository root);
 *       {@code --chart FILE}: where the chart goes.</li>
 * </ul>
 * Each figure is the median of the measured iterations. Throughputs are millions of operations per second, higher is
 * better; the harness rows are costs, lower is better. The ratio is always figure / STPE(1) figure.
 */
public final class ComparisonRunner {

    private static final String TW = "tw";

    /** Column titles of the implementations, in table order. */
    private static final Map<String, String> TITLES = new LinkedHashMap<>();

    static {
        TITLES.put("jdk1", "STPE(1)");
        TITLES.put("jdkN", "STPE(" + Subject.N + ")");
        TITLES.put("tw", "TW");
        TITLES.put("twN", "TW(" + Subject.N + ")");
        TITLES.put("netty1ms", "Netty 1 ms");
        TITLES.put("netty100ms", "Netty 100 ms");
    }

    private static final List<String> QUICK_IMPLS = List.of("jdk1", "tw", "netty1ms");

    /** A target for TimingWheelExecutor's figure: on the ratio to STPE(1) or on the figure itself. */
    static final class Target {
        final String text;
        final boolean onRatio;
        final boolean atLeast;
        final double bound;

        private Target(String text, boolean onRatio, boolean atLeast, double bound) {
            this.text = text;
            this.onRatio = onRatio;
            this.atLeast = atLeast;
            this.bound = bound;
        }

        static Target ratioAtLeast(double bound) {
            return new Target(String.format(Locale.ROOT, "≥ %.1f×", bound), true, true, bound);
        }

        static Target atMost(double bound, String text) {
            return new Target(text, false, false, bound);
        }

        String verdict(Double value, Double ratio) {
            Double x = onRatio ? ratio : value;
            if (x == null || x.isNaN()) {
                return "n/a";
            }
            return (atLeast ? x >= bound : x <= bound) ? "met" : "MISSED";
        }
    }

    /** One line of the table. */
    static final class Row {
        final String key;
        final String label;
        final String unit;
        final Target target;
        final Map<String, Double> values = new LinkedHashMap<>();

        Row(String key, String label, String unit, Target target) {
            this.key = key;
            this.label = label;
            this.unit = unit;
            this.target = target;
        }
    }

    /** One JMH benchmark method with fixed parameters, measured for several implementations. */
    static final class Spec {
        final Row row;
        final String method;
        final Map<String, String> params;
        final List<String> fullImpls;
        final boolean quick;

        Spec(Row row, String method, Map<String, String> params, List<String> fullImpls, boolean quick) {
            this.row = row;
            this.method = method;
            this.params = params;
            this.fullImpls = fullImpls;
            this.quick = quick;
        }
    }

    private boolean full;
    private boolean curveOnly;
    private List<String> only;
    private Path out;
    private Path chart;
    private final List<Row> rows = new ArrayList<>();
    private final Map<String, List<double[]>> curve = new LinkedHashMap<>();

    public static void main(String[] args) throws Exception {
        ComparisonRunner runner = new ComparisonRunner();
        runner.parse(args);
        runner.run();
        System.exit(0);
    }

    private void parse(String[] args) {
        boolean atRoot = Files.isDirectory(Path.of("jmh", "target")) && Files.exists(Path.of("pom.xml"));
        chart = atRoot ? Path.of("docs", "schedule-vs-pending.png") : Path.of("schedule-vs-pending.png");
        full = Boolean.getBoolean("tw.full");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--full": full = true; break;
                case "--quick": full = false; break;
                case "--curve": curveOnly = true; break;
                case "--only": only = List.of(args[++i].split(",")); break;
                case "--out": out = Path.of(args[++i]); break;
                case "--chart": chart = Path.of(args[++i]); break;
                case "-h":
                case "--help":
                    System.out.println("usage: java -jar jmh/target/benchmarks.jar [--full | --curve] [--only KEYS]"
                            + " [--out FILE] [--chart FILE]\n(see the Javadoc of io.timingwheel.jmh.ComparisonRunner)");
                    System.exit(0);
                    break;
                default:
                    System.err.println("unknown argument " + args[i] + " (try --help)");
                    System.exit(2);
            }
        }
        if (curveOnly) {
            only = List.of("curve");
        }
        if (out == null) {
            String file = "comparison-" + (curveOnly ? "curve" : full ? "full" : "quick") + ".md";
            out = atRoot ? Path.of("jmh", "target", file) : Path.of(file);
        }
    }

    private boolean selected(String key, boolean inQuick) {
        if (only != null) {
            return only.contains(key);
        }
        return full || inQuick;
    }

    private List<String> impls(List<String> fullImpls) {
        if (full) {
            return fullImpls;
        }
        List<String> quick = new ArrayList<>(fullImpls);
        quick.retainAll(QUICK_IMPLS);
        return quick;
    }

    private void run() throws Exception {
        long start = System.nanoTime();
        String loadBefore = loadAverage();
        String mode = curveOnly ? "curve" : full ? "full" : "quick";
        String jdk = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
        System.out.printf(Locale.ROOT, "timingwheel comparison, %s mode: %s, %d cores, %s, load average %s%n",
                mode, jdk, Runtime.getRuntime().availableProcessors(), System.getProperty("os.name"), loadBefore);

        List<String> all = List.of("jdk1", "jdkN", "tw", "netty1ms", "netty100ms");
        List<String> sustained = List.of("jdk1", "jdkN", "tw", "netty1ms");
        List<Spec> specs = List.of(
            spec("schedule", "schedule, 1 producer, fixed 1 h delay", Target.ratioAtLeast(1.6),
                    "ScheduleBenchmark.schedule", Map.of(), all, true),
            spec("schedule2", "schedule, 2 producers, fixed 1 h delay", Target.ratioAtLeast(2.5),
                    "ScheduleBenchmark.scheduleTwoProducers", Map.of(), all, true),
            spec("cancel", "schedule then cancel, 1 producer", Target.ratioAtLeast(4),
                    "CancelBenchmark.scheduleThenCancel", Map.of(), sustained, true),
            spec("cancel2", "schedule then cancel, 2 producers", null,
                    "CancelBenchmark.scheduleThenCancelTwoProducers", Map.of(), sustained, false),
            spec("pending10k", "cancel + schedule among 10 000 pending (random 1 s..1 h), 1 producer", null,
                    "PendingBenchmark.replace", Map.of("pending", "10000"), sustained, false),
            spec("pending1m", "cancel + schedule among 1 000 000 pending (random 1 s..1 h), 1 producer",
                    Target.ratioAtLeast(4), "PendingBenchmark.replace", Map.of("pending", "1000000"), sustained, true),
            spec("pending10k2", "cancel + schedule among 10 000 pending (random 1 s..1 h), 2 producers", null,
                    "PendingBenchmark.replaceTwoProducers", Map.of("pending", "10000"), sustained, false),
            spec("pending1m2", "cancel + schedule among 1 000 000 pending (random 1 s..1 h), 2 producers",
                    Target.ratioAtLeast(6), "PendingBenchmark.replaceTwoProducers", Map.of("pending", "1000000"),
                    sustained, true),
            spec("firing", "firing: batches of 100 000 tasks due at once, completed", null,
                    "FiringBenchmark.fireBatch", Map.of(), List.of("jdk1", "jdkN", "tw", "twN", "netty1ms",
                            "netty100ms"), false),
            spec("periodic", "periodic: 10 000 tasks every 1 ms, runs completed", null,
                    "PeriodicBenchmark.periodic", Map.of(), List.of("jdk1", "jdkN", "tw", "twN", "netty1ms"), false));

        List<Spec> chosen = new ArrayList<>();
        int forks = 0;
        for (Spec spec : specs) {
            if (selected(spec.row.key, spec.quick)) {
                chosen.add(spec);
                rows.add(spec.row);
                forks += impls(spec.fullImpls).size();
            }
        }
        int done = 0;
        for (Spec spec : chosen) {
            for (String impl : impls(spec.fullImpls)) {
                done++;
                System.out.printf(Locale.ROOT, "[%d/%d] %-46s %-10s ", done, forks, spec.method
                        + (spec.params.isEmpty() ? "" : " " + spec.params), impl);
                System.out.flush();
                double value = runJmh(spec, impl);
                spec.row.values.put(impl, value);
                System.out.printf(Locale.ROOT, "%s M ops/s%n", format(value));
            }
        }

        List<String> harnessImpls = full ? all : QUICK_IMPLS;
        boolean lateness = selected("lateness", true);
        boolean memory = selected("memory", true);
        boolean idle = selected("idle", true);
        Row p50 = null;
        Row p99 = null;
        Row p999 = null;
        Row max = null;
        Row early = null;
        Row bytes = null;
        Row cpu = null;
        Row wakeups = null;
        if (lateness) {
            p50 = addRow("lateness", "lateness p50, 200 000 one-shot tasks in 2 s, 2 producers", "µs", null);
            p99 = addRow("lateness", "lateness p99", "µs", Target.atMost(500, "≤ 500 µs"));
            p999 = addRow("lateness", "lateness p99.9", "µs", null);
            max = addRow("lateness", "lateness max", "µs", null);
            early = addRow("lateness", "early runs (must be 0)", "tasks", Target.atMost(0, "0"));
        }
        if (memory) {
            bytes = addRow("memory", "retained heap per pending one-shot task (1 000 000 due in 1 h)", "bytes",
                    Target.atMost(56, "≤ 56 B"));
        }
        if (idle) {
            cpu = addRow("idle", "idle with one task due in 1 h: CPU of its threads", "ms/s", Target.atMost(0.1,
                    "≈ 0"));
            wakeups = addRow("idle", "idle with one task due in 1 h: wake-ups", "1/s", Target.atMost(1, "none"));
        }
        List<String> parts = new ArrayList<>();
        if (idle) {
            parts.add("idle");
        }
        if (memory) {
            parts.add("memory");
        }
        if (lateness) {
            parts.add("lateness");
        }
        if (!parts.isEmpty()) {
            for (String impl : harnessImpls) {
                System.out.printf(Locale.ROOT, "harness %s %s%n", String.join(",", parts), impl);
                for (Map<String, String> r : harness(String.join(",", parts), impl, "-Xms2g", "-Xmx2g")) {
                    switch (r.get("part")) {
                        case "idle":
                            cpu.values.put(impl, number(r.get("cpuMsPerSec")));
                            wakeups.values.put(impl, number(r.get("wakeupsPerSec")));
                            break;
                        case "memory":
                            bytes.values.put(impl, number(r.get("bytesPerTask")));
                            break;
                        case "lateness":
                            p50.values.put(impl, number(r.get("p50us")));
                            p99.values.put(impl, number(r.get("p99us")));
                            p999.values.put(impl, number(r.get("p999us")));
                            max.values.put(impl, number(r.get("maxUs")));
                            early.values.put(impl, number(r.get("early")));
                            break;
                        default:
                            break;
                    }
                }
            }
        }

        if (selected("curve", false)) {
            runCurve();
        }

        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        String settings = curveOnly
                ? "Harness curve: per pending count, 3 rounds of 1 s after a warm-up, median"
                : full
                ? "JMH: 2 forks, warmup 3 × 1 s, measurement 5 × 1 s (schedule rows: 5 + 10 one-shot batches of"
                        + " 1 000 000 per producer)"
                : "JMH: 1 fork, warmup 2 × 1 s, measurement 5 × 1 s (schedule rows: 3 + 5 one-shot batches of"
                        + " 1 000 000 per producer)";
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "Run %s, %s mode, %d s; %s; %d cores; load average before %s,"
                        + " after %s.%n%s; figure = median of the measured iterations. Ratio = figure / STPE(1)"
                        + " figure (throughput: higher is better; µs, bytes, ms/s, 1/s: lower is better).%n%n",
                LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")), mode, seconds, jdk,
                Runtime.getRuntime().availableProcessors(), loadBefore, loadAverage(), settings));
        md.append(table());
        System.out.println();
        System.out.print(md);
        try {
            Path dir = out.toAbsolutePath().getParent();
            if (dir != null) {
                Files.createDirectories(dir);
            }
            Files.writeString(out, md.toString());
            System.out.println("\n(table also written to " + out + ")");
        } catch (IOException e) {
            System.err.println("could not write " + out + ": " + e);
        }
    }

    private static Spec spec(String key, String label, Target target, String method, Map<String, String> params,
                             List<String> fullImpls, boolean quick) {
        return new Spec(new Row(key, label, "M ops/s", target), method, params, fullImpls, quick);
    }

    private Row addRow(String key, String label, String unit, Target target) {
        Row row = new Row(key, label, unit, target);
        rows.add(row);
        return row;
    }

    /** Runs one benchmark method for one implementation; returns millions of operations per second (NaN: failed). */
    private double runJmh(Spec spec, String impl) {
        boolean singleShot = spec.method.startsWith("ScheduleBenchmark.");
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include("^" + Pattern.quote(ComparisonRunner.class.getPackageName() + "." + spec.method) + "$")
                .param("impl", impl)
                .forks(full ? 2 : 1)
                .warmupIterations(singleShot ? (full ? 5 : 3) : (full ? 3 : 2))
                .measurementIterations(singleShot ? (full ? 10 : 5) : 5)
                .warmupTime(TimeValue.seconds(1))
                .measurementTime(TimeValue.seconds(1))
                .verbosity(VerboseMode.SILENT);
        spec.params.forEach(options::param);
        try {
            Collection<RunResult> results = new Runner(options.build()).run();
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

    /** Starts the harness for one implementation in a JVM of its own and returns its results. */
    private static List<Map<String, String>> harness(String parts, String impl, String... jvmArgs)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(jvmArgs));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Harness.class.getName(), parts, impl));
        if (parts.equals("curve")) {
            command.add("10000000");
        }
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<Map<String, String>> results = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                Map<String, String> result = Harness.parse(line);
                if (result != null) {
                    results.add(result);
                    System.out.println("  " + line.substring("RESULT ".length()));
                }
            }
        }
        int exit = process.waitFor();
        if (exit != 0) {
            System.out.println("  harness " + parts + " " + impl + " failed with exit code " + exit);
        }
        return results;
    }

    private void runCurve() throws IOException, InterruptedException {
        List<String> impls = List.of("jdk1", "tw", "netty1ms");
        List<Row> wallRows = new ArrayList<>();
        List<Row> cpuRows = new ArrayList<>();
        for (long pending = 1_000; pending <= 10_000_000; pending *= 10) {
            String count = String.format(Locale.ROOT, "%,d", pending).replace(',', ' ');
            cpuRows.add(addRow("curve", "curve: cancel + schedule among " + count
                    + " pending, 1 producer: CPU of all threads", "ns/op", null));
        }
        for (long pending = 1_000; pending <= 10_000_000; pending *= 10) {
            String count = String.format(Locale.ROOT, "%,d", pending).replace(',', ' ');
            wallRows.add(addRow("curve", "curve: cancel + schedule among " + count
                    + " pending, 1 producer: wall time", "ns/op", null));
        }
        Row growth = addRow("curve", "curve: CPU cost at 10 000 000 pending ÷ at 1 000 (flat = 1)", "×",
                Target.atMost(1.5, "flat (≤ 1.5)"));
        StringBuilder csv = new StringBuilder("impl,pending,wallNsPerOp,cpuNsPerOp\n");
        for (String impl : impls) {
            System.out.printf(Locale.ROOT, "harness curve %s (1 000 .. 10 000 000 pending)%n", impl);
            List<double[]> points = new ArrayList<>();
            // A pre-touched heap, as in the JMH forks (see ScheduleBenchmark): the curve allocates at full speed.
            for (Map<String, String> r : harness("curve", impl, "-Xms6g", "-Xmx6g", "-XX:+AlwaysPreTouch")) {
                long pending = Long.parseLong(r.get("pending"));
                int level = (int) Math.round(Math.log10(pending)) - 3;
                double cpu = number(r.get("cpuNsPerOp"));
                points.add(new double[] {pending, cpu});
                cpuRows.get(level).values.put(impl, cpu);
                wallRows.get(level).values.put(impl, number(r.get("nsPerOp")));
                csv.append(impl).append(',').append(pending).append(',').append(r.get("nsPerOp")).append(',')
                        .append(r.get("cpuNsPerOp")).append('\n');
            }
            if (points.size() == 5) {
                growth.values.put(impl, points.get(4)[1] / points.get(0)[1]);
            }
            curve.put(TITLES.get(impl), points);
        }
        Path csvFile = chart.resolveSibling("schedule-vs-pending.csv"); // beside the chart, where the README points
        Files.writeString(csvFile, csv);
        try {
            Chart.write(chart, "CPU cost of schedule + cancel as pending tasks grow",
                    "cancel the oldest pending task, schedule one with a random delay in [1 s, 1 h); one producer;"
                            + " CPU of all threads\nJDK " + System.getProperty("java.runtime.version") + ", "
                            + Runtime.getRuntime().availableProcessors() + " cores, load average " + loadAverage()
                            + "; STPE(1) with removeOnCancel; median of 3 × 1 s",
                    curve);
            System.out.println("chart written to " + chart + " (data: " + csvFile + ")");
        } catch (IOException | RuntimeException | Error e) {
            // a JDK without fonts or AWT still gets the table
            System.err.println("could not draw the chart: " + e);
        }
    }

    /** The comparison table in Markdown. */
    private String table() {
        List<String> columns = new ArrayList<>();
        for (String impl : TITLES.keySet()) {
            for (Row row : rows) {
                if (row.values.containsKey(impl)) {
                    columns.add(impl);
                    break;
                }
            }
        }
        StringBuilder sb = new StringBuilder("| workload | unit |");
        for (String impl : columns) {
            sb.append(' ').append(TITLES.get(impl)).append(" |");
        }
        sb.append(" TW target | met |\n|---|---|");
        for (int i = 0; i < columns.size(); i++) {
            sb.append("---:|");
        }
        sb.append("---|---|\n");
        for (Row row : rows) {
            Double base = row.values.get(Subject.BASELINE);
            sb.append("| ").append(row.label).append(" | ").append(row.unit).append(" |");
            for (String impl : columns) {
                Double value = row.values.get(impl);
                sb.append(' ');
                if (value == null) {
                    sb.append("–");
                } else {
                    sb.append(format(value));
                    Double ratio = ratio(value, base);
                    if (ratio != null) {
                        sb.append(String.format(Locale.ROOT, " (%.2f×)", ratio));
                    }
                }
                sb.append(" |");
            }
            Double tw = row.values.get(TW);
            sb.append(' ').append(row.target == null ? "" : row.target.text).append(" | ")
                    .append(row.target == null ? "" : row.target.verdict(tw, tw == null ? null : ratio(tw, base)))
                    .append(" |\n");
        }
        return sb.toString();
    }

    private static Double ratio(double value, Double base) {
        if (base == null || base.isNaN() || base == 0 || Double.isNaN(value)) {
            return null;
        }
        return value / base;
    }

    private static double number(String text) {
        return text == null ? Double.NaN : Double.parseDouble(text);
    }

    /** Three significant digits, or more for large numbers. */
    static String format(double value) {
        if (Double.isNaN(value)) {
            return "failed";
        }
        double abs = Math.abs(value);
        if (abs >= 100 || value == Math.rint(value)) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        if (abs >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }

    private static String loadAverage() {
        try {
            String[] words = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return words[0] + " " + words[1] + " " + words[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
