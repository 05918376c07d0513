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
import java.util.List;
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
        assertEquals("chsink-" + m.path("name").asText() + "-" + version, dir.getFileName().toString());
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
    void docAndEtcShipTheReadmeLicenseAndTheExampleConfigs() throws IOException {
        Path dir = component();
        assertEquals(List.of("LICENSE", "README.md"), names(dir.resolve("doc")));
        List<String> etc = names(dir.resolve("etc"));
        List<String> config = names(Paths.get(System.getProperty("chsink.config.dir")));
        assertEquals(config, etc);
    }
}
