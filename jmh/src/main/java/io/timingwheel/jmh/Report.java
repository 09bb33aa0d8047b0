package io.timingwheel.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The Markdown report of one run: a heading, what produced the figures (machine, JDK, load, settings) and how to read
 * them, then the tables. Printed to standard output and written to a file.
 */
final class Report {

    private final String title;
    private final long startNanos = System.nanoTime();
    private final String loadBefore = Machine.loadAverage();
    private final List<String> settings = new ArrayList<>();
    private final List<String> reading = new ArrayList<>();
    private final StringBuilder body = new StringBuilder();

    /** Starts a report (and its clock: the run's duration and the load before it are taken from here). */
    Report(String title) {
        this.title = title;
    }

    /** One line of "Settings". */
    Report setting(String line) {
        settings.add(line);
        return this;
    }

    /** One line of "How to read". */
    Report reading(String line) {
        reading.add(line);
        return this;
    }

    /** Markdown that follows the header (tables, notes). */
    Report append(String markdown) {
        body.append(markdown);
        return this;
    }

    /** The line printed as a run starts, before any figure. */
    String startLine() {
        return String.format(Locale.ROOT, "%s: %s; load average %s", title, Machine.describe(), loadBefore);
    }

    /** The whole report in Markdown (the duration and the load after are taken now). */
    String markdown() {
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos);
        StringBuilder md = new StringBuilder();
        md.append("## ").append(title).append("\n\n");
        md.append(String.format(Locale.ROOT, "- Run: %s, %d s%n",
                LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")), seconds));
        md.append(String.format(Locale.ROOT, "- Machine: %d cores (available processors), %s memory, %s%n",
                Machine.cores(), Machine.memory(), Machine.os()));
        md.append("- JDK: ").append(Machine.jdk()).append('\n');
        md.append("- Load average (1, 5, 15 min): before ").append(loadBefore).append(", after ")
                .append(Machine.loadAverage()).append('\n');
        for (String line : settings) {
            md.append("- Settings: ").append(line).append('\n');
        }
        for (String line : reading) {
            md.append("- ").append(line).append('\n');
        }
        md.append('\n').append(body);
        return md.toString();
    }

    /** Prints the report and writes it to {@code file} (a failure to write is reported, never fatal). */
    void printAndWrite(Path file) {
        String md = markdown();
        System.out.println();
        System.out.print(md);
        try {
            Path dir = file.toAbsolutePath().getParent();
            if (dir != null) {
                Files.createDirectories(dir);
            }
            Files.writeString(file, md);
            System.out.println("\n(table also written to " + file + ")");
        } catch (IOException e) {
            System.err.println("could not write " + file + ": " + e);
        }
    }
}
