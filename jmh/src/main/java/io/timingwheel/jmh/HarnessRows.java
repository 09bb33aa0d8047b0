package io.timingwheel.jmh;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The cost rows of the comparison that JMH does not measure well (lateness, retained memory, idle cost): the
 * {@link Harness} runs them in a JVM of its own per implementation, and this class puts its results into the table.
 */
final class HarnessRows {

    /** The JVM flags of the harness: a fixed heap, so the memory figure does not depend on the machine's RAM. */
    static final List<String> JVM_FLAGS = List.of("-Xms2g", "-Xmx2g");

    private final Options options;

    // The rows that the harness's results go into; null where the part is not selected.
    private Table.Row p50;
    private Table.Row p99;
    private Table.Row p999;
    private Table.Row max;
    private Table.Row early;
    private Table.Row bytes;
    private Table.Row cpu;
    private Table.Row wakeups;

    HarnessRows(Options options) {
        this.options = options;
    }

    /** The harness's settings, for the table's header. */
    static String settings() {
        return "harness (lateness, memory, idle): one JVM per implementation with " + String.join(" ", JVM_FLAGS);
    }

    /** Adds the selected rows to {@code table} and measures them, one JVM per implementation; false if none. */
    boolean run(Table table) throws IOException, InterruptedException {
        List<String> parts = addRows(table);
        if (parts.isEmpty()) {
            return false;
        }
        List<String> impls = options.mode == Options.Mode.FULL
                ? List.of("jdk1", "jdkN", "fjp1", "tw", "netty1ms", "netty100ms")
                : JmhRows.QUICK_IMPLS;
        String joined = String.join(",", parts);
        for (String impl : impls) {
            System.out.println("harness " + joined + " " + impl);
            if (!Subject.available(impl)) {
                markUnavailable(impl);
                System.out.println("  n/a on JDK " + Machine.jdkFeature());
                continue;
            }
            for (Map<String, String> result : ChildJvm.run(Harness.class, JVM_FLAGS, List.of(joined, impl))) {
                record(impl, result);
            }
        }
        return true;
    }

    /** Adds the rows of the selected parts in table order; returns the parts in the order the harness runs them. */
    private List<String> addRows(Table table) {
        List<String> parts = new ArrayList<>();
        if (options.selected("lateness", true)) {
            p50 = table.add("lateness", "lateness p50, 200 000 one-shot tasks in 2 s, 2 producers", "µs");
            p99 = table.add("lateness", "lateness p99", "µs");
            p999 = table.add("lateness", "lateness p99.9", "µs");
            max = table.add("lateness", "lateness max", "µs");
            early = table.add("lateness", "early runs (must be 0)", "tasks");
        }
        if (options.selected("memory", true)) {
            bytes = table.add("memory", "retained heap per pending one-shot task (1 000 000 due in 1 h)", "bytes");
        }
        if (options.selected("idle", true)) {
            cpu = table.add("idle", "idle with one task due in 1 h: CPU of its threads", "ms/s");
            wakeups = table.add("idle", "idle with one task due in 1 h: wake-ups", "1/s");
        }
        // Idle first, so that it sees the scheduler alone: before the memory part's million tasks and the lateness
        // part's load have passed through the same JVM.
        if (cpu != null) {
            parts.add("idle");
        }
        if (bytes != null) {
            parts.add("memory");
        }
        if (p50 != null) {
            parts.add("lateness");
        }
        return parts;
    }

    private void record(String impl, Map<String, String> result) {
        switch (result.get("part")) {
            case "idle":
                cpu.put(impl, ChildJvm.number(result, "cpuMsPerSec"));
                wakeups.put(impl, ChildJvm.number(result, "wakeupsPerSec"));
                break;
            case "memory":
                bytes.put(impl, ChildJvm.number(result, "bytesPerTask"));
                break;
            case "lateness":
                p50.put(impl, ChildJvm.number(result, "p50us"));
                p99.put(impl, ChildJvm.number(result, "p99us"));
                p999.put(impl, ChildJvm.number(result, "p999us"));
                max.put(impl, ChildJvm.number(result, "maxUs"));
                early.put(impl, ChildJvm.number(result, "early"));
                break;
            default:
                break;
        }
    }

    private void markUnavailable(String impl) {
        for (Table.Row row : new Table.Row[] {p50, p99, p999, max, early, bytes, cpu, wakeups}) {
            if (row != null) {
                row.unavailable.add(impl);
            }
        }
    }
}
