package io.timingwheel.jmh;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The rows of the comparison that say how late tasks run where a timer is judged first ({@link OnTimeHarness}): a
 * burst of timers by delay band, a cold start, tasks due at once among firing timers, a heartbeat during a burst; and,
 * for the {@code --workers} mode, the firing rate and those workloads at several worker counts. Each part runs in a JVM
 * of its own per implementation and round (the cold start needs a fresh JVM anyway), the implementations taking turns
 * within a round; a cell is the median over the rounds.
 */
final class OnTimeRows {

    /**
     * The harness's JVM flags: a fixed heap with a young generation large enough that no collection falls in a
     * measured window (each result counts those that do; the row "collections" adds them up). With a 2 GB heap and
     * G1's default young generation, a 69 ms young collection fell in every measured burst of the JDK's executor.
     */
    static final List<String> JVM_FLAGS = List.of("-Xms3g", "-Xmx3g", "-Xmn2g");

    /** One row: a figure of one part at one worker count. */
    private static final class Spec {
        final String part;
        final String band;
        final int workers;
        final String metric;
        final Table.Row row;

        Spec(String part, String band, int workers, String metric, Table.Row row) {
            this.part = part;
            this.band = band;
            this.workers = workers;
            this.metric = metric;
            this.row = row;
        }
    }

    /** The timer rates of the {@code rate} rows, per millisecond: the quick comparison's, and the full one's. */
    static final List<Integer> QUICK_RATES = List.of(10, 100);
    static final List<Integer> FULL_RATES = List.of(1, 10, 50, 100);

    private final List<String> impls;
    private final int rounds;
    /** Parts that run for fewer implementations than {@link #impls}: part → its implementations. */
    private final Map<String, List<String>> partImpls = new LinkedHashMap<>();
    private final List<Spec> specs = new ArrayList<>();
    /** The count of early runs over every part and round, per implementation; null until a row is added. */
    private Table.Row early;
    /** The count of garbage collections in measured windows, every part and round; null until a row is added. */
    private Table.Row collections;
    /** The harness runs, by part, worker count and rate: the arguments after the implementation, in run order. */
    private final Map<String, List<String>> jobs = new LinkedHashMap<>();

    OnTimeRows(List<String> impls, int rounds) {
        this.impls = impls;
        this.rounds = Math.max(1, rounds);
    }

    /** The settings of these rows, for the table's header. */
    String settings() {
        return "on-time rows: one JVM per part, implementation and round (" + rounds + (rounds == 1 ? " round" : " rounds,"
                + " cells are medians") + "), implementations in turn, " + String.join(" ", JVM_FLAGS) + "; a burst is"
                + " measured after " + OnTimeHarness.WARM_UP_ROUNDS + " warm-up bursts, each on an executor of its own;"
                + " executors made as a user makes them (no thread prestarted)";
    }

    /**
     * Adds the rows of the comparison for the parts {@code selected} says, in table order; {@code full} adds the
     * {@code rate} rows at every rate and with 4 workers.
     */
    OnTimeRows addComparisonRows(Table table, java.util.function.Predicate<String> selected, boolean full) {
        if (selected.test("burst")) {
            String burst = "burst: 200 000 timers (delays 0-2 s) from one thread as fast as it can";
            add(table, "burst", "lt50ms", 1, "p99us", burst + "; due < 50 ms: p99", "µs");
            add(table, "burst", "lt50ms", 1, "maxUs", "burst, due < 50 ms: max", "µs");
            add(table, "burst", "50to200ms", 1, "p99us", "burst, due 50-200 ms: p99", "µs");
            add(table, "burst", "50to200ms", 1, "maxUs", "burst, due 50-200 ms: max", "µs");
            add(table, "burst", "ge200ms", 1, "p99us", "burst, due 200 ms-2 s (steady firing): p99", "µs");
            add(table, "burst", "ge200ms", 1, "maxUs", "burst, due 200 ms-2 s (steady firing): max", "µs");
            add(table, "burst", "all", 1, "scheduleMs", "burst: its caller's time in the 200 000 calls", "ms");
        }
        if (selected.test("cold")) {
            add(table, "cold", "lt50ms", 1, "p99us",
                    "cold start: the first 50 000 timers of a fresh JVM (delays 0-500 ms), due < 50 ms: p99", "µs");
            add(table, "cold", "lt50ms", 1, "maxUs", "cold start, due < 50 ms: max", "µs");
            add(table, "cold", "all", 1, "scheduleMs", "cold start: its caller's time in the 50 000 calls", "ms");
        }
        if (selected.test("duenow")) {
            String dueNow = "tasks due at once (execute, 20 µs apart) among ~20 timers/ms (delays 1-6 ms)";
            add(table, "duenow", "all", 1, "p99us", dueNow + ", 1 worker: execute to start, p99", "µs");
            add(table, "duenow", "all", 1, "p999us", "due at once, 1 worker: p99.9", "µs");
            add(table, "duenow", "all", 4, "p99us", "due at once, 4 workers: p99", "µs");
            add(table, "duenow", "all", 4, "p999us", "due at once, 4 workers: p99.9", "µs");
        }
        if (selected.test("heartbeat")) {
            add(table, "heartbeat", "all", 1, "p99us",
                    "1 ms fixed-rate heartbeat during a burst of 200 000 timers: p99 of its runs' lateness", "µs");
            add(table, "heartbeat", "all", 1, "maxUs", "heartbeat during a burst: max", "µs");
        }
        if (selected.test("steady")) {
            String steady = "steady firing, 100 timers/ms scheduled ahead, 1 worker";
            add(table, "steady", "100perMs", 1, "cpuPct", steady + ": process CPU, % of one core", "%");
            add(table, "steady", "100perMs", 1, "p50us", "steady firing, 100 timers/ms: p50", "µs");
            add(table, "steady", "100perMs", 1, "p99us", "steady firing, 100 timers/ms: p99", "µs");
        }
        if (selected.test("rate")) {
            for (int workers : full ? List.of(1, 4) : List.of(1)) {
                for (int perMs : full ? FULL_RATES : QUICK_RATES) {
                    String at = perMs + " timers/ms (delays 5-50 ms, scheduled as they go), " + workers + " worker"
                            + (workers == 1 ? "" : "s");
                    String band = perMs + "perMs";
                    addRate(table, band, workers, perMs, "cpuUsPerTimer", at + ": process CPU per timer", "µs");
                    addRate(table, band, workers, perMs, "cpuPct", at + ": process CPU, % of one core", "%");
                    addRate(table, band, workers, perMs, "p99us", at + ": p99 lateness", "µs");
                }
            }
        }
        if (selected.test("external")) {
            addExternalRows(table, full ? ExternalTimers.FULL_RATES : ExternalTimers.QUICK_RATES);
        }
        return this;
    }

