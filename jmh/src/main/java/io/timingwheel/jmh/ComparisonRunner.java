package io.timingwheel.jmh;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one-command comparison: runs the benchmarks and the harness for TimingWheelExecutor (TW) and its peers,
 * {@code ScheduledThreadPoolExecutor(1)} (STPE(1), the baseline of every ratio), the JDK 25 {@code ForkJoinPool(1)}
 * and Netty's {@code HashedWheelTimer}, in one go, and prints one table, each figure with its ratio to STPE(1) from the
 * same run, headed by the machine, the JDK and the settings.
 *
 * <pre>{@code mvn -B -q -DskipTests package && java -jar jmh/target/benchmarks.jar}</pre>
 *
 * <ul>
 *   <li>default (quick, about 3 minutes on 2 cores, 4 on JDK 25 with the ForkJoinPool): STPE(1), ForkJoinPool(1),
 *       TW and Netty (1 ms tick) on the main workloads (firing and periodic throughput only in {@code --full}); JMH
 *       with 1 fork, warmup 2 &times; 1 s, measurement 5 &times; 1 s (five, not three: on a shared machine a median of
 *       three lands on an iteration that a young collection or the host's scheduler hit too often; the schedule rows:
 *       3 + 5 one-shot batches of a million); the harness (lateness, memory, idle) once per implementation; the
 *       on-time rows ({@link OnTimeHarness}: a burst by delay band, a cold start, tasks due at once among firing
 *       timers with 1 and 4 workers, a heartbeat during a burst) in one JVM per part and implementation ({@code
 *       --rounds N}: N of them in turn, and their medians);</li>
 *   <li>{@code --full} (about 25 minutes): every implementation ({@code jdk1 jdkN fjp1 tw twN netty1ms netty100ms}
 *       where the peer can do the work) on every benchmark, 2 forks, warmup 3 &times; 1 s, measurement 5 &times; 1 s,
 *       plus the pending-count curve from 1 000 to 10 000 000 and its chart ({@code docs/schedule-vs-pending.png});</li>
 *   <li>{@code --curve}: only the pending-count curve and its chart;</li>
 *   <li>{@code --scale}: only the producer-count scaling table and chart, see {@link ScaleRun}
 *       ({@code --scale --smoke} checks in seconds that it works; its figures mean nothing);</li>
 *   <li>{@code --workers}: only the worker-count table: the firing rate with 1, 4 and 16 workers ({@code
 *       --worker-counts}) for STPE, the ForkJoinPool and ours, and the lateness of a burst and of tasks due at once
 *       among firing timers with the least and the most of them, for STPE and ours, each against STPE with as many
 *       threads;</li>
 *   <li>{@code --only KEY[,KEY...]}: only those rows (keys: schedule, schedule2, cancel, cancel2, pending10k,
 *       pending1m, pending10k2, pending1m2, firing, periodic, lateness, memory, idle, burst, cold, duenow, heartbeat,
 *       steady, rate, external, curve; with {@code --scale}: schedule, pending);</li>
 *   <li>{@code --out FILE}: where the Markdown table goes as well (default
 *       {@code jmh/target/comparison-<mode>.md}, {@code docs/scaling.md} for {@code --scale}, or the current directory
 *       outside the repository root); {@code --chart FILE}: where the chart goes (its CSV beside it).</li>
 * </ul>
 * Each figure is the median of the measured iterations. Throughputs are millions of operations per second, higher is
 * better; the harness rows are costs, lower is better. The ratio is always figure / STPE(1) figure. On a JDK before 25
 * the ForkJoinPool cannot schedule, and its column reads "n/a". The project's targets for these figures are in
 * {@code jmh/README.md}; the table itself only reports.
 */
public final class ComparisonRunner {

    private ComparisonRunner() {
    }

