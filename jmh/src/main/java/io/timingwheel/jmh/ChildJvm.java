package io.timingwheel.jmh;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a measuring class ({@link Harness}, {@link ScalingHarness}) in a JVM of its own and collects what it reports.
 *
 * <p>One JVM per implementation keeps the measurements apart: the JIT sees one implementation behind
 * {@link Subject}'s calls (a call site that has seen four classes is compiled worse than one that has seen one), and
 * one implementation's garbage and threads do not linger into the next one's figures. The child runs on the same JDK
 * as the runner, with the class path of the runner.
 *
 * <p>The protocol is one line per result on standard output, {@code RESULT <part> <impl> key=value ...}; lines
 * starting with {@code ERROR} are shown; everything else is ignored. Standard error is dropped (Netty logs through it).
 */
final class ChildJvm {

    private ChildJvm() {
    }

    /**
     * Starts {@code mainClass} with {@code jvmArgs} and {@code args}, echoes its results (indented) and returns them,
     * one map per {@code RESULT} line with the keys {@code part}, {@code impl} and its own.
     */
    static List<Map<String, String>> run(Class<?> mainClass, List<String> jvmArgs, List<String> args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
        command.addAll(args);
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<Map<String, String>> results = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                Map<String, String> result = parse(line);
                if (result != null) {
                    results.add(result);
                    System.out.println("  " + line.substring("RESULT ".length()));
                } else if (line.startsWith("ERROR")) {
                    System.out.println("  " + line);
                }
            }
        }
        int exit = process.waitFor();
        if (exit != 0) {
            System.out.println("  " + mainClass.getSimpleName() + " " + String.join(" ", args)
                    + " failed with exit code " + exit);
        }
        return results;
    }

    /** Writes one result line for {@link #parse}. */
    static void report(String part, String impl, String values) {
        System.out.println("RESULT " + part + " " + impl + " " + values);
        System.out.flush();
    }

    /** Parses {@code RESULT part impl k=v ...} into a map; null for any other line. */
    static Map<String, String> parse(String line) {
        String[] words = line.trim().split("\\s+");
        if (words.length < 3 || !words[0].equals("RESULT")) {
            return null;
        }
        Map<String, String> values = new HashMap<>();
        values.put("part", words[1]);
        values.put("impl", words[2]);
        for (int i = 3; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            if (eq > 0) {
                values.put(words[i].substring(0, eq), words[i].substring(eq + 1));
            }
        }
        return values;
    }

    /** A number from a result, NaN where it is missing. */
    static double number(Map<String, String> result, String key) {
        String text = result.get(key);
        return text == null ? Double.NaN : Double.parseDouble(text);
    }
}
