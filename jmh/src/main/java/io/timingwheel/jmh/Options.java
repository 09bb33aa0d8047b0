package io.timingwheel.jmh;

import java.nio.file.Files;
import java.nio.file.Path;
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
        CURVE("curve");

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
            "options:",
            "  --only KEY,...  only these rows; keys: schedule, schedule2, cancel, cancel2, pending10k, pending1m,",
            "                  pending10k2, pending1m2, firing, periodic, lateness, memory, idle, curve",
            "  --out FILE      where the Markdown table goes as well (default: jmh/target/comparison-MODE.md; the",
            "                  current directory outside the repository root)",
            "  --chart FILE    where the chart goes (its CSV data goes beside it)",
            "  -h, --help      this text (details: the Javadoc of io.timingwheel.jmh.ComparisonRunner)");

    Mode mode = Boolean.getBoolean("tw.full") ? Mode.FULL : Mode.QUICK;
    /** Rows to run, or null for the mode's own choice. */
    List<String> only;
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
                case "--only": options.only = List.of(value(args, ++i).split(",")); break;
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
        if (options.mode == Mode.CURVE) {
            options.only = List.of("curve");
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

    private static void fail(String message) {
        System.err.println(message + " (try --help)");
        System.exit(2);
    }

    /** Default places of the table and the chart, by mode; the CSV of a chart always goes beside it. */
    private void placeFiles() {
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