    public static void main(String[] args) throws Exception {
        // The tables use ×, µ and –; the platform's default encoding (ASCII in a bare container) would print '?'.
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8));
        Options options = Options.parse(args);
        if (options.mode == Options.Mode.SCALE) {
            new ScaleRun(options).run();
        } else if (options.mode == Options.Mode.WORKERS) {
            workers(options);
        } else {
            compare(options);
        }
        System.exit(0); // daemon threads of the peers must not keep the JVM, and nothing else is left to wait for
    }

    /** The peers of the on-time rows: the baseline, the JDK 25 pool, ours and Netty with a 1 ms tick. */
    static final List<String> ON_TIME_IMPLS = List.of("jdk1", "fjp1", "tw", "netty1ms");

    /**
     * The {@code --workers} mode: the firing rate with each worker count for STPE, the ForkJoinPool and ours, and the
     * lateness of a burst and of tasks due at once among firing timers with the least and the most of them, for STPE
     * and ours; every row against STPE with as many threads.
     */
    private static void workers(Options options) throws Exception {
        Report report = new Report("timingwheel with several workers");
        System.out.println(report.startLine());
        Map<String, String> titles = new LinkedHashMap<>();
        titles.put("jdk1", "STPE(n)");
        titles.put("fjp1", "ForkJoinPool(n)");
        titles.put("tw", "TW(n)");
        Table table = new Table(titles);
        List<Integer> counts = options.workerCounts;
        List<Integer> lateness = counts.size() == 1 ? counts
                : List.of(Collections.min(counts), Collections.max(counts));
        OnTimeRows rows = new OnTimeRows(List.of("jdk1", "fjp1", "tw"), options.rounds)
                .addWorkerRows(table, counts, lateness, List.of("jdk1", "tw")).addEarlyRow(table);
        rows.run();
        report.setting(rows.settings());
        report.setting("n in a column title is the worker count of the row; every executor of a row has n threads");
        report.reading("Firing rate: tasks completed per second, higher is better. Lateness: µs, lower is better."
                + " Ratio: figure / STPE(n) figure from the same run.");
        report.reading("n/a: the implementation cannot run on this JDK (ForkJoinPool schedules since JDK 25);"
                + " –: not measured for it.");
        report.append(table.markdown());
        report.printAndWrite(options.out);
    }

    /** The comparison table: the JMH throughput rows, the harness's cost rows and the curve, as selected. */
    private static void compare(Options options) throws Exception {
        Report report = new Report("timingwheel comparison, " + options.mode.word + " mode");
        System.out.println(report.startLine());
        Table table = new Table();
        if (options.mode != Options.Mode.CURVE) {
            JmhRows jmh = new JmhRows(options);
            if (jmh.run(table)) {
                report.setting(jmh.settings());
            }
            if (new HarnessRows(options).run(table)) {
                report.setting(HarnessRows.settings());
            }
            OnTimeRows onTime = new OnTimeRows(ON_TIME_IMPLS, options.rounds)
                    .addComparisonRows(table, key -> options.selected(key, !key.equals("steady")),
                            options.mode == Options.Mode.FULL)
                    .addEarlyRow(table);
            if (!onTime.isEmpty()) {
                onTime.run();
                report.setting(onTime.settings());
            }
        }
        if (options.selected("curve", false)) {
            report.setting(PendingCurve.settings());
            new PendingCurve(options.chart).run(table);
        }
        report.reading("Figure: the median of the measured iterations. Ratio: figure / STPE(1) figure from the same"
                + " run. M ops/s: millions of operations per second, higher is better; µs, bytes, ms/s, 1/s, ns/op,"
                + " % (CPU): costs, lower is better.");
        report.reading("n/a: the implementation cannot run on this JDK (ForkJoinPool schedules since JDK 25);"
                + " –: not measured for it (e.g. Netty's 100 ms tick cannot sustain cancel-heavy loads).");
        report.append(table.markdown());
        report.printAndWrite(options.out);
    }
}
