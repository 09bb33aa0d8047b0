package io.timingwheel.readme;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The README's Java snippets are real code: each {@code ```java} block of README.md compiles for Java 17 against the
 * test class path, without warnings, and each block of statements also runs, quickly and without throwing.
 *
 * <p>A block that declares a top-level type is compiled as it stands. Any other block is a sequence of statements,
 * possibly after import declarations: it becomes the body of a static method in a class that imports
 * {@code java.util.concurrent.*}, {@code java.time.*} and {@code io.timingwheel.*}, as a reader would paste it into a
 * method. A failure names the block by its line in README.md and maps the compiler's line numbers back to README.md.
 */
class ReadmeSnippetsTest {
    /** The imports every block of statements gets, as a reader's class would have them. */
    private static final List<String> USUAL_IMPORTS =
            List.of("import java.util.concurrent.*;", "import java.time.*;", "import io.timingwheel.*;");

    /** How long a block of statements may run: the README's examples use delays of milliseconds. */
    private static final long RUN_LIMIT_MILLIS = 10_000;

    /** A top-level type declaration starting a line: such a block is a compilation unit of its own. */
    private static final Pattern TYPE_DECLARATION = Pattern.compile(
            "(?m)^(?:(?:public|final|abstract|sealed|non-sealed|strictfp)\\s+)*(?:class|interface|enum|record)\\s+(\\w+)");

    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "(?m)^public\\s+(?:(?:final|abstract|sealed|non-sealed|strictfp)\\s+)*(?:class|interface|enum|record)\\s+(\\w+)");

    private static final Pattern IMPORT = Pattern.compile("^import\\s+(?:static\\s+)?[\\w.]+(?:\\.\\*)?\\s*;\\s*$");

    /** One {@code ```java} block: its code and the README line of its first line of code. */
    record Snippet(int firstLine, String code) {
        boolean declaresType() {
            return TYPE_DECLARATION.matcher(code).find();
        }

        String where() {
            return "README.md line " + firstLine;
        }
    }

    /** Every {@code ```java} block compiles; every block of statements also runs. */
    @TestFactory
    Stream<DynamicTest> everyJavaSnippetCompilesAndStatementsRun() throws IOException {
        List<Snippet> snippets = javaSnippets(Files.readAllLines(readme(), UTF_8));
        assertFalse(snippets.isEmpty(), "README.md has no ```java block: nothing to check, so nothing is checked");
        return snippets.stream().map(s -> DynamicTest.dynamicTest(
                s.where() + (s.declaresType() ? " (compiles)" : " (compiles and runs)"), () -> check(s)));
    }

    // -- finding the blocks ------------------------------------------------------------------------------------------

    /** @return README.md of the repository: the tests run in tck-tests, so it is one directory up */
    private static Path readme() {
        Path dir = Path.of("").toAbsolutePath();
        List<Path> tried = new ArrayList<>();
        for (Path candidate : List.of(dir.resolve("../README.md"), dir.resolve("README.md"))) {
            Path file = candidate.normalize();
            if (Files.isRegularFile(file) && Files.isDirectory(file.resolveSibling("tck-tests"))) {
                return file;
            }
            tried.add(file);
        }
        return fail("cannot find the repository's README.md from the working directory " + dir + "; tried " + tried);
    }

    static List<Snippet> javaSnippets(List<String> lines) {
        List<Snippet> snippets = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String fence = lines.get(i).strip();
            if (!fence.startsWith("```")) {
                continue;
            }
            int indent = lines.get(i).indexOf('`');
            int end = i + 1;
            while (end < lines.size() && !lines.get(end).strip().equals("```")) {
                end++;
            }
            if (end == lines.size()) {
                fail("README.md line " + (i + 1) + ": a code block that is never closed");
            }
            if (fence.equals("```java")) {
                StringBuilder code = new StringBuilder();
                for (String line : lines.subList(i + 1, end)) {
                    code.append(line.length() >= indent && line.substring(0, indent).isBlank()
                            ? line.substring(indent) : line.strip()).append('\n');
                }
                snippets.add(new Snippet(i + 2, code.toString()));
            }
            i = end;
        }
        return snippets;
    }

    // -- compiling and running ---------------------------------------------------------------------------------------

    private static void check(Snippet snippet) throws Exception {
        Path out = Files.createTempDirectory("readme-snippet-");
        try {
            if (snippet.declaresType()) {
                compile(snippet, snippet.code(), typeName(snippet.code()), 0, out);
            } else {
                Unit unit = wrap(snippet.code());
                compile(snippet, unit.source, "ReadmeSnippet", unit.headerLines, out);
                run(snippet, out);
            }
        } finally {
            deleteRecursively(out);
        }
    }

    /** A block of statements as a compilation unit, and the number of lines before its first statement. */
    private record Unit(String source, int headerLines) {
    }

    /**
     * Wraps statements into {@code ReadmeSnippet.run()}. Import declarations at the top of the block are kept as
     * blank lines inside it, so the block's lines keep their numbers, and repeated in the header.
     */
    static Unit wrap(String code) {
        String[] lines = code.split("\n", -1);
        List<String> header = new ArrayList<>(USUAL_IMPORTS);
        StringBuilder body = new StringBuilder();
        boolean inImports = true;
        for (String line : lines) {
            if (inImports && IMPORT.matcher(line.strip()).matches()) {
                header.add(line.strip());
                body.append('\n');
                continue;
            }
            if (!line.isBlank()) {
                inImports = false;
            }
            body.append(line).append('\n');
        }
        header.add("class ReadmeSnippet {");
        header.add("static void run() throws Exception {");
        String source = String.join("\n", header) + "\n" + body + "}\n}\n";
        return new Unit(source, header.size());
    }

    private static String typeName(String code) {
        Matcher m = PUBLIC_TYPE.matcher(code);
        if (m.find()) {
            return m.group(1);
        }
        m = TYPE_DECLARATION.matcher(code);
        return m.find() ? m.group(1) : "ReadmeSnippet";
    }

    private static void compile(Snippet snippet, String source, String className, int headerLines, Path out)
            throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            fail("no system Java compiler: run the tests on a JDK");
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///" + className + ".java"),
                JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        // Java 17, as the project: a snippet must not use what only later JDKs have. Warnings fail it too, but for
        // serial (a subclass of a Serializable library class need not declare a serialVersionUID in a README).
        List<String> options = List.of("--release", "17", "-proc:none", "-Xlint:all,-serial,-processing", "-Werror",
                "-classpath", System.getProperty("java.class.path"), "-d", out.toString());
        boolean compiled;
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, UTF_8)) {
            compiled = javac.getTask(null, files, diagnostics, options, null, List.of(file)).call();
        }
        if (!compiled || !diagnostics.getDiagnostics().isEmpty()) {
            StringBuilder report = new StringBuilder(snippet.where() + ": the snippet does not compile cleanly:");
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                long line = d.getLineNumber();
                String at = line <= headerLines || line == Diagnostic.NOPOS
                        ? "(wrapper line " + line + ")"
                        : "README.md line " + (snippet.firstLine() + line - headerLines - 1);
                report.append("\n  ").append(d.getKind()).append(" at ").append(at).append(": ")
                        .append(d.getMessage(Locale.ROOT));
            }
            report.append("\n--- compiled as ---\n").append(source);
            fail(report.toString());
        }
    }

    /** Runs {@code ReadmeSnippet.run()} on a thread of its own, failing if it throws or takes too long. */
    private static void run(Snippet snippet, Path out) throws Exception {
        try (URLClassLoader loader = new URLClassLoader(new URL[] {out.toUri().toURL()},
                ReadmeSnippetsTest.class.getClassLoader())) {
            Method run = loader.loadClass("ReadmeSnippet").getDeclaredMethod("run");
            run.setAccessible(true);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread thread = new Thread(() -> {
                try {
                    run.invoke(null);
                } catch (InvocationTargetException e) {
                    failure.set(e.getCause());
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "readme-snippet-line-" + snippet.firstLine());
            thread.start();
            thread.join(RUN_LIMIT_MILLIS);
            if (thread.isAlive()) {
                thread.interrupt();
                fail(snippet.where() + ": the snippet still runs after " + RUN_LIMIT_MILLIS + " ms");
            }
            if (failure.get() != null) {
                throw new AssertionError(snippet.where() + ": the snippet threw " + failure.get(), failure.get());
            }
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
