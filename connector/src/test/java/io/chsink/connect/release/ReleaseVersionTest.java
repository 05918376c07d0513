package io.chsink.connect.release;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.chsink.connect.ClickHouseSinkConnector;
import io.chsink.connect.Version;
import io.chsink.connect.convert.JsonEnvelopeConverter;
import io.chsink.connect.convert.avro.AvroConverter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * One version everywhere: every pom.xml, the connector's and converters' {@code version()}, manifest.json (filtered
 * from the pom), the CHANGELOG's newest release, and every archive name, image tag and version the README, docs/,
 * docker/, config/ and the tests' sources spell out. CHANGELOG.md alone may name earlier versions.
 */
class ReleaseVersionTest {
    private static final Path ROOT = Paths.get("..").toAbsolutePath().normalize();
    private static final String V = "(\\d+\\.\\d+\\.\\d+(?:-SNAPSHOT)?)";
    /** Spellings of this project's version outside the poms; group 1 is the version. */
    private static final List<Pattern> MENTIONS = List.of(
            Pattern.compile("chsink-clickhouse-sink-" + V),
            Pattern.compile("chsink-connector-" + V + "\\.jar"),
            Pattern.compile("chsink/[a-z-]*clickhouse:" + V),
            Pattern.compile("CHSINK_VERSION=" + V),
            Pattern.compile("\"class\":\"io\\.chsink\\.[\\w.]+\",\"type\":\"\\w+\",\"version\":\"" + V + "\""));
    private static final Pattern README_VERSION = Pattern.compile("\\bVersion " + V);
    private static final Set<String> TEXT = Set.of("md", "json", "properties", "yml", "yaml", "sh", "java", "txt", "xml");

    private static String project() {
        return Version.get();
    }

    @Test
    void everyPomHasTheProjectVersion() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (Path pom : files(p -> p.getFileName().toString().equals("pom.xml"))) {
            Element project = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
            Element parent = child(project, "parent");
            String version = text(parent != null ? child(parent, "version") : child(project, "version"));
            if (pom.equals(ROOT.resolve("pom.xml"))) {
                version = text(child(project, "version"));
            }
            if (!project().equals(version)) {
                wrong.add(ROOT.relativize(pom) + ": " + version);
            }
        }
        assertEquals(List.of(), wrong, "pom.xml files whose (parent) version is not " + project());
    }

    @Test
    void theConnectorAndConvertersReportTheProjectVersion() {
        assertTrue(project().matches(V), "version.properties is filtered: " + project());
        assertEquals(project(), new ClickHouseSinkConnector().version());
        assertEquals(project(), new JsonEnvelopeConverter().version());
        assertEquals(project(), new AvroConverter().version());
    }

    @Test
    void theManifestTakesItsVersionFromThePom() throws IOException {
        String version = new ObjectMapper().readTree(ROOT.resolve("manifest.json").toFile()).path("version").asText();
        assertEquals("${project.version}", version, "manifest.json's version is filtered from the pom into the archive");
    }

    @Test
    void theNewestChangelogSectionIsThisVersion() {
        Matcher m = Pattern.compile("(?m)^## \\[([^\\]]+)\\](.*)$").matcher(read(ROOT.resolve("CHANGELOG.md")));
        assertTrue(m.find(), "CHANGELOG.md has no '## [version]' section");
        assertEquals(project(), m.group(1), "the first section of CHANGELOG.md is the project's version");
        assertTrue(m.group(2).matches(" - (\\d{4}-\\d{2}-\\d{2}|Unreleased)"),
                "'## [" + project() + "] - YYYY-MM-DD' (or '- Unreleased' until the release), not: " + m.group());
    }

    @Test
    void everyVersionTheDocsAndFilesSpellOutIsTheProjectVersion() {
        List<String> wrong = new ArrayList<>();
        int mentions = 0;
        for (Path file : files(ReleaseVersionTest::checked)) {
            String text = read(file);
            List<Pattern> patterns = new ArrayList<>(MENTIONS);
            if (file.equals(ROOT.resolve("README.md"))) {
                patterns.add(README_VERSION);
            }
            for (Pattern p : patterns) {
                Matcher m = p.matcher(text);
                while (m.find()) {
                    mentions++;
                    if (!m.group(1).equals(project())) {
                        int line = text.substring(0, m.start()).split("\n", -1).length;
                        wrong.add(ROOT.relativize(file) + ":" + line + ": " + m.group());
                    }
                }
            }
        }
        assertTrue(mentions >= 5, "only " + mentions + " version mentions found: is the search broken?");
        assertEquals(List.of(), wrong, "mentions of another version than " + project() + " (CHANGELOG.md may keep old ones)");
    }

    private static boolean checked(Path p) {
        String name = p.getFileName().toString();
        if (name.equals("CHANGELOG.md") || name.equals("package-lock.json") || name.equals("pom.xml")) {
            return false;
        }
        int dot = name.lastIndexOf('.');
        return name.startsWith("Dockerfile") || dot > 0 && TEXT.contains(name.substring(dot + 1));
    }

    private static List<Path> files(java.util.function.Predicate<Path> which) {
        List<Path> found = new ArrayList<>();
        try {
            Files.walkFileTree(ROOT, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    String n = dir.getFileName().toString();
                    return !dir.equals(ROOT) && (n.startsWith("target") || n.startsWith(".") || n.equals("node_modules"))
                            ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    if (attrs.isRegularFile() && which.test(file)) {
                        found.add(file);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        found.sort(null);
        return found;
    }

    private static Element child(Element parent, String name) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element && n.getNodeName().equals(name)) {
                return (Element) n;
            }
        }
        return null;
    }

    private static String text(Element e) {
        return e == null ? null : e.getTextContent().trim();
    }

    static String read(Path p) {
        try {
            return new String(Files.readAllBytes(p), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
