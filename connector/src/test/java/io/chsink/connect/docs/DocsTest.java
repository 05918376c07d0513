package io.chsink.connect.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.convert.JsonEnvelopeConverter;
import io.chsink.connect.convert.avro.AvroConverter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

/**
 * The user's documentation (README.md and docs/*.md) stays true to the repository: every relative link and
 * {@code #anchor} resolves, every link to the troubleshooting page names an entry, the configuration page lists
 * exactly the keys of the code's ConfigDefs, every {@code mvn} command names profiles, properties and modules that
 * exist, and the README stays short. It holds no history: commit hashes, run dates and the names of test classes
 * belong to docs/benchmarks.md and CHANGELOG.md only; and docs/ stays small enough to read.
 */
class DocsTest {
    private static final Path ROOT = Paths.get("..").toAbsolutePath().normalize();
    /** [text](target): the target up to a space or the closing parenthesis (titles are not used here). */
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern KEY_ROW = Pattern.compile("^\\| `([^`]+)` \\|");
    /** Properties of Maven and its plugins the docs may pass; every other -D must be read by this build. */
    private static final Set<String> MAVEN_PROPERTIES = Set.of("test", "surefire.failIfNoSpecifiedTests", "skipTests",
            "maven.test.skip", "it.test", "skipITs");
    /** The page that holds figures with their date, machine, commit and command; exempt from the history checks. */
    private static final String BENCHMARKS = "benchmarks.md";
    /** docs/*.md but the benchmarks page, in bytes, at most. */
    private static final long DOCS_BUDGET = 250_000;
    /** 7 to 40 lower-case hex digits, as git abbreviates a commit (tested for a digit and a letter apart). */
    private static final Pattern HEX = Pattern.compile("\\b[0-9a-f]{7,40}\\b");
    private static final Pattern UUID = Pattern.compile(
            "\\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\b");
    /** A date of this century (data examples and type ranges in code spans, or beyond 2099, are not run dates). */
    private static final Pattern DATE = Pattern.compile("\\b20\\d\\d-[01]\\d-[0-3]\\d\\b");
    /** A time of day in UTC, but the end of a range given with its date (such as DateTime's, up to 2106). */
    private static final Pattern UTC_TIME = Pattern.compile(
            "(?<![\\d:])(?<!\\d{4}-\\d\\d-\\d\\d[ T])\\d{1,2}:\\d\\d(:\\d\\d)?\\s?UTC\\b");

