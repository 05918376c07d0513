package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * What can be checked of docker/ without a Docker engine: the compose file parses and has the quickstart's services
 * with pinned images; every file and directory it and the Dockerfiles name exists in the repository or the build
 * output (the connector archive, unpacked to the plugin directory the worker's plugin.path names); the quickstart
 * creates its connector from a config/ example mounted from config/ itself, not from a copy.
 */
class DockerFilesTest {
    private static final Path REPO = Paths.get(System.getProperty("chsink.repo.dir", "..")).toAbsolutePath().normalize();
    private static final Path DOCKER = REPO.resolve("docker");
    private static final String VERSION = System.getProperty("chsink.project.version");
    private static final String BUILD_DIR = System.getProperty("chsink.build.dir.name", "target");

    @SuppressWarnings("unchecked")
    private static Map<String, Object> compose() throws IOException {
        try (Reader in = Files.newBufferedReader(DOCKER.resolve("docker-compose.yml"))) {
            return new Yaml().load(in);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> service(String name) throws IOException {
        Map<String, Object> services = (Map<String, Object>) compose().get("services");
        assertTrue(services.containsKey(name), "service " + name + " in " + services.keySet());
        return (Map<String, Object>) services.get(name);
    }

    @Test
    @SuppressWarnings("unchecked")
    void composeParsesWithTheQuickstartServicesOnPinnedImages() throws IOException {
        Map<String, Object> services = (Map<String, Object>) compose().get("services");
        assertEquals(List.of("clickhouse", "kafka", "connect", "setup"), new ArrayList<>(services.keySet()));
        for (Map.Entry<String, Object> s : services.entrySet()) {
            String image = (String) ((Map<String, Object>) s.getValue()).get("image");
            assertTrue(image != null && image.matches("[a-z0-9./-]+:[0-9][0-9A-Za-z.-]*"),
                    s.getKey() + ": a pinned image (name:version), not " + image);
        }
        assertTrue(((String) service("clickhouse").get("image")).startsWith("clickhouse/clickhouse-server:"));
        assertEquals("apache/kafka:4.1.1", service("kafka").get("image"));
        Map<String, Object> kafkaEnv = (Map<String, Object>) service("kafka").get("environment");
        assertEquals("broker,controller", kafkaEnv.get("KAFKA_PROCESS_ROLES"), "a KRaft broker, no ZooKeeper");
        Map<String, Object> connectEnv = (Map<String, Object>) service("connect").get("environment");
        assertEquals("kafka:9092", connectEnv.get("CONNECT_BOOTSTRAP_SERVERS"));
        assertEquals("no", service("setup").get("restart"), "setup is one-shot");
    }

    /** The Dockerfiles' COPY sources, with ARG defaults filled in, exist relative to the build context (the repo). */
    @Test
    @SuppressWarnings("unchecked")
    void everyPathTheComposeFileAndTheDockerfilesNameExists() throws IOException {
        Map<String, Object> build = (Map<String, Object>) service("connect").get("build");
        Path context = DOCKER.resolve((String) build.get("context")).normalize();
        assertEquals(REPO, context, "the build context is the repository root");
        Path dockerfile = context.resolve((String) build.get("dockerfile"));
        assertEquals(DOCKER.resolve("Dockerfile"), dockerfile);
        for (Path file : List.of(dockerfile, DOCKER.resolve("Dockerfile.cp-kafka-connect"))) {
            List<String> sources = copySources(file);
            assertFalse(sources.isEmpty(), file + " copies something");
            for (String source : sources) {
                if (source.startsWith("https://")) {
                    // ADD of a released artifact (the Prometheus JMX exporter agent): pinned, from Maven Central.
                    assertTrue(source.matches("https://repo1\\.maven\\.org/maven2/.+/[0-9][^/]*/[^/]+\\.jar"), source);
                    continue;
                }
                Path p = REPO.resolve(source.replaceFirst("^connector/target/", "connector/" + BUILD_DIR + "/"));
                assertTrue(Files.exists(p), file.getFileName() + ": COPY " + source + " -> " + p + " exists");
            }
        }
        for (String service : List.of("setup")) {
            for (Object volume : (List<Object>) service(service).get("volumes")) {
                String host = ((String) volume).split(":")[0];
                assertTrue(Files.exists(DOCKER.resolve(host)), service + " volume " + volume + ": " + DOCKER.resolve(host));
            }
        }
        List<String> entrypoint = (List<String>) service("setup").get("entrypoint");
        assertEquals("/quickstart/quickstart-setup.sh", entrypoint.get(entrypoint.size() - 1));
        assertTrue(Files.isExecutable(DOCKER.resolve("connect-entrypoint.sh")), "the image's entrypoint is executable");
    }

    /**
     * The archive the Dockerfile unpacks holds one top directory, chsink-clickhouse-sink-VERSION/ with lib/, which
     * lands in the directory the image names as plugin.path; the Dockerfile's version default is the build's.
     */
    @Test
    void theDockerfileUnpacksTheArchiveIntoThePluginPath() throws IOException {
        String dockerfile = Files.readString(DOCKER.resolve("Dockerfile"));
        Map<String, String> args = args(dockerfile);
        assertEquals(VERSION, args.get("CHSINK_VERSION"), "ARG CHSINK_VERSION default is the project version");
        assertEquals(VERSION, args(Files.readString(DOCKER.resolve("Dockerfile.cp-kafka-connect"))).get("CHSINK_VERSION"));
        Path zip = REPO.resolve("connector/" + BUILD_DIR + "/chsink-clickhouse-sink-" + VERSION + ".zip");
        try (ZipFile z = new ZipFile(zip.toFile())) {
            List<String> tops = z.stream().map(e -> e.getName().split("/")[0]).distinct().collect(Collectors.toList());
            assertEquals(List.of("chsink-clickhouse-sink-" + VERSION), tops);
            assertTrue(z.stream().anyMatch(e -> e.getName().matches("chsink-clickhouse-sink-[^/]+/lib/chsink-connector-.*\\.jar")));
        }
        assertTrue(dockerfile.contains("unzip -q /tmp/chsink.zip -d /tmp/plugins"), dockerfile);
        assertTrue(dockerfile.contains("COPY --from=plugin --chown=appuser:appuser /tmp/plugins /opt/kafka/plugins"));
        assertTrue(dockerfile.contains("CONNECT_PLUGIN_PATH=/opt/kafka/plugins"), "plugin.path is the unpack target");
        assertTrue(Files.readString(DOCKER.resolve("Dockerfile.cp-kafka-connect"))
                .contains("COPY --from=plugin /tmp/plugins /usr/share/confluent-hub-components"));
        // The worker starts from the repository's worker config, the one the tests use.
        assertTrue(dockerfile.contains("COPY --chown=appuser:appuser config/connect-distributed.properties "));
    }

    /**
     * Both images run the worker with the Prometheus JMX exporter agent that PrometheusMetricsTest ran (the system
     * tests' jmx.prometheus.version) and the repository's rules, on the port they expose.
     */
    @Test
    void bothImagesRunTheTestedPrometheusAgentWithTheRepositoryRules() throws IOException {
        Matcher pinned = Pattern.compile("<jmx\\.prometheus\\.version>([^<]+)</jmx\\.prometheus\\.version>")
                .matcher(Files.readString(REPO.resolve("system-tests/pom.xml")));
        assertTrue(pinned.find(), "system-tests/pom.xml pins jmx.prometheus.version");
        for (String name : List.of("Dockerfile", "Dockerfile.cp-kafka-connect")) {
            String text = Files.readString(DOCKER.resolve(name));
            assertEquals(pinned.group(1), args(text).get("JMX_PROMETHEUS_VERSION"), name + ": the tested agent");
            assertTrue(copySources(DOCKER.resolve(name)).contains("https://repo1.maven.org/maven2/io/prometheus/jmx/"
                    + "jmx_prometheus_javaagent/" + pinned.group(1) + "/jmx_prometheus_javaagent-" + pinned.group(1)
                    + ".jar"), name + " adds the agent from Maven Central");
            assertTrue(text.contains("COPY --chown=appuser:appuser config/jmx-prometheus.yml /opt/jmx-exporter/jmx-prometheus.yml"),
                    name + " copies the rules");
            assertTrue(text.contains("KAFKA_OPTS=\"-javaagent:/opt/jmx-exporter/jmx_prometheus_javaagent.jar=9404:"
                    + "/opt/jmx-exporter/jmx-prometheus.yml\""), name + " starts the worker with the agent");
            assertTrue(Pattern.compile("(?m)^EXPOSE .*\\b9404\\b").matcher(text).find(), name + " exposes 9404");
        }
    }

    /** setup creates the connector from config/ itself (mounted read-only), not from a copy kept in docker/. */
    @Test
    @SuppressWarnings("unchecked")
    void theQuickstartConnectorIsAConfigExample() throws IOException {
        List<Object> volumes = (List<Object>) service("setup").get("volumes");
        assertTrue(volumes.contains("../config:/config:ro"), volumes.toString());
        String script = Files.readString(DOCKER.resolve("quickstart-setup.sh"));
        Matcher m = Pattern.compile("EXAMPLE=/config/([A-Za-z0-9.-]+\\.json)").matcher(script);
        assertTrue(m.find(), "the setup script names its config/ example");
        Path example = REPO.resolve("config").resolve(m.group(1));
        assertTrue(Files.isRegularFile(example), example.toString());
        JsonNode config = new ObjectMapper().readTree(example.toFile());
        assertEquals("io.chsink.connect.ClickHouseSinkConnector", config.path("config").path("connector.class").asText());
        assertEquals("events", config.path("config").path("topics").asText(), "the topic setup produces to");
        assertTrue(script.contains("--topic events"));
        // Only the URL is replaced, and the example does have that URL.
        assertEquals("http://localhost:8123", config.path("config").path("clickhouse.url").asText());
        assertTrue(script.contains("sed 's#\"http://localhost:8123\"#\"http://clickhouse:8123\"#' \"$EXAMPLE\""));
        try (Stream<Path> files = Files.list(DOCKER)) {
            assertEquals(List.of(), files.filter(p -> p.toString().endsWith(".json")).collect(Collectors.toList()),
                    "no connector config copies in docker/");
        }
        // The table setup creates has the columns of the events the system tests land.
        assertTrue(script.replaceAll("\\s+", " ").contains(io.chsink.it.events.EventsTable.COLUMNS.replaceAll("\\s+", " ")),
                "setup's CREATE TABLE has EventsTable's columns");
    }

    /** COPY/ADD sources of a Dockerfile (not those from another stage), with ${ARG} defaults substituted. */
    private static List<String> copySources(Path dockerfile) throws IOException {
        String text = Files.readString(dockerfile);
        Map<String, String> args = args(text);
        List<String> sources = new ArrayList<>();
        for (String line : text.split("\n")) {
            String l = line.trim();
            if (!(l.startsWith("COPY ") || l.startsWith("ADD ")) || l.contains("--from=")) {
                continue;
            }
            List<String> parts = new ArrayList<>(List.of(l.split("\\s+")));
            parts.remove(0);
            parts.removeIf(p -> p.startsWith("--"));
            for (String source : parts.subList(0, parts.size() - 1)) {
                Matcher m = Pattern.compile("\\$\\{(\\w+)}").matcher(source);
                StringBuilder out = new StringBuilder();
                while (m.find()) {
                    assertTrue(args.containsKey(m.group(1)), "ARG " + m.group(1) + " has a default in " + dockerfile);
                    m.appendReplacement(out, Matcher.quoteReplacement(args.get(m.group(1))));
                }
                m.appendTail(out);
                sources.add(out.toString());
            }
        }
        return sources;
    }

    private static Map<String, String> args(String dockerfile) {
        Map<String, String> args = new LinkedHashMap<>();
        Matcher m = Pattern.compile("(?m)^ARG (\\w+)=(\\S+)$").matcher(dockerfile);
        while (m.find()) {
            args.put(m.group(1), m.group(2));
        }
        return args;
    }
}
