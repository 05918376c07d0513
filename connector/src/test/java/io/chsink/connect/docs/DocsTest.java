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
 * {@code #anchor} resolves, the configuration page lists exactly the keys of the code's ConfigDefs, every
 * {@code mvn} command names profiles, properties and modules that exist, and the README stays short.
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
