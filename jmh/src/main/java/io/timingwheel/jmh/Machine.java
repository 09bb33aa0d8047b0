package io.timingwheel.jmh;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * What a reader needs to know about the machine and the JVM that produced a table: figures from 2 cores and from 16,
 * or from JDK 17 and 25, are not comparable, and a busy machine (the load average) skews every figure.
 */
final class Machine {

    private Machine() {
    }

    static int cores() {
        return Runtime.getRuntime().availableProcessors();
    }

    /** The JVM and its version, e.g. {@code OpenJDK 64-Bit Server VM 25.0.3+9-LTS (Eclipse Adoptium)}. */
    static String jdk() {
        return System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + " ("
                + System.getProperty("java.vendor") + ")";
    }

    /** The feature version of the running JDK (17, 25, ...). */
    static int jdkFeature() {
        return Runtime.version().feature();
    }

    static String os() {
        return System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch");
    }

    /** Physical memory in GB, or "?" where the JVM cannot tell. */
    static String memory() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            long bytes = ((com.sun.management.OperatingSystemMXBean) os).getTotalMemorySize();
            return String.format(Locale.ROOT, "%.0f GB", bytes / 1e9);
        }
        return "? GB";
    }

    /** The 1, 5 and 15-minute load averages from {@code /proc/loadavg}, or "unknown" off Linux. */
    static String loadAverage() {
        try {
            String[] words = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return words[0] + " " + words[1] + " " + words[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** One line: cores, memory, OS and JDK. */
    static String describe() {
        return String.format(Locale.ROOT, "%d cores, %s memory, %s; %s", cores(), memory(), os(), jdk());
    }
}
