package io.timingwheel.readme;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every link between the project's Markdown files resolves: README.md, the module READMEs and everything under
 * {@code docs/}. A link to a file of the repository names one that exists; a link with an anchor ({@code file#part}
 * or {@code #part}) names a heading of that file, as GitHub makes anchors of headings (lower case, punctuation
 * dropped, spaces as hyphens, a repeated heading's anchor numbered).
 */
class DocumentationLinksTest {
    /** A Markdown link or image: {@code [text](target)}; the target is group 1. */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

    /** Every link of every Markdown file of the project resolves to a file, and to a heading where it names one. */
    @Test
    void everyLinkResolves() throws IOException {
        Path root = repositoryRoot();
        List<Path> documents = documents(root);
        assertTrue(documents.size() > 3, "found too few Markdown files to check: " + documents);
        Map<Path, Set<String>> anchors = new HashMap<>();
        List<String> broken = new ArrayList<>();
        for (Path document : documents) {
            List<String> lines = Files.readAllLines(document, UTF_8);
            boolean inCode = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.strip().startsWith("```")) {
                    inCode = !inCode;
                    continue;
                }
                Matcher m = LINK.matcher(line);
                while (!inCode && m.find()) {
                    String problem = problem(document, m.group(1), anchors);
                    if (problem != null) {
                        broken.add(root.relativize(document) + ":" + (i + 1) + ": " + m.group(1) + " (" + problem + ")");
                    }
                }
            }
        }
        assertTrue(broken.isEmpty(), "links that do not resolve:\n" + String.join("\n", broken));
    }

    /** GitHub's anchors: the examples below are headings of this project's documents and the links to them. */
    @Test
    void anchorsAreMadeAsGitHubMakesThem() {
        assertTrue(anchorsOf(List.of("## The on-time rows (`OnTimeHarness`)")).contains("the-on-time-rows-ontimeharness"));
        assertTrue(anchorsOf(List.of("### Throughput, memory, idle cost")).contains("throughput-memory-idle-cost"));
        Set<String> twice = anchorsOf(List.of("## Figures", "## Figures"));
        assertTrue(twice.contains("figures") && twice.contains("figures-1"), twice.toString());
        assertFalse(anchorsOf(List.of("```", "# not a heading", "```")).contains("not-a-heading"));
    }

    /** @return why {@code target}, linked from {@code document}, does not resolve; null if it does */
    private static String problem(Path document, String target, Map<Path, Set<String>> anchors) throws IOException {
        if (target.matches("^[a-z]+:.*")) {
            return null; // a URL: not the repository's business
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path linked = file.isEmpty() ? document : document.resolveSibling(file).normalize();
        if (!Files.exists(linked)) {
            return "no such file";
        }
        if (hash < 0 || !linked.toString().endsWith(".md")) {
            return null;
        }
        String anchor = target.substring(hash + 1);
        Set<String> known = anchors.computeIfAbsent(linked, p -> {
            try {
                return anchorsOf(Files.readAllLines(p, UTF_8));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        return known.contains(anchor) ? null : "no heading with that anchor in " + linked.getFileName();
    }

    /** @return the anchors GitHub makes of the headings among {@code lines} (outside code blocks) */
    static Set<String> anchorsOf(List<String> lines) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inCode = false;
        for (String line : lines) {
            if (line.strip().startsWith("```")) {
                inCode = !inCode;
                continue;
            }
            Matcher m = HEADING.matcher(line);
            if (inCode || !m.matches()) {
                continue;
            }
            String slug = m.group(1).toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
            int n = seen.merge(slug, 1, Integer::sum) - 1;
            anchors.add(n == 0 ? slug : slug + "-" + n);
        }
        return anchors;
    }

    /** @return README.md, the module READMEs and the Markdown files under docs/ */
    private static List<Path> documents(Path root) throws IOException {
        List<Path> documents = new ArrayList<>();
        for (String name : List.of("README.md", "jmh/README.md", "jcstress/README.md")) {
            if (Files.isRegularFile(root.resolve(name))) {
                documents.add(root.resolve(name));
            }
        }
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            documents.addAll(docs.filter(p -> p.toString().endsWith(".md")).sorted().collect(Collectors.toList()));
        }
        return documents;
    }

    /** @return the repository's root: the tests run in tck-tests, so it is one directory up */
    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path candidate : List.of(dir.resolve(".."), dir)) {
            Path root = candidate.normalize();
            if (Files.isRegularFile(root.resolve("README.md")) && Files.isDirectory(root.resolve("tck-tests"))) {
                return root;
            }
        }
        return fail("cannot find the repository's root from the working directory " + dir);
    }
}
