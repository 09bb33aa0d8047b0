package io.timingwheel.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The pending-count curve: the cost of cancel + schedule ({@link TaskRing}'s operation) at 1 000, 10 000, ...
 * 10 000 000 pending tasks, measured by {@code Harness curve} in a JVM of its own per implementation; its rows go into
 * the table, its points into a chart and a CSV beside it (where the README points).
 */
final class PendingCurve {

    /** The implementations on the curve. */
    private static final List<String> IMPLS = List.of("jdk1", "fjp1", "tw", "netty1ms");

    /** The largest pending count, and the number of decades from 1 000 up to it. */
    private static final long MAX_PENDING = 10_000_000;
    private static final int POINTS = 5;

    /**
     * A pre-touched heap, as in the JMH forks (see {@link ScheduleBenchmark}): the curve allocates at full speed, and
     * 10 000 000 pending tasks need a few GB.
     */
    static final List<String> JVM_FLAGS = List.of("-Xms6g", "-Xmx6g", "-XX:+AlwaysPreTouch");

    private final Path chart;
    private final List<Table.Row> cpuRows = new ArrayList<>();
    private final List<Table.Row> wallRows = new ArrayList<>();
    private Table.Row growth;
    private final Map<String, List<double[]>> lines = new LinkedHashMap<>();
    private final StringBuilder csv = new StringBuilder("impl,pending,wallNsPerOp,cpuNsPerOp\n");

    PendingCurve(Path chart) {
        this.chart = chart;
    }

    static String settings() {
        return "curve: one JVM per implementation with " + String.join(" ", JVM_FLAGS) + "; per pending count, 3"
                + " rounds of 1 s after a warm-up, median";
    }

    /** Adds the curve's rows to {@code table}, measures every implementation, and draws the chart. */
    void run(Table table) throws IOException, InterruptedException {
        addRows(table);
        for (String impl : IMPLS) {
            System.out.printf(Locale.ROOT, "harness curve %s (1 000 .. 10 000 000 pending)%n", impl);
            if (!Subject.available(impl)) {
                cpuRows.forEach(row -> row.unavailable.add(impl));
                wallRows.forEach(row -> row.unavailable.add(impl));
                growth.unavailable.add(impl);
                System.out.println("  n/a on JDK " + Machine.jdkFeature());
                continue;
            }
            measure(impl);
        }
        writeDataAndChart();
    }

    private void addRows(Table table) {
        for (long pending = 1_000; pending <= MAX_PENDING; pending *= 10) {
            cpuRows.add(table.add("curve", "curve: cancel + schedule among " + spaced(pending)
                    + " pending, 1 producer: CPU of all threads", "ns/op"));
        }
        for (long pending = 1_000; pending <= MAX_PENDING; pending *= 10) {
            wallRows.add(table.add("curve", "curve: cancel + schedule among " + spaced(pending)
                    + " pending, 1 producer: wall time", "ns/op"));
        }
        growth = table.add("curve", "curve: CPU cost at 10 000 000 pending ÷ at 1 000 (flat = 1)", "×");
    }

    private void measure(String impl) throws IOException, InterruptedException {
        List<double[]> points = new ArrayList<>();
        for (Map<String, String> r : ChildJvm.run(Harness.class, JVM_FLAGS,
                List.of("curve", impl, Long.toString(MAX_PENDING)))) {
            long pending = Long.parseLong(r.get("pending"));
            int decade = (int) Math.round(Math.log10(pending)) - 3;
            double cpu = ChildJvm.number(r, "cpuNsPerOp");
            points.add(new double[] {pending, cpu});
            cpuRows.get(decade).put(impl, cpu);
            wallRows.get(decade).put(impl, ChildJvm.number(r, "nsPerOp"));
            csv.append(impl).append(',').append(pending).append(',').append(r.get("nsPerOp")).append(',')
                    .append(r.get("cpuNsPerOp")).append('\n');
        }
        if (points.size() == POINTS) {
            growth.put(impl, points.get(POINTS - 1)[1] / points.get(0)[1]);
        }
        lines.put(Subject.title(impl), points);
    }

    private void writeDataAndChart() throws IOException {
        Path csvFile = Options.sibling(chart, ".csv");
        Path dir = csvFile.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        Files.writeString(csvFile, csv);
        try {
            Chart.Plot plot = new Chart.Plot("", Chart.XAxis.decades("pending tasks (log scale)"),
                    "CPU ns per schedule + cancel (lower is better)", lines);
            Chart.write(chart, "CPU cost of schedule + cancel as pending tasks grow",
                    "cancel the oldest pending task, schedule one with a random delay in [1 s, 1 h); one producer;"
                            + " CPU of all threads\nJDK " + System.getProperty("java.runtime.version") + ", "
                            + Machine.cores() + " cores, load average " + Machine.loadAverage()
                            + "; STPE(1) with removeOnCancel; median of 3 × 1 s",
                    List.of(plot), 1);
            System.out.println("chart written to " + chart + " (data: " + csvFile + ")");
        } catch (IOException | RuntimeException | Error e) {
            // a JDK without fonts or AWT still gets the table
            System.err.println("could not draw the chart: " + e);
        }
    }

    /** 10000000 as "10 000 000". */
    static String spaced(long count) {
        return String.format(Locale.ROOT, "%,d", count).replace(',', ' ');
    }
}
