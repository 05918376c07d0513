package io.chsink.connect.release;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.chsink.connect.Version;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Properties;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The Confluent Hub archive as the package phase built it (failsafe, in {@code mvn -B verify}): its directory,
 * manifest.json, connector jar and version.properties carry the pom's version, and doc/THIRD-PARTY.txt lists
 * exactly lib/. With {@code -Prelease}, also the files beside it: the SHA-256 checksum (sha256sum's format) and the
 * THIRD-PARTY list generated from the POMs, which must name exactly the jars of lib/; and the CHANGELOG section of
 * this version must carry its release date.
 */
class ReleaseArchiveIT {
    private static final String VERSION = System.getProperty("chsink.project.version");
    private static final Path ARCHIVE = Paths.get(System.getProperty("chsink.archive"));
    private static final String TOP = "chsink-clickhouse-sink-" + VERSION + "/";

    @Test
    void theArchiveCarriesTheProjectVersion() throws IOException {
        assertEquals(VERSION, Version.get(), "the connector's version() is the pom's");
        assertEquals("chsink-clickhouse-sink-" + VERSION + ".zip", ARCHIVE.getFileName().toString());
        try (ZipFile zip = new ZipFile(ARCHIVE.toFile())) {
            zip.stream().forEach(e -> assertTrue(e.getName().startsWith(TOP), "outside " + TOP + ": " + e.getName()));
            JsonNode manifest = new ObjectMapper().readTree(bytes(zip, TOP + "manifest.json"));
            assertEquals(VERSION, manifest.path("version").asText(), "manifest.json's version");
            assertTrue(manifest.path("release_date").asText().matches("\\d{4}-\\d{2}-\\d{2}"), manifest.toString());
            assertFalse(manifest.toString().contains("${"), "unfiltered placeholder in manifest.json");
            byte[] jar = bytes(zip, TOP + "lib/chsink-connector-" + VERSION + ".jar");
            Properties p = new Properties();
            try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(jar))) {
                for (JarEntry e = in.getNextJarEntry(); e != null; e = in.getNextJarEntry()) {
                    if (e.getName().equals("io/chsink/connect/version.properties")) {
                        p.load(in);
                    }
                }
            }
            assertEquals(VERSION, p.getProperty("version"), "the connector jar's version.properties");
            assertEquals(lib(zip), listed(new String(bytes(zip, TOP + "doc/THIRD-PARTY.txt"), StandardCharsets.UTF_8)),
                    "doc/THIRD-PARTY.txt lists exactly lib/ (connector/src/assembly/THIRD-PARTY.txt)");
        }
    }

    @Test
    void aReleaseHasItsChecksumThirdPartyListAndChangelogDate() throws IOException, NoSuchAlgorithmException {
        Assumptions.assumeTrue(Boolean.getBoolean("chsink.release"), "only with -Prelease");
        Path sha = ARCHIVE.resolveSibling(ARCHIVE.getFileName() + ".sha256");
        assertTrue(Files.exists(sha), sha + " is missing");
        StringBuilder expected = new StringBuilder();
        for (byte b : MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(ARCHIVE))) {
            expected.append(String.format("%02x", b & 0xFF));
        }
        assertEquals(expected + "  " + ARCHIVE.getFileName(), Files.readString(sha).trim(),
                "the checksum file, as sha256sum -c reads it");

        Path thirdParty = ARCHIVE.resolveSibling("chsink-clickhouse-sink-" + VERSION + "-THIRD-PARTY.txt");
        assertTrue(Files.exists(thirdParty), thirdParty + " is missing");
        // license-maven-plugin's lines: "     (License name) Project name (groupId:artifactId:version - url)"
        Matcher m = Pattern.compile("(?m)^\\s*\\((.+)\\) .* \\(([^():\\s]+):([^():\\s]+):([^():\\s]+) - [^)]*\\)\\s*$")
                .matcher(Files.readString(thirdParty));
        TreeSet<String> generated = new TreeSet<>();
        while (m.find()) {
            assertFalse(m.group(1).isBlank(), "a license for " + m.group(2) + ":" + m.group(3));
            generated.add(m.group(3) + "-" + m.group(4) + ".jar");
        }
        generated.add("chsink-connector-" + VERSION + ".jar");
        try (ZipFile zip = new ZipFile(ARCHIVE.toFile())) {
            assertEquals(lib(zip), generated, thirdParty.getFileName() + " names exactly the jars of lib/");
        }

        String changelog = Files.readString(Paths.get("..", "CHANGELOG.md"));
        assertTrue(Pattern.compile("(?m)^## \\[" + Pattern.quote(VERSION) + "\\] - \\d{4}-\\d{2}-\\d{2}$").matcher(changelog).find(),
                "CHANGELOG.md: date the section of the release, '## [" + VERSION + "] - YYYY-MM-DD'");
    }

    private static TreeSet<String> lib(ZipFile zip) {
        TreeSet<String> jars = new TreeSet<>();
        zip.stream().map(ZipEntry::getName).filter(n -> n.startsWith(TOP + "lib/") && n.endsWith(".jar"))
                .forEach(n -> jars.add(n.substring((TOP + "lib/").length())));
        assertFalse(jars.isEmpty(), "lib/ is empty");
        return jars;
    }

    private static TreeSet<String> listed(String thirdParty) {
        TreeSet<String> jars = new TreeSet<>();
        for (String line : thirdParty.split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                jars.add(line.split("\t")[0]);
            }
        }
        return jars;
    }

    private static byte[] bytes(ZipFile zip, String name) throws IOException {
        ZipEntry e = zip.getEntry(name);
        assertTrue(e != null, name + " is missing from " + ARCHIVE);
        try (InputStream in = zip.getInputStream(e)) {
            return in.readAllBytes();
        }
    }
}
