package io.timingwheel.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * The {@code --scale} mode of the comparison: throughput as producer threads are added, for two workloads, every peer,
 * two measures; one table (printed and written as Markdown), its data as CSV and a chart, all from one run.
 *
 * <pre>{@code java -jar jmh/target/benchmarks.jar --scale}</pre>
 * <pre>{@code java -jar jmh/target/benchmarks.jar --scale --smoke}      (checks that it works; figures meaningless)</pre>
 *
 * <ul>
 *   <li>workloads: {@code schedule(task, 1 h)}, and cancel + schedule among 1 000 000 pending tasks with random delays
 *       in [1 s, 1 h) (see {@link ScalingHarness} for how each is measured);</li>
 *   <li>producers: 1, 2, 4, 8 and 16 threads, those up to the machine's available processors, 1 and 2 always
 *       ({@code --producers N,...} chooses others);</li>
 *   <li>peers: STPE(1) (the baseline), the JDK 25 ForkJoinPool(1) (n/a on an older JDK), TimingWheelExecutor(1) and
 *       Netty's HashedWheelTimer with a 1 ms tick;</li>
 *   <li>measures: producer-side (all producers' operations over the time they ran) and sustained (until a barrier task,
 *       scheduled once they were done, has run: a backlog left in a scheduler's inbox counts).</li>
 * </ul>
 * Each peer and workload runs in a JVM of its own ({@link ChildJvm}) with {@link #JVM_FLAGS}. Files: {@code
 * docs/scaling.md}, {@code docs/scaling.csv} and {@code docs/scaling.png} from the repository root, else in the current
 * directory; {@code --smoke} writes {@code scaling-smoke.*} into {@code jmh/target/} (or the current directory) instead,
 * so that smoke figures never land beside real ones. {@code --out} and {@code --chart} choose other places.
 */
final class ScaleRun {

    /** The peers, in table order; the first is the baseline of every ratio. */
    static final List<String> PEERS = List.of("jdk1", "fjp1", "tw", "netty1ms");

    /** The workloads, by the key that {@code --only} and {@link ScalingHarness} take. */
    static final List<String> WORKLOADS = List.of("schedule", "pending");

    /** The producer counts tried by default, up to the number of cores (1 and 2 always). */
    private static final List<Integer> LADDER = List.of(1, 2, 4, 8, 16);

    /**
     * Child JVM flags: the JMH forks' (a 3 GB young generation holds one batch's allocation, and a pre-touched heap
     * takes no page faults while measured, see {@link ScheduleBenchmark}).
     */
    static final List<String> JVM_FLAGS = List.of("-Xms4g", "-Xmx4g", "-Xmn3g", "-XX:+AlwaysPreTouch");

    /** Smoke flags: small and quick to start, for a 2-core machine shared with other work. */
    static final List<String> SMOKE_JVM_FLAGS = List.of("-Xms1g", "-Xmx1g");

    /** One measured point: figures in millions of operations per second (NaN: failed). */
    static final class Point {
        final double producerSide;
        final double sustained;
        final Map<String, String> raw;

        Point(double producerSide, double sustained, Map<String, String> raw) {
            this.producerSide = producerSide;
            this.sustained = sustained;
            this.raw = raw;
        }
    }

    private final Options options;
    private final List<Integer> producers;
    private final List<String> workloads;
    /** Results: workload → peer → producer count → point; a peer missing from a workload's map is not available. */
    private final Map<String, Map<String, Map<Integer, Point>>> results = new LinkedHashMap<>();

    ScaleRun(Options options) {
        this.options = options;
        this.producers = options.replot != null ? countsIn(options.replot)
                : options.producers != null ? List.copyOf(new TreeSet<>(options.producers)) : ladder();
        List<String> chosen = new ArrayList<>(WORKLOADS);
        if (options.only != null) {
            chosen.retainAll(options.only); // Options has checked that only workloads are named
        }
        this.workloads = chosen;
    }

    /** 1, 2, 4, 8, 16 up to the available processors, but 1 and 2 always. */
    static List<Integer> ladder() {
        List<Integer> counts = new ArrayList<>();
        for (int count : LADDER) {
            if (count <= 2 || count <= Machine.cores()) {
                counts.add(count);
            }
        }
        return counts;
    }

    void run() throws IOException, InterruptedException {
        if (options.replot != null) {
            replot(options.replot);
            return;
        }
        Report report = new Report("timingwheel scaling" + (options.smoke ? ", SMOKE RUN (figures meaningless)" : ""));
        System.out.println(report.startLine());
        measureAll();
        report.setting(settings());
        report.reading("Figures: millions of operations per second, all producers together, median of the measured"
                + " batches; higher is better. Ratio: figure / STPE(1) figure for the same workload, producer count"
                + " and measure, from the same run.");
        report.reading("Producer-side: the batch's operations over the time from the first producer's start to the"
                + " last one's end. Sustained: over the time until a barrier task (1 ns delay, scheduled as the last"
                + " producer finished) has run, so a backlog in a scheduler's inbox counts; the wheels add up to one"
                + " tick (1 ms) per batch.");
        report.reading("n/a: the peer cannot run on this JDK (ForkJoinPool schedules since JDK 25). failed: see the"
                + " ERROR line above the table.");
        report.append(table());
        report.printAndWrite(options.out);
        writeCsv();
        writeChart(Machine.cores() + " cores, JDK " + System.getProperty("java.runtime.version") + ", load average "
                + Machine.loadAverage());
    }

    /** The producer counts of a CSV this mode wrote. */
    private static List<Integer> countsIn(Path csv) {
        try {
            List<String> lines = Files.readAllLines(csv);
            TreeSet<Integer> counts = new TreeSet<>();
            for (String line : lines.subList(1, lines.size())) {
                counts.add(Integer.parseInt(line.split(",")[1]));
            }
            return List.copyOf(counts);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot read " + csv, e);
        }
    }

    /**
     * Draws the chart of a CSV this mode wrote elsewhere (a machine without fonts writes the table and the CSV but
     * cannot draw): the machine's line of its Markdown table, beside it, goes into the subtitle.
     */
    private void replot(Path csv) throws IOException {
        List<String> lines = Files.readAllLines(csv);
        String[] header = lines.get(0).split(",");
        for (String line : lines.subList(1, lines.size())) {
            Map<String, String> raw = new LinkedHashMap<>();
            String[] cells = line.split(",", -1);
            for (int i = 0; i < header.length && i < cells.length; i++) {
                raw.put(header[i], cells[i]);
            }
            results.computeIfAbsent(raw.get("workload"), w -> new LinkedHashMap<>())
                    .computeIfAbsent(raw.get("impl"), i -> new LinkedHashMap<>())
                    .put(Integer.parseInt(raw.get("producers")), new Point(Double.parseDouble(raw.get("producerSideMops")),
                            Double.parseDouble(raw.get("sustainedMops")), raw));
        }
        workloads.retainAll(results.keySet());
        String cores = "";
        String jdk = "";
        String run = "";
        Path md = Options.sibling(csv, ".md");
        if (Files.exists(md)) {
            for (String line : Files.readAllLines(md)) {
                if (line.startsWith("- Machine: ")) { // "16 cores (available processors), ...": the cores
                    cores = line.substring("- Machine: ".length()).split(" \\(")[0];
                } else if (line.startsWith("- JDK: ")) { // "OpenJDK 64-Bit Server VM 25.0.3+9-LTS (...)": the version
                    for (String word : line.split(" ")) {
                        if (word.matches("\\d+(\\.\\d+)*\\+.*")) {
                            jdk = ", JDK " + word;
                        }
                    }
                } else if (line.startsWith("- Run: ")) { // "2026-11-26 04:24, 223 s": the date
                    run = ", run " + line.substring("- Run: ".length()).split(",")[0];
                }
            }
        }
        String machine = cores + jdk + run;
        writeChart(machine.isEmpty() ? "machine as in " + csv.getFileName() : machine);
    }

    /** The settings of this run, for the report's header and the chart's subtitle. */
    private String settings() {
        return "producers " + producers + "; " + sizes().describe() + "; one JVM per peer and workload with "
                + String.join(" ", jvmFlags()) + "; a full GC between batches (untimed)";
    }

    private List<String> jvmFlags() {
        return options.smoke ? SMOKE_JVM_FLAGS : JVM_FLAGS;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // measuring

    private void measureAll() throws IOException, InterruptedException {
        String counts = producers.stream().map(String::valueOf).reduce((a, b) -> a + "," + b).orElse("1");
        for (String workload : workloads) {
            Map<String, Map<Integer, Point>> byPeer = new LinkedHashMap<>();
            results.put(workload, byPeer);
            for (String peer : PEERS) {
                System.out.printf(Locale.ROOT, "scale %s %s, producers %s%n", workload, peer, counts);
                if (!Subject.available(peer)) {
                    System.out.println("  n/a on JDK " + Machine.jdkFeature());
                    continue;
                }
                Map<Integer, Point> byProducers = new LinkedHashMap<>();
                byPeer.put(peer, byProducers);
                List<String> args = new ArrayList<>(List.of(workload, peer, counts));
                if (options.smoke) {
                    args.add("--smoke");
                }
                for (Map<String, String> r : ChildJvm.run(ScalingHarness.class, jvmFlags(), args)) {
                    byProducers.put(Integer.parseInt(r.get("producers")), new Point(
                            ChildJvm.number(r, "producerSideMops"), ChildJvm.number(r, "sustainedMops"), r));
                }
            }
        }
    }

    /** The point, or a failed one (NaN) where the peer ran but this producer count did not report. */
    private Point point(String workload, String peer, int count) {
        Point point = results.get(workload).get(peer).get(count);
        return point != null ? point : new Point(Double.NaN, Double.NaN, Map.of());
    }

    private boolean available(String workload, String peer) {
        return results.get(workload).containsKey(peer);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // table, CSV, chart

    /** Rows: workload × producers; columns: per peer, producer-side and sustained, each with its ratio to STPE(1). */
    private String table() {
        StringBuilder sb = new StringBuilder("| workload | producers |");
        for (String peer : PEERS) {
            sb.append(' ').append(Subject.title(peer)).append(" producer-side | ")
                    .append(Subject.title(peer)).append(" sustained |");
        }
        sb.append("\n|---|---:|").append("---:|---:|".repeat(PEERS.size())).append('\n');
        for (String workload : workloads) {
            for (int count : producers) {
                sb.append("| ").append(label(workload)).append(" | ").append(count).append(" |");
                for (String peer : PEERS) {
                    if (!available(workload, peer)) {
                        sb.append(" n/a | n/a |");
                        continue;
                    }
                    Point point = point(workload, peer, count);
                    Point base = baseline(workload, count);
                    boolean isBase = peer.equals(Subject.BASELINE);
                    sb.append(' ').append(cell(point.producerSide, isBase || base == null ? null : base.producerSide))
                            .append(" | ").append(cell(point.sustained, isBase || base == null ? null : base.sustained))
                            .append(" |");
                }
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    private static String cell(double value, Double base) {
        return Table.withRatio(value, base);
    }

    private Point baseline(String workload, int count) {
        return available(workload, Subject.BASELINE) ? point(workload, Subject.BASELINE, count) : null;
    }

    private ScalingHarness.Settings sizes() {
        return options.smoke ? ScalingHarness.SMOKE : ScalingHarness.FULL;
    }

    /** The label of a workload's rows in the table. */
    private String label(String workload) {
        return workload.equals("schedule") ? "schedule, fixed 1 h delay"
                : "cancel + schedule among " + PendingCurve.spaced(sizes().pending) + " pending, random 1 s..1 h";
    }

    /** The title of a workload's plots: short, two of them stand side by side. */
    private String shortLabel(String workload) {
        return workload.equals("schedule") ? "schedule (1 h)"
                : "cancel + schedule (" + PendingCurve.spaced(sizes().pending) + " pending)";
    }

    private void writeCsv() {
        StringBuilder csv = new StringBuilder("workload,producers,impl,producerSideMops,sustainedMops,"
                + "producerSideRatio,sustainedRatio,batches,opsPerBatch,pending,backlogMs\n");
        for (String workload : workloads) {
            for (int count : producers) {
                Point base = baseline(workload, count);
                for (String peer : PEERS) {
                    if (!available(workload, peer)) {
                        continue;
                    }
                    Point point = point(workload, peer, count);
                    csv.append(String.join(",", workload, Integer.toString(count), peer,
                            csvNumber(point.producerSide), csvNumber(point.sustained),
                            csvRatio(point.producerSide, base == null ? null : base.producerSide),
                            csvRatio(point.sustained, base == null ? null : base.sustained),
                            point.raw.getOrDefault("batches", ""), point.raw.getOrDefault("opsPerBatch", ""),
                            point.raw.getOrDefault("pending", ""), point.raw.getOrDefault("backlogMs", "")))
                            .append('\n');
                }
            }
        }
        Path file = Options.sibling(options.chart, ".csv");
        try {
            Path dir = file.toAbsolutePath().getParent();
            if (dir != null) {
                Files.createDirectories(dir);
            }
            Files.writeString(file, csv);
            System.out.println("(data written to " + file + ")");
        } catch (IOException e) {
            System.err.println("could not write " + file + ": " + e);
        }
    }

    private static String csvNumber(double value) {
        return Double.isNaN(value) ? "NaN" : String.format(Locale.ROOT, "%.3f", value);
    }

    private static String csvRatio(double value, Double base) {
        Double ratio = Table.ratio(value, base);
        return ratio == null ? "" : String.format(Locale.ROOT, "%.3f", ratio);
    }

    /**
     * A grid of plots: one row per workload, producer-side left and sustained right, one line per peer. The two plots of
     * a workload share their y axis, so that the gap between a peer's two figures shows as what it is.
     */
    private void writeChart(String machine) {
        List<Chart.Plot> plots = new ArrayList<>();
        for (String workload : workloads) {
            Chart.Plot producerSide = plot(workload, "producer-side", true);
            Chart.Plot sustained = plot(workload, "sustained", false);
            double top = Chart.niceCeiling(Math.max(1e-9, Math.max(producerSide.maxY(), sustained.maxY())) * 1.08);
            producerSide.yTop = top;
            sustained.yTop = top;
            plots.add(producerSide);
            plots.add(sustained);
        }
        String title = "Throughput as producer threads are added"
                + (options.smoke ? " (SMOKE RUN: figures meaningless)" : "");
        String subtitle = "millions of operations per second, all producers together (higher is better); " + machine
                + "\nsustained: until a barrier task scheduled after the producers' last call has run; "
                + String.join(" ", jvmFlags()) + "; median of the measured batches";
        try {
            Chart.write(options.chart, title, subtitle, plots, 2);
            System.out.println("(chart written to " + options.chart + ")");
        } catch (IOException | RuntimeException | Error e) {
            // a JDK without fonts or AWT still gets the table and the CSV
            System.err.println("could not draw the chart: " + e);
        }
    }

    private Chart.Plot plot(String workload, String measure, boolean producerSide) {
        Map<String, List<double[]>> lines = new LinkedHashMap<>();
        for (String peer : PEERS) {
            if (!available(workload, peer)) {
                continue;
            }
            List<double[]> points = new ArrayList<>();
            for (int count : producers) {
                Point point = point(workload, peer, count);
                points.add(new double[] {count, producerSide ? point.producerSide : point.sustained});
            }
            lines.put(Subject.title(peer), points);
        }
        return new Chart.Plot(shortLabel(workload) + ": " + measure,
                Chart.XAxis.powersOfTwo("producer threads (log scale)"), "M ops/s", lines);
    }
}
