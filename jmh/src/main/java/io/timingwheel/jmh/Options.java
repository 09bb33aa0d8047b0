package io.timingwheel.jmh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of {@link ComparisonRunner}, parsed: which mode, which rows, where the files go.
 *
 * <p>Files go under the repository when the runner is started from its root (the table to {@code jmh/target/}, charts
 * and their data to {@code docs/}) and into the current directory anywhere else, so that {@code java -jar
 * benchmarks.jar} also works from another directory (the bigger machine runs it from {@code /tmp}).
 */
final class Options {

    /** What one run of the runner does. */
    enum Mode {
        /** The rows that matter most, the usual peers, short JMH settings (about 4 minutes on 2 cores). */
        QUICK("quick"),
        /** Every row and every peer, longer JMH settings, and the pending-count curve (about 25 minutes). */
        FULL("full"),
        /** Only the pending-count curve and its chart. */
        CURVE("curve"),
        /** Only the producer-count scaling table and its chart ({@link ScaleRun}). */
        SCALE("scale"),
        /** Only the worker-count table: firing rate and lateness at several worker counts ({@link OnTimeRows}). */
        WORKERS("workers");

        final String word;

        Mode(String word) {
            this.word = word;
        }
    }

    static final String USAGE = String.join("\n",
            "usage: java -jar jmh/target/benchmarks.jar [MODE] [OPTIONS]",
            "modes:",
            "  (none)          quick comparison: the main rows for STPE(1), ForkJoinPool(1) (JDK 25+), TW and",
            "                  Netty 1 ms (~3 min on 2 cores; ~4 with the ForkJoinPool)",
            "  --full          every row and peer, longer settings, plus the pending-count curve (~25 min)",
            "  --curve         only the pending-count curve and its chart (docs/schedule-vs-pending.png)",
            "  --workers       only the worker-count table: firing rate with 1, 4, 16 workers (STPE, ForkJoinPool, TW),",
            "                  and the lateness of a burst and of tasks due at once among firing timers with 1 and 16",
            "                  workers (STPE, TW) (~70 s per round on 16 cores)",
            "  --scale         only the producer-count scaling: schedule (fixed 1 h) and cancel + schedule among",
            "                  1 000 000 pending, at 1, 2, 4, 8, 16 producers (at most the core count), producer-side",
            "                  and sustained; table, CSV and chart (docs/scaling.*) (~10 min on 16 cores)",
            "options:",
            "  --only KEY,...  only these rows; keys: schedule, schedule2, cancel, cancel2, pending10k, pending1m,",
            "                  pending10k2, pending1m2, firing, periodic, lateness, memory, idle, burst, cold,",
            "                  duenow, heartbeat, steady (the CPU time of steady firing; --full only), rate (the",
            "                  CPU time and lateness of timers scheduled at a steady rate: 10 and 100 per ms,",
            "                  1 worker; --full: 1, 10, 50, 100 per ms, 1 and 4 workers), external (timers",
            "                  whose tasks block on virtual threads or a pool of 4, TW against STPE(1) handing over:",
            "                  2 000 and 20 000 per s; --full: 2 000, 5 000, 10 000, 20 000), curve;",
            "                  with --scale: schedule, pending (the two workloads)",
            "  --rounds N      the on-time rows (burst, cold, duenow, heartbeat, steady; --workers): N JVMs per part and",
            "                  implementation, in turn, and the median of them (default 1; 3 with --full)",
            "  --worker-counts N,...  with --workers: these worker counts for the firing rate instead of 1, 4, 16;",
            "                  the lateness rows take the least and the most of them",
            "  --producers N,...  with --scale: these producer counts instead of 1, 2, 4, 8, 16",
            "  --replot CSV    with --scale: only draw the chart of an earlier run's CSV (its .md beside it names the",
            "                  machine), e.g. one from a machine without fonts; --chart says where it goes",
            "  --smoke         with --scale: tiny batches and iterations, to check that it works (figures meaningless;",
            "                  files go to jmh/target/scaling-smoke.* or ./scaling-smoke.*)",
            "  --out FILE      where the Markdown table goes as well (default: jmh/target/comparison-MODE.md, or",
            "                  docs/scaling.md with --scale; the current directory outside the repository root)",
            "  --chart FILE    where the chart goes (its CSV data goes beside it)",
            "  -h, --help      this text (details: the Javadoc of io.timingwheel.jmh.ComparisonRunner)");

