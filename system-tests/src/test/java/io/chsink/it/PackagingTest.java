package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The Confluent Hub archive as Maven built it (unpacked into the plugin path the worker uses). */
class PackagingTest {
    private static Path component() throws IOException {
        Path plugins = Paths.get(System.getProperty("chsink.plugin.path"));
        try (Stream<Path> dirs = Files.list(plugins)) {
            List<Path> found = dirs.filter(Files::isDirectory).collect(Collectors.toList());
            assertEquals(1, found.size(), "one component directory in " + plugins + ": " + found);
            return found.get(0);
        }
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }

    @Test
    void manifestCarriesTheBuildsVersionAndEveryRequiredField() throws IOException {
        Path dir = component();
        JsonNode m = new ObjectMapper().readTree(dir.resolve("manifest.json").toFile());
        String version = m.path("version").asText();
        assertTrue(version.matches("\\d+\\.\\d+\\.\\d+(-[A-Za-z0-9.]+)?"), version);
        // Confluent Hub's component archive: <owner username>-<name>-<version>/ (and the same .zip name).
        assertEquals(m.path("owner").path("username").asText() + "-" + m.path("name").asText() + "-" + version,
                dir.getFileName().toString());
        assertEquals(System.getProperty("chsink.project.version"), version, "the build's version");
        assertTrue(m.path("release_date").asText().matches("\\d{4}-\\d{2}-\\d{2}"), m.path("release_date").asText());
        for (String field : new String[] {"title", "description", "owner", "support", "tags", "requirements", "license"}) {
            assertFalse(m.path(field).isMissingNode(), field);
        }
        JsonNode f = m.path("features");
        for (String field : new String[] {"delivery_guarantee", "kafka_connect_api", "single_message_transforms",
            "supported_encodings"}) {
            assertFalse(f.path(field).isMissingNode(), "features." + field);
        }
        assertEquals("sink", m.path("component_types").get(0).asText());
        assertFalse(m.toString().contains("${"), "unfiltered placeholder in " + m);
    }

    /**
     * The fields of Confluent Hub's component archive specification with the values its tools accept: component
     * types among sink/source/transform/converter, both delivery guarantees (exactly_once: delivery.guarantee),
     * owner username and name, support, a license list of name and url; only manifest.json, lib/, doc/ and etc/ at
     * the top.
     */
    @Test
    void manifestFollowsTheComponentArchiveSpecification() throws IOException {
        Path dir = component();
        JsonNode m = new ObjectMapper().readTree(dir.resolve("manifest.json").toFile());
        assertEquals(List.of("doc", "etc", "lib", "manifest.json"), names(dir));
        assertTrue(m.path("name").asText().matches("[a-z0-9-]+"), m.path("name").asText());
        assertFalse(m.path("owner").path("username").asText().isEmpty());
        assertFalse(m.path("owner").path("name").asText().isEmpty());
        assertFalse(m.path("support").path("summary").asText().isEmpty());
        List<String> types = new ArrayList<>();
        m.path("component_types").forEach(t -> types.add(t.asText()));
        assertTrue(List.of("sink", "source", "transform", "converter").containsAll(types), types.toString());
        assertEquals(List.of("sink", "converter"), types, "a sink that ships converters");
        List<String> guarantees = new ArrayList<>();
        m.path("features").path("delivery_guarantee").forEach(g -> guarantees.add(g.asText()));
        assertEquals(List.of("at_least_once", "exactly_once"), guarantees);
        assertTrue(m.path("license").isArray() && m.path("license").size() > 0);
        for (JsonNode l : m.path("license")) {
            assertFalse(l.path("name").asText().isEmpty(), l.toString());
            assertTrue(l.path("url").asText().startsWith("https://"), l.toString());
        }
    }

    /** Every converter the jar registers for Connect's plugin discovery is named in the manifest. */
    @Test
    void manifestNamesEveryConverterTheJarRegisters() throws IOException {
        Path dir = component();
        String description = new ObjectMapper().readTree(dir.resolve("manifest.json").toFile()).path("description").asText();
        List<String> converters = services(dir, "org.apache.kafka.connect.storage.Converter");
        assertFalse(converters.isEmpty());
        for (String converter : converters) {
            assertTrue(description.contains(converter), converter + " named in the manifest's description: " + description);
        }
    }