    @Test
    void everyRelativeLinkAndAnchorResolves() {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            for (String target : links(read(page))) {
                if (target.matches("^[a-zA-Z][a-zA-Z+.-]*:.*")) {
                    continue; // http:, https:, mailto:
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no file " + ROOT.relativize(resolved) + ")");
                } else if (hash >= 0 && !anchors(resolved).contains(target.substring(hash + 1))) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no heading with that anchor in "
                            + ROOT.relativize(resolved) + ")");
                }
            }
        }
        assertEquals(List.of(), broken, "broken links");
    }

    @Test
    void noCommitDateOrTestNameOutsideTheBenchmarksPage() {
        Set<String> tests = testClassNames();
        assertTrue(tests.size() > 20, "found only " + tests.size() + " test classes: is the scan broken?");
        Pattern testName = Pattern.compile("\\b(" + String.join("|", tests) + ")\\b");
        List<String> found = new ArrayList<>();
        for (Path page : pages()) {
            if (page.getFileName().toString().equals(BENCHMARKS)) {
                continue;
            }
            String[] lines = read(page).split("\n", -1);
            StringBuilder prose = new StringBuilder(); // the lines outside code blocks, others left empty
            boolean fenced = false;
            for (int i = 0; i < lines.length; i++) {
                String line = lines[i];
                String where = ROOT.relativize(page) + ":" + (i + 1) + ": ";
                boolean fence = line.trim().startsWith("```");
                fenced ^= fence;
                Matcher m = testName.matcher(line);
                while (m.find()) {
                    found.add(where + "test class `" + m.group() + "`");
                }
                if (fenced || fence) {
                    prose.append('\n');
                    continue; // commands, logs and data: a hash or a date there is not history
                }
                for (String hash : commitHashes(line)) {
                    found.add(where + "commit hash `" + hash + "`");
                }
                prose.append(line).append('\n');
            }
            // Dates in prose, outside code spans (which hold data, and may run over a line break).
            Matcher span = Pattern.compile("`[^`]*`").matcher(prose);
            StringBuilder text = new StringBuilder(prose);
            while (span.find()) {
                for (int j = span.start(); j < span.end(); j++) {
                    if (text.charAt(j) != '\n') {
                        text.setCharAt(j, ' ');
                    }
                }
            }
            for (Pattern p : List.of(DATE, UTC_TIME)) {
                Matcher m = p.matcher(text);
                while (m.find()) {
                    int line = 1 + (int) text.substring(0, m.start()).chars().filter(c -> c == '\n').count();
                    found.add(ROOT.relativize(page) + ":" + line + ": run date `" + m.group() + "`");
                }
            }
        }
        assertEquals(List.of(), found, "history in the user's pages: figures go to docs/" + BENCHMARKS + " (with "
                + "their date, machine, commit and command), history to CHANGELOG.md; state the behaviour instead");
    }

    /** What looks like an abbreviated commit: 7 to 40 hex digits, with a digit and a letter, not in a UUID. */
    static List<String> commitHashes(String line) {
        List<String> out = new ArrayList<>();
        Matcher m = HEX.matcher(UUID.matcher(line).replaceAll(""));
        while (m.find()) {
            if (m.group().matches(".*[0-9].*") && m.group().matches(".*[a-f].*")) {
                out.add(m.group());
            }
        }
        return out;
    }

    @Test
    void historyIsFoundWhereItHides() {
        assertEquals(List.of("926dd99"), commitHashes("(commit 926dd99, this project's)"));
        assertEquals(List.of(), commitHashes("1000000 rows, a decade, 0x7fffffff, 123e4567-e89b-12d3-a456-426614174000"));
        assertTrue(DATE.matcher("run on 2026-12-05 on").find());
        assertTrue(!DATE.matcher("Date32 (1900-01-01 to 2299-12-31)").find());
        assertTrue(UTC_TIME.matcher("at 10:15 UTC").find());
        assertTrue(!UTC_TIME.matcher("up to 2106-02-07 06:28:15 UTC").find());
    }

    @Test
    void everyLinkToTroubleshootingNamesAnEntry() {
        List<String> bare = new ArrayList<>();
        for (Path page : pages()) {
            for (String target : links(read(page))) {
                String file = target.replaceFirst("#.*", "");
                if (file.endsWith("troubleshooting.md") && !target.matches(".*#.+")) {
                    bare.add(ROOT.relativize(page) + ": (" + target + ")");
                }
            }
        }
        assertEquals(List.of(), bare, "links to docs/troubleshooting.md without an #anchor: link the entry the "
                + "reader needs");
    }

    @Test
    void theDocsStaySmall() {
        long total = 0;
        List<String> sizes = new ArrayList<>();
        for (Path page : pages()) {
            String name = page.getFileName().toString();
            if (page.getParent().equals(ROOT.resolve("docs")) && !name.equals(BENCHMARKS)) {
                long bytes = read(page).getBytes(StandardCharsets.UTF_8).length;
                total += bytes;
                sizes.add("docs/" + name + " " + bytes);
            }
        }
        assertTrue(total < DOCS_BUDGET, "docs/*.md but " + BENCHMARKS + " hold " + total + " bytes; the limit is "
                + DOCS_BUDGET + " (cut repetition, history and internals): " + String.join(", ", sizes));
    }

    /**
     * The simple names of the classes under every module's src/test/java, but those a class under src/main/java
     * shares, and single words (such as "Mentions") that prose uses as words.
     */
    private static Set<String> testClassNames() {
        Set<String> main = new TreeSet<>();
        Set<String> tests = new TreeSet<>();
        for (Path p : files(f -> f.toString().endsWith(".java"))) {
            String name = p.getFileName().toString().replaceFirst("\\.java$", "");
            String path = p.toString().replace('\\', '/');
            if (path.contains("/src/main/java/")) {
                main.add(name);
            } else if (path.contains("/src/test/java/") && name.matches("[A-Z][a-z0-9]+[A-Z]\\w*")) {
                tests.add(name);
            }
        }
        tests.removeAll(main);
        return tests;
    }

    @Test
    void theConfigurationPageListsExactlyTheKeysOfTheCode() {
        Set<String> inCode = new TreeSet<>();
        for (ConfigDef def : List.of(SinkConfig.CONFIG_DEF, new AvroConverter().config(), new JsonEnvelopeConverter().config())) {
            inCode.addAll(def.names());
        }
        Set<String> onPage = new TreeSet<>();
        for (String line : read(ROOT.resolve("docs/configuration.md")).split("\n")) {
            Matcher m = KEY_ROW.matcher(line);
            if (m.find()) {
                onPage.add(m.group(1));
            }
        }
        Set<String> missing = new TreeSet<>(inCode);
        missing.removeAll(onPage);
        assertEquals(Set.of(), missing, "keys of the code without a row in docs/configuration.md");
        Set<String> stale = new TreeSet<>(onPage);
        stale.removeAll(inCode);
        assertEquals(Set.of(), stale, "rows of docs/configuration.md naming no key of the code");
    }

    @Test
    void everyMavenCommandNamesWhatExists() {
        Set<String> profiles = new TreeSet<>();
        StringBuilder poms = new StringBuilder();
        for (Path pom : files(p -> p.getFileName().toString().equals("pom.xml"))) {
            String text = read(pom);
            poms.append(text);
            Matcher m = Pattern.compile("<profile>\\s*(?:<!--.*?-->\\s*)*<id>([^<]+)</id>", Pattern.DOTALL).matcher(text);
            while (m.find()) {
                profiles.add(m.group(1));
            }
        }
        String sources = files(p -> p.toString().endsWith(".java")).stream().map(DocsTest::read).collect(Collectors.joining("\n"));
        List<String> wrong = new ArrayList<>();
        int commands = 0;
        for (Path page : pages()) {
            for (String command : mavenCommands(read(page))) {
                commands++;
                for (String token : command.split("\\s+")) {
                    String t = token.replaceAll("^[\"']|[\"'`]$", "");
                    if (t.startsWith("-P")) {
                        for (String p : t.substring(2).split(",")) {
                            if (!profiles.contains(p.replaceFirst("^!", ""))) {
                                wrong.add(ROOT.relativize(page) + ": `" + command + "`: no profile " + p + " (there are " + profiles + ")");
                            }
                        }
                    } else if (t.startsWith("-D") && t.length() > 2) {
                        String name = t.substring(2).split("=", 2)[0];
                        if (!MAVEN_PROPERTIES.contains(name) && !poms.toString().contains(name)
                                && !sources.contains("\"" + name + "\"")) {
                            wrong.add(ROOT.relativize(page) + ": `" + command + "`: property " + name + " is read by no pom or source");
                        }
                    }
                }
                Matcher pl = Pattern.compile("-pl\\s+(\\S+)").matcher(command);
                while (pl.find()) {
                    for (String module : pl.group(1).replaceAll("[\"'`]", "").split(",")) {
                        if (!Files.exists(ROOT.resolve(module).resolve("pom.xml"))) {
                            wrong.add(ROOT.relativize(page) + ": `" + command + "`: no module " + module);
                        }
                    }
                }
            }
        }
        assertTrue(commands > 5, "the docs give " + commands + " mvn commands: is the extraction broken?");
        assertEquals(List.of(), wrong, "mvn commands naming what does not exist");
    }

    @Test
    void everyPageHasTheSameSkeleton() {
        List<String> skeleton = List.of("What it does", "A working config", "How it behaves", "Limits", "What can go wrong");
        List<String> wrong = new ArrayList<>();
        for (Path page : pages()) {
            if (page.getFileName().toString().equals("README.md")) {
                continue;
            }
            List<String> h2 = new ArrayList<>();
            for (String line : prose(read(page))) {
                if (line.startsWith("## ")) {
                    h2.add(line.substring(3).trim());
                }
            }
            List<String> present = new ArrayList<>(h2);
            present.retainAll(skeleton);
            if (!present.equals(skeleton)) {
                wrong.add(ROOT.relativize(page) + " has the sections " + h2);
            }
        }
        assertEquals(List.of(), wrong, "pages without the sections " + skeleton + ", in that order");
    }

    @Test
    void theReadmeLinksEveryPage() {
        List<String> linked = links(read(ROOT.resolve("README.md")));
        List<String> unlinked = new ArrayList<>();
        for (Path page : pages()) {
            String name = "docs/" + page.getFileName();
            if (!page.getFileName().toString().equals("README.md") && linked.stream().noneMatch(l -> l.startsWith(name))) {
                unlinked.add(name);
            }
        }
        assertEquals(List.of(), unlinked, "pages the README's table of documentation does not link");
    }

    @Test
    void theReadmeIsShort() {
        int length = read(ROOT.resolve("README.md")).length();
        assertTrue(length < 15_000, "README.md has " + length + " characters; the limit is 15,000 (move detail to docs/)");
    }

    @Test
    void anchorsAreComputedAsGitHubDoes() {
        assertEquals("exactly-once-delivery-deliveryguaranteeexactly_once",
                anchor("Exactly-once delivery (`delivery.guarantee=exactly_once`)"));
        assertEquals("one-read-for-several-polls-cdcreadpolls", anchor("One read for several polls (`cdc.read.polls`)"));
        assertTrue(links("see [a](b.md#c) and `[x](not-a-link)`\n```\n[y](z.md)\n```\n").equals(List.of("b.md#c")));
    }

    /** README.md and every page under docs/. */
    private static List<Path> pages() {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return pages;
    }

    /** The link targets of a page, outside code blocks and code spans. */
    static List<String> links(String markdown) {
        List<String> targets = new ArrayList<>();
        for (String line : prose(markdown)) {
            Matcher m = LINK.matcher(line.replaceAll("`[^`]*`", ""));
            while (m.find()) {
                targets.add(m.group(1));
            }
        }
        return targets;
    }

    /** The anchors GitHub gives a page's headings (duplicates numbered -1, -2, ...). */
    private static Set<String> anchors(Path page) {
        Set<String> anchors = new TreeSet<>();
        for (String line : prose(read(page))) {
            Matcher m = HEADING.matcher(line);
            if (m.matches()) {
                String a = anchor(m.group(2));
                String unique = a;
                for (int n = 1; anchors.contains(unique); n++) {
                    unique = a + "-" + n;
                }
                anchors.add(unique);
            }
        }
        return anchors;
    }

    /** GitHub's heading anchor: lower case, markup and punctuation dropped (but - and _), spaces to hyphens. */
    static String anchor(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").toLowerCase(java.util.Locale.ROOT);
        return text.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }

    /** The lines outside fenced code blocks. */
    private static List<String> prose(String markdown) {
        return lines(markdown, false);
    }

    /** The lines inside fenced code blocks ({@code inFence}), or outside them. */
    private static List<String> lines(String markdown, boolean inFence) {
        List<String> lines = new ArrayList<>();
        boolean fenced = false;
        for (String line : markdown.split("\n")) {
            if (line.trim().startsWith("```")) {
                fenced = !fenced;
            } else if (fenced == inFence) {
                lines.add(line);
            }
        }
        return lines;
    }

    /** The mvn commands of a page: lines of code blocks and code spans starting with "mvn ". */
    private static List<String> mavenCommands(String markdown) {
        List<String> commands = new ArrayList<>();
        for (String line : lines(markdown, true)) {
            String code = line.trim().replaceFirst("^\\$\\s+", "").replaceFirst("\\s+#.*$", "");
            int at = code.indexOf("mvn ");
            if (at >= 0 && (at == 0 || code.substring(0, at).matches(".*(&&|;|\\|)\\s*$"))) {
                commands.add(code.substring(at));
            }
        }
        for (String line : prose(markdown)) {
            Matcher m = Pattern.compile("`(mvn [^`]+)`").matcher(line);
            while (m.find()) {
                commands.add(m.group(1));
            }
        }
        return commands;
    }

    private static List<Path> files(java.util.function.Predicate<Path> which) {
        try (Stream<Path> s = Files.walk(ROOT)) {
            return s.filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/.git/")
                    && !p.toString().contains("/node_modules/")).filter(Files::isRegularFile).filter(which)
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path p) {
        try {
            return new String(Files.readAllBytes(p), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