    Mode mode = Boolean.getBoolean("tw.full") ? Mode.FULL : Mode.QUICK;
    /** Rows or workloads to run, or null for the mode's own choice. */
    List<String> only;
    /** Producer counts of {@code --scale}, or null for the default ladder. */
    List<Integer> producers;
    /** With {@code --scale}: a CSV of an earlier run whose chart to draw, measuring nothing; or null. */
    Path replot;
    /** Worker counts of {@code --workers}. */
    List<Integer> workerCounts = List.of(1, 4, 16);
    /** JVMs per part and implementation for the on-time rows; 0: the mode's default. */
    int rounds;
    boolean smoke;
    Path out;
    Path chart;
    /** Whether the runner was started from the repository root (then files go to their places in the tree). */
    final boolean atRoot = Files.isDirectory(Path.of("jmh", "target")) && Files.exists(Path.of("pom.xml"));

    /** Parses the arguments; prints the usage and exits on {@code --help} or a mistake. */
    static Options parse(String[] args) {
        Options options = new Options();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--full": options.mode = Mode.FULL; break;
                case "--quick": options.mode = Mode.QUICK; break;
                case "--curve": options.mode = Mode.CURVE; break;
                case "--scale": options.mode = Mode.SCALE; break;
                case "--workers": options.mode = Mode.WORKERS; break;
                case "--replot": options.replot = Path.of(value(args, ++i)); break;
                case "--worker-counts": options.workerCounts = counts(value(args, ++i)); break;
                case "--rounds": options.rounds = counts(value(args, ++i)).get(0); break;
                case "--smoke": options.smoke = true; break;
                case "--only": options.only = List.of(value(args, ++i).split(",")); break;
                case "--producers": options.producers = counts(value(args, ++i)); break;
                case "--out": options.out = Path.of(value(args, ++i)); break;
                case "--chart": options.chart = Path.of(value(args, ++i)); break;
                case "-h":
                case "--help":
                    System.out.println(USAGE);
                    System.exit(0);
                    break;
                default:
                    fail("unknown argument " + args[i]);
            }
        }
        if ((options.smoke || options.producers != null || options.replot != null) && options.mode != Mode.SCALE) {
            fail("--smoke, --producers and --replot go with --scale");
        }
        if (options.mode == Mode.SCALE && options.only != null
                && !ScaleRun.WORKLOADS.containsAll(options.only)) {
            fail("with --scale, --only takes schedule and/or pending");
        }
        if (options.mode == Mode.CURVE) {
            options.only = List.of("curve");
        }
        if (options.rounds == 0) {
            options.rounds = options.mode == Mode.FULL ? 3 : 1;
        }
        options.placeFiles();
        return options;
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            fail(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    private static List<Integer> counts(String text) {
        List<Integer> counts = new ArrayList<>();
        for (String word : text.split(",")) {
            try {
                int count = Integer.parseInt(word.trim());
                if (count < 1) {
                    fail("a producer count must be at least 1: " + word);
                }
                counts.add(count);
            } catch (NumberFormatException e) {
                fail("not a producer count: " + word);
            }
        }
        return counts;
    }

    private static void fail(String message) {
        System.err.println(message + " (try --help)");
        System.exit(2);
    }

    /** Default places of the table and the chart, by mode; the CSV of a chart always goes beside it. */
    private void placeFiles() {
        if (mode == Mode.SCALE) {
            // Smoke figures mean nothing: they stay in the build folder, never beside the real chart in docs/.
            String base = smoke ? "scaling-smoke" : "scaling";
            Path dir = atRoot ? (smoke ? Path.of("jmh", "target") : Path.of("docs")) : Path.of("");
            if (chart == null) {
                chart = dir.resolve(base + ".png");
            }
            if (out == null) {
                out = dir.resolve(base + ".md");
            }
            return;
        }
        if (mode == Mode.WORKERS) {
            if (out == null) {
                out = atRoot ? Path.of("jmh", "target", "comparison-workers.md") : Path.of("comparison-workers.md");
            }
            return;
        }
        if (chart == null) {
            chart = atRoot ? Path.of("docs", "schedule-vs-pending.png") : Path.of("schedule-vs-pending.png");
        }
        if (out == null) {
            String file = "comparison-" + mode.word + ".md";
            out = atRoot ? Path.of("jmh", "target", file) : Path.of(file);
        }
    }

    /** Whether a row runs: named in {@code --only}, else in the full mode, else when it belongs to the quick set. */
    boolean selected(String key, boolean inQuick) {
        if (only != null) {
            return only.contains(key);
        }
        return mode == Mode.FULL || (mode == Mode.QUICK && inQuick);
    }

    /** The file beside {@code file} with another extension (the chart's data: {@code x.png} gives {@code x.csv}). */
    static Path sibling(Path file, String extension) {
        String name = file.getFileName().toString();
        int dot = name.lastIndexOf('.');
        return file.resolveSibling((dot > 0 ? name.substring(0, dot) : name) + extension);
    }
}
