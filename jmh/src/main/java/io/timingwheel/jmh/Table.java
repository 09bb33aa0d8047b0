package io.timingwheel.jmh;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The comparison table: one row per workload or cost, one column per implementation, each cell the figure and its ratio
 * to STPE(1) in the same row.
 */
final class Table {

    /** One line of the table: a figure per implementation. */
    static final class Row {
        final String key;
        final String label;
        final String unit;
        /** Figures by implementation; NaN where the measurement failed. */
        final Map<String, Double> values = new LinkedHashMap<>();
        /** Implementations that cannot run on this JDK (shown as "n/a"). */
        final Set<String> unavailable = new LinkedHashSet<>();

        Row(String key, String label, String unit) {
            this.key = key;
            this.label = label;
            this.unit = unit;
        }

        void put(String impl, double value) {
            values.put(impl, value);
        }

        boolean has(String impl) {
            return values.containsKey(impl) || unavailable.contains(impl);
        }
    }

    private final List<Row> rows = new ArrayList<>();

    /** Column titles by implementation ({@link Subject#title} unless a mode names them otherwise). */
    private final Map<String, String> titles;

    Table() {
        this(Subject.TITLES);
    }

    /** A table whose columns carry {@code titles} (e.g. without the worker count, which the rows then state). */
    Table(Map<String, String> titles) {
        this.titles = titles;
    }

    /** Adds a row at the end and returns it for filling. */
    Row add(String key, String label, String unit) {
        Row row = new Row(key, label, unit);
        rows.add(row);
        return row;
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    /** The table in Markdown: only the columns of implementations that some row measured (or could not run). */
    String markdown() {
        List<String> columns = new ArrayList<>();
        for (String impl : Subject.ALL) {
            if (rows.stream().anyMatch(row -> row.has(impl))) {
                columns.add(impl);
            }
        }
        StringBuilder sb = new StringBuilder("| workload | unit |");
        for (String impl : columns) {
            sb.append(' ').append(titles.getOrDefault(impl, impl)).append(" |");
        }
        sb.append("\n|---|---|");
        sb.append("---:|".repeat(columns.size()));
        sb.append('\n');
        for (Row row : rows) {
            sb.append("| ").append(row.label).append(" | ").append(row.unit).append(" |");
            Double base = row.values.get(Subject.BASELINE);
            for (String impl : columns) {
                sb.append(' ').append(cell(row, impl, base)).append(" |");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static String cell(Row row, String impl, Double base) {
        if (row.unavailable.contains(impl)) {
            return "n/a";
        }
        Double value = row.values.get(impl);
        if (value == null) {
            return "–";
        }
        return withRatio(value, impl.equals(Subject.BASELINE) ? null : base);
    }

    /** A figure and, where a baseline exists, its ratio to it: {@code 12.3 (2.05×)}. */
    static String withRatio(double value, Double base) {
        Double ratio = ratio(value, base);
        return ratio == null ? format(value) : format(value) + String.format(Locale.ROOT, " (%.2f×)", ratio);
    }

    /** value / base, or null where either is missing, failed or zero. */
    static Double ratio(double value, Double base) {
        if (base == null || base.isNaN() || base == 0 || Double.isNaN(value)) {
            return null;
        }
        return value / base;
    }

    /** Three significant digits, or more for large numbers; "failed" for NaN. */
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
}
