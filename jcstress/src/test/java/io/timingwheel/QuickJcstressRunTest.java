package io.timingwheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs every jcstress test of this module in the quick mode of the build ({@code jcstress.quick.args}), once per
 * compiler mode of {@code jcstress.quick.compilers} (jcstress's {@code -jvmArgs}, which replaces its own choice of
 * modes), and fails if any outcome was forbidden or any test erred. jcstress forks its own JVMs with this JVM's class
 * path; it exits with a non-zero status on a forbidden outcome, and its summary says how many tests failed, erred and
 * ran.
 */
class QuickJcstressRunTest {
    private static final Pattern SUMMARY_LINE = Pattern.compile(
            "^\\s*(Interesting tests|Failed tests|Error tests|All remaining tests): (No matches\\.|(\\d+) matching)");

    static Stream<String> compilerModes() {
        return Arrays.stream(System.getProperty("jcstress.quick.compilers", "-XX:-TieredCompilation").split(","))
                .map(String::trim).filter(mode -> !mode.isEmpty());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("compilerModes")
    void noForbiddenOutcomeInTheQuickMode(String compilerMode) throws Exception {
        Path results = Path.of(System.getProperty("jcstress.results", "target/jcstress-quick"))
                .resolve(compilerMode.replaceAll("[^A-Za-z0-9=+-]+", "_").replaceAll("^[-_]+", ""));
        Files.createDirectories(results);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("org.openjdk.jcstress.Main");
        command.addAll(Arrays.asList(System.getProperty("jcstress.quick.args", "-m quick").trim().split("\\s+")));
        command.add("-jvmArgs");
        command.add(compilerMode);
        command.add("-r");
        command.add(results.toString());
        Path log = results.resolve("console.txt");
        Process jcstress = new ProcessBuilder(command).directory(results.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        assertTrue(jcstress.waitFor(15, TimeUnit.MINUTES), "jcstress did not finish in 15 minutes; see " + log);
        assertEquals(0, jcstress.exitValue(), "jcstress reported failures (or could not run); see " + log + " and "
                + results.resolve("index.html"));

        int tests = 0;
        int failed = -1;
        int errors = -1;
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            Matcher m = SUMMARY_LINE.matcher(line);
            if (!m.find()) {
                continue;
            }
            int count = m.group(3) == null ? 0 : Integer.parseInt(m.group(3));
            switch (m.group(1)) {
                case "Failed tests" -> failed = count;
                case "Error tests" -> errors = count;
                default -> tests += count;
            }
        }
        assertTrue(failed >= 0 && errors >= 0, "no summary from jcstress; see " + log);
        assertEquals(0, failed, "tests with a forbidden outcome; see " + log + " and " + results.resolve("index.html"));
        assertEquals(0, errors, "tests that erred; see " + log);
        assertTrue(tests > 0, "jcstress found no test; see " + log);
        System.out.println(tailOf(log));
    }

    private static String tailOf(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join(System.lineSeparator(), lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }
}
