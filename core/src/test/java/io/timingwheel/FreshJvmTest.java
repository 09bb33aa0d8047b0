package io.timingwheel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What the core's classes cost a fresh JVM: no string concatenation of the core is linked through invokedynamic
 * (the build compiles it as StringBuilder calls, see core/pom.xml), for each such call site costs its first use a
 * bootstrap of several milliseconds, and the first one named the master thread inside the first {@code schedule}.
 */
class FreshJvmTest {

    @Test
    void noCoreClassLinksStringConcatenationAtRunTime() throws IOException, URISyntaxException {
        Path classes = Path.of(TimingWheelExecutor.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<Path> classFiles;
        try (Stream<Path> files = Files.walk(classes)) {
            classFiles = files.filter(f -> f.toString().endsWith(".class")).collect(Collectors.toList());
        }
        assertTrue(classFiles.size() > 50, "the core's classes, found in " + classes + ": " + classFiles.size());
        List<Path> linking = classFiles.stream().filter(FreshJvmTest::refersToStringConcatFactory)
                .collect(Collectors.toList());
        assertEquals(List.of(), linking);
    }

    private static boolean refersToStringConcatFactory(Path classFile) {
        try {
            // The bootstrap method's owner is a constant of the class file, in modified UTF-8 (plain ASCII here).
            return new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1)
                    .contains("java/lang/invoke/StringConcatFactory");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