    /**
     * doc/THIRD-PARTY.txt lists exactly lib/'s jars, each with a license the manifest lists; where a jar's
     * MANIFEST.MF declares a Bundle-License, it is the same license.
     */
    @Test
    void everyJarsLicenseIsListed() throws IOException {
        Path dir = component();
        JsonNode m = new ObjectMapper().readTree(dir.resolve("manifest.json").toFile());
        List<String> manifestLicenses = new ArrayList<>();
        m.path("license").forEach(l -> manifestLicenses.add(l.path("name").asText()));
        Map<String, String> listed = new TreeMap<>();
        for (String line : Files.readAllLines(dir.resolve("doc").resolve("THIRD-PARTY.txt"))) {
            if (!line.isBlank() && !line.startsWith("#")) {
                String[] f = line.split("\t");
                assertEquals(2, f.length, "jar<TAB>license: " + line);
                listed.put(f[0], f[1]);
            }
        }
        assertEquals(names(dir.resolve("lib")), new ArrayList<>(listed.keySet()), "doc/THIRD-PARTY.txt lists lib/");
        for (Map.Entry<String, String> e : listed.entrySet()) {
            assertTrue(manifestLicenses.contains(e.getValue()), e + ": license not in the manifest " + manifestLicenses);
            String declared = bundleLicense(dir.resolve("lib").resolve(e.getKey()));
            if (declared != null) {
                String kind = declared.contains("apache.org/licenses/LICENSE-2.0") || declared.contains("Apache")
                        ? "Apache License 2.0" : declared.startsWith("BSD-3-Clause") ? "BSD 3-Clause License" : declared;
                assertEquals(kind, e.getValue(), e.getKey() + " declares Bundle-License " + declared);
            }
        }
    }

    private static String bundleLicense(Path jar) throws IOException {
        try (JarFile j = new JarFile(jar.toFile())) {
            return j.getManifest() == null ? null : j.getManifest().getMainAttributes().getValue("Bundle-License");
        }
    }

    private static List<String> services(Path dir, String service) throws IOException {
        Path jar;
        try (Stream<Path> s = Files.list(dir.resolve("lib"))) {
            jar = s.filter(p -> p.getFileName().toString().startsWith("chsink-connector-")).findFirst().orElseThrow();
        }
        try (JarFile j = new JarFile(jar.toFile())) {
            String text = new String(j.getInputStream(j.getEntry("META-INF/services/" + service)).readAllBytes(),
                    java.nio.charset.StandardCharsets.UTF_8);
            return text.lines().map(String::trim).filter(l -> !l.isEmpty() && !l.startsWith("#")).collect(Collectors.toList());
        }
    }

    @Test
    void libHoldsTheConnectorAndItsDependenciesButNothingTheWorkerProvides() throws IOException {
        Path dir = component();
        List<String> lib = names(dir.resolve("lib"));
        assertTrue(lib.stream().anyMatch(n -> n.startsWith("chsink-connector-")), lib.toString());
        assertTrue(lib.stream().anyMatch(n -> n.startsWith("client-v2-")), lib.toString());
        // AvroConverter's one dependency (Apache License 2.0); its Jackson is the worker's
        assertTrue(lib.stream().anyMatch(n -> n.matches("avro-1\\.12\\.\\d+\\.jar")), lib.toString());
        for (String provided : new String[] {"connect-api", "kafka-clients", "slf4j-api", "connect-json",
            "jackson-"}) {
            assertFalse(lib.stream().anyMatch(n -> n.startsWith(provided)), provided + " must not be bundled: " + lib);
        }
        Path jar = dir.resolve("lib").resolve(lib.stream().filter(n -> n.startsWith("chsink-connector-")).findFirst().get());
        try (JarFile j = new JarFile(jar.toFile())) {
            assertEquals("io.chsink.connect.ClickHouseSinkConnector", new String(j.getInputStream(
                    j.getEntry("META-INF/services/org.apache.kafka.connect.sink.SinkConnector")).readAllBytes()).trim());
            assertEquals(List.of("io.chsink.connect.convert.JsonEnvelopeConverter",
                    "io.chsink.connect.convert.avro.AvroConverter"), new String(j.getInputStream(
                    j.getEntry("META-INF/services/org.apache.kafka.connect.storage.Converter")).readAllBytes()).trim().lines()
                    .collect(Collectors.toList()));
            assertEquals(55, j.getJarEntry("io/chsink/connect/ClickHouseSinkTask.class") == null ? -1
                    : classMajorVersion(j), "the connector is compiled for Java 11 (class file version 55)");
        }
    }

    private static int classMajorVersion(JarFile j) throws IOException {
        byte[] head = j.getInputStream(j.getJarEntry("io/chsink/connect/ClickHouseSinkTask.class")).readNBytes(8);
        return ((head[6] & 0xFF) << 8) | (head[7] & 0xFF);
    }

    @Test
    void docAndEtcShipTheReadmeTheDocsTheLicenseAndTheExampleConfigs() throws IOException {
        Path dir = component();
        assertEquals(List.of("CHANGELOG.md", "CONTRIBUTING.md", "LICENSE", "README.md", "THIRD-PARTY.txt", "docs"),
                names(dir.resolve("doc")));
        Path docs = Paths.get(System.getProperty("chsink.config.dir")).resolveSibling("docs");
        List<String> pages = names(docs);
        pages.removeIf(n -> !n.endsWith(".md") && !n.endsWith(".svg") && !n.equals("charts"));
        assertEquals(pages, names(dir.resolve("doc").resolve("docs")), "doc/docs/ ships every page of docs/");
        assertEquals(names(docs.resolve("charts")), names(dir.resolve("doc").resolve("docs").resolve("charts")),
                "and the benchmarks page's charts");
        List<String> etc = names(dir.resolve("etc"));
        List<String> config = names(Paths.get(System.getProperty("chsink.config.dir")));
        assertEquals(config, etc);
    }
}