    /**
     * The rows of timers whose tasks run on an executor of the user's ({@link ExternalTimers}): TW handing its tasks
     * to it against STPE(1) whose task hands over, at each rate and executor kind, cold and warm.
     */
    private void addExternalRows(Table table, List<Integer> rates) {
        partImpls.put("external", List.of("jdk1", "tw"));
        for (String kind : ExternalTimers.KINDS) {
            String on = kind.equals("vt") ? "tasks blocking 5 ms on virtual threads (Java 21+)"
                    : "tasks blocking 100 µs on a pool of 4 threads";
            for (int perSecond : rates) {
                for (String when : List.of("cold", "warm")) {
                    String band = when + "-" + kind + "-" + perSecond;
                    String label = String.format(Locale.ROOT, "%,d timers over 1 s, %s, %s: ",
                            perSecond, on, when.equals("cold") ? "a fresh JVM's first second" : "warm");
                    for (String[] metric : new String[][] {{"p50us", "p50"}, {"p99us", "p99"}, {"maxUs", "max"}}) {
                        specs.add(new Spec("external", band, 1, metric[0],
                                table.add("external", label + metric[1], "µs")));
                    }
                }
                jobs.putIfAbsent("external/" + kind + "/" + perSecond,
                        List.of("1", Integer.toString(perSecond), kind));
            }
        }
    }

    private void addRate(Table table, String band, int workers, int perMs, String metric, String label, String unit) {
        specs.add(new Spec("rate", band, workers, metric, table.add("rate", label, unit)));
        jobs.putIfAbsent("rate/" + workers + "/" + perMs, List.of(Integer.toString(workers), Integer.toString(perMs)));
    }

    /**
     * Adds the rows of the {@code --workers} mode: firing rate, then lateness (for {@code latenessImpls} only), at the
     * given worker counts.
     */
    OnTimeRows addWorkerRows(Table table, List<Integer> firingCounts, List<Integer> latenessCounts,
                             List<String> latenessImpls) {
        partImpls.put("burst", latenessImpls);
        partImpls.put("duenow", latenessImpls);
        for (int w : firingCounts) {
            add(table, "firing", "all", w, "tasksPerSec", "firing rate: " + w + " producer" + (w == 1 ? "" : "s")
                    + " and " + w + " worker" + (w == 1 ? "" : "s") + ", 200 000 tasks due at once per batch", "1/s");
        }
        for (int w : latenessCounts) {
            String workers = w + " worker" + (w == 1 ? "" : "s");
            for (String[] band : new String[][] {{"lt50ms", "due < 50 ms"}, {"50to200ms", "due 50-200 ms"},
                    {"ge200ms", "due 200 ms-2 s"}}) {
                add(table, "burst", band[0], w, "p99us", workers + ": burst, " + band[1] + ": p99", "µs");
                add(table, "burst", band[0], w, "p999us", workers + ": burst, " + band[1] + ": p99.9", "µs");
                add(table, "burst", band[0], w, "maxUs", workers + ": burst, " + band[1] + ": max", "µs");
            }
            add(table, "duenow", "all", w, "p99us", workers + ": due at once among firing timers: p99", "µs");
            add(table, "duenow", "all", w, "p999us", workers + ": due at once among firing timers: p99.9", "µs");
            add(table, "duenow", "all", w, "maxUs", workers + ": due at once among firing timers: max", "µs");
        }
        return this;
    }

    private void add(Table table, String part, String band, int workers, String metric, String label, String unit) {
        specs.add(new Spec(part, band, workers, metric, table.add(part, label, unit)));
        jobs.putIfAbsent(part + "/" + workers, List.of(Integer.toString(workers)));
    }

    /**
     * Adds the rows that count, over every part above, the early runs (it must read 0) and the garbage collections
     * that fell in a measured window (0 where the figures above measure the scheduler alone).
     */
    OnTimeRows addEarlyRow(Table table) {
        if (!specs.isEmpty()) {
            early = table.add("early", "on-time rows: early runs, every part and round (must be 0)", "tasks");
            collections = table.add("early", "on-time rows: garbage collections in measured windows", "count");
        }
        return this;
    }

    boolean isEmpty() {
        return specs.isEmpty();
    }

    /** Measures every row: for each round, each part and worker count, each implementation in turn. */
    void run() throws IOException, InterruptedException {
        // results.get(impl).get(part/workers/band) = the result maps of the rounds
        Map<String, Map<String, List<Map<String, String>>>> results = new LinkedHashMap<>();
        for (int round = 1; round <= rounds; round++) {
            for (Map.Entry<String, List<String>> job : jobs.entrySet()) {
                String part = job.getKey().substring(0, job.getKey().indexOf('/'));
                int workers = Integer.parseInt(job.getValue().get(0));
                for (String impl : partImpls.getOrDefault(part, impls)) {
                    if (!Subject.available(impl) || (part.equals("heartbeat") && impl.startsWith("netty"))
                            || (part.equals("firing") && impl.startsWith("netty"))) {
                        continue; // Netty has no fixed rate, and a due task waits for its next tick
                    }
                    if (part.equals("external") && !ExternalTimers.available(job.getValue().get(2))) {
                        continue; // virtual threads: Java 21+
                    }
                    System.out.printf(Locale.ROOT, "on time, round %d of %d: %s, %d worker%s%s, %s%n", round, rounds,
                            part, workers, workers == 1 ? "" : "s", describe(part, job.getValue()), impl);
                    List<String> args = new ArrayList<>(List.of(part, impl));
                    args.addAll(job.getValue());
                    for (Map<String, String> r : ChildJvm.run(OnTimeHarness.class, JVM_FLAGS, args)) {
                        String key = r.get("part") + "/" + r.get("workers") + "/" + r.get("band");
                        results.computeIfAbsent(impl, k -> new LinkedHashMap<>())
                                .computeIfAbsent(key, k -> new ArrayList<>()).add(r);
                    }
                }
            }
        }
        total(early, "early", results);
        total(collections, "gcs", results);
        for (Spec spec : specs) {
            for (String impl : impls) {
                if (!Subject.available(impl) || (spec.part.equals("external") && spec.band.contains("-vt-")
                        && !ExternalTimers.available("vt"))) {
                    spec.row.unavailable.add(impl);
                    continue;
                }
                List<Map<String, String>> runs = results.getOrDefault(impl, Map.of())
                        .get(spec.part + "/" + spec.workers + "/" + spec.band);
                if (runs != null) {
                    spec.row.put(impl, median(runs, spec.metric));
                }
            }
        }
    }

    /** @return what a job's arguments after the worker count say, for the progress line */
    private static String describe(String part, List<String> args) {
        if (part.equals("external")) {
            return ", " + args.get(1) + " per s on " + args.get(2);
        }
        return args.size() > 1 ? ", " + args.get(1) + " per ms" : "";
    }

    /** Puts into {@code row} the sum of {@code metric} over every part and round, per implementation. */
    private void total(Table.Row row, String metric, Map<String, Map<String, List<Map<String, String>>>> results) {
        if (row == null) {
            return;
        }
        for (String impl : impls) {
            if (!Subject.available(impl)) {
                row.unavailable.add(impl);
                continue;
            }
            double count = 0;
            for (Map.Entry<String, List<Map<String, String>>> e : results.getOrDefault(impl, Map.of()).entrySet()) {
                // every timer of a part is in its band "all"; each band of the external part holds timers of its own
                if (e.getKey().endsWith("/all") || e.getKey().startsWith("external/")) {
                    for (Map<String, String> r : e.getValue()) {
                        double n = ChildJvm.number(r, metric);
                        count += Double.isNaN(n) ? 0 : n;
                    }
                }
            }
            row.put(impl, count);
        }
    }

    /** The median of one figure over the rounds that reported it; NaN if none did. */
    static double median(List<Map<String, String>> runs, String metric) {
        double[] values = runs.stream().mapToDouble(r -> ChildJvm.number(r, metric)).filter(v -> !Double.isNaN(v))
                .sorted().toArray();
        if (values.length == 0) {
            return Double.NaN;
        }
        int n = values.length;
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }

}
