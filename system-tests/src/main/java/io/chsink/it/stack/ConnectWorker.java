package io.chsink.it.stack;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A Kafka Connect distributed worker in a child JVM, started from the repo's
 * {@code config/connect-distributed.properties} (dir from system property {@code chsink.config.dir}) with only the
 * machine-specific keys replaced: bootstrap.servers, the REST listener (a free loopback port), and plugin.path
 * (system property {@code chsink.plugin.path}, plus {@value #DEBEZIUM_PLUGIN_PATH} when set); then the caller's
 * overrides. The connector is loaded from
 * plugin.path only. Workers started with the same bootstrap servers and group settings form one Connect cluster.
 * Files in the work dir: {@code worker.log} (INFO log), {@code worker.out} (stdout/stderr), {@code worker.properties}.
 * JVM options default to {@code -Xmx1g}, overridable with system property {@code chsink.worker.jvm.opts} or
 * {@link #jvmOptions}. The worker runs Connect 4.1.1 from the stack's Kafka-only classpath unless
 * {@link #classpathFrom} names another (the Connect 3.x workers of the compatibility tests).
 */
public final class ConnectWorker extends ChildJvmService {
    /** The connector class the worker must list before it counts as started. */
    public static final String CONNECTOR_CLASS = "io.chsink.connect.ClickHouseSinkConnector";
    /**
     * System property: a second plugin directory for the worker's plugin.path, with Debezium's PostgreSQL source
     * connector (system-tests/pom.xml's debezium-plugin execution fills target/debezium-plugins). Left out when unset
     * or missing.
     */
    public static final String DEBEZIUM_PLUGIN_PATH = "chsink.debezium.plugin.path";

    /** System property: one more plugin directory for the worker's plugin.path (the benchmark's official connector). */
    public static final String EXTRA_PLUGIN_PATH = "chsink.extra.plugin.path";
    public static final String DEBEZIUM_POSTGRES_CLASS = "io.debezium.connector.postgresql.PostgresConnector";
    /** Debezium's MySQL source connector (the debezium-mysql-plugin directory beside the PostgreSQL one). */
    public static final String DEBEZIUM_MYSQL_CLASS = "io.debezium.connector.mysql.MySqlConnector";
    private static final System.Logger LOG = System.getLogger(ConnectWorker.class.getName());
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(120);

    private List<String> jvmOptions = ChildJvm.jvmOptions("chsink.worker.jvm.opts", "-Xmx1g");
    private ConnectRest rest;
    private String pluginPath;
    private String classpathProperty = ChildJvm.CLASSPATH_PROPERTY;
    /** The log of an external worker that this process copies to a file (a container's output); else null. */
    private Path externalLog;

    public ConnectWorker() {
        super(false);
    }

    private ConnectWorker(String restUrl) {
        super(true);
        this.rest = new ConnectRest(restUrl);
    }

    @Override
    protected String describe() {
        return "Connect worker" + (rest == null ? "" : " " + rest.baseUrl());
    }

    /** A worker started elsewhere: {@link #rest()} works, start/stop/kill throw. */
    public static ConnectWorker external(String restUrl) {
        return new ConnectWorker(restUrl);
    }

    /** A worker started elsewhere whose log is copied to {@code logFile} (a container's output): {@link #logFile()} works. */
    static ConnectWorker external(String restUrl, Path logFile) {
        ConnectWorker worker = new ConnectWorker(restUrl);
        worker.externalLog = logFile;
        return worker;
    }

    @Override
    public Path logFile() {
        return externalLog != null ? externalLog : super.logFile();
    }

    /**
     * Overrides that give a Connect cluster its own group and internal topics, so several clusters can share a broker:
     * {@code group.id=<group>} and topics {@code <group>-configs}, {@code <group>-offsets}, {@code <group>-status}.
     */
    public static Map<String, String> isolatedGroup(String group) {
        return Map.of("group.id", group,
                "config.storage.topic", group + "-configs",
                "offset.storage.topic", group + "-offsets",
                "status.storage.topic", group + "-status");
    }

    /** Replaces the child JVM options (heap etc.); takes effect on the next start. */
    public ConnectWorker jvmOptions(String... options) {
        jvmOptions = List.of(options);
        return this;
    }

    /**
     * Runs the worker on the classpath in the file that system property {@code property} names (written by Maven,
     * e.g. {@code chsink.connect.3.5.classpath}); takes effect on the next start.
     */
    public ConnectWorker classpathFrom(String property) {
        classpathProperty = property;
        return this;
    }

    public ConnectWorker start(Path workDir, String bootstrapServers) {
        return start(workDir, bootstrapServers, Map.of());
    }

    /**
     * Wipes {@code workDir}, writes the worker config and starts the worker; waits until {@code GET /health} answers
     * 200 and {@code GET /connector-plugins} lists {@value #CONNECTOR_CLASS}.
     */
    public ConnectWorker start(Path workDir, String bootstrapServers, Map<String, String> overrides) {
        workDir = workDir.toAbsolutePath(); // the child JVM runs in another working directory
        requireManaged();
        if (jvm != null && jvm.isAlive()) {
            throw new IllegalStateException("worker already running at " + rest.baseUrl());
        }
        ChildJvm.resetWorkDir(workDir);
        int port = LocalPorts.free();
        Map<String, String> config = exampleConfig();
        config.put("bootstrap.servers", bootstrapServers);
        config.put("listeners", "http://127.0.0.1:" + port);
        config.put("rest.advertised.host.name", "127.0.0.1");
        config.put("rest.advertised.port", String.valueOf(port));
        config.putAll(overrides);
        pluginPath = overrides.containsKey("plugin.path") ? overrides.get("plugin.path") : defaultPluginPath();
        config.put("plugin.path", pluginPath);
        Path file = workDir.resolve("worker.properties");
        ChildJvm.writeProperties(file, config);
        rest = new ConnectRest("http://127.0.0.1:" + port);
        jvm = new ChildJvm("worker", workDir, jvmOptions, classpathProperty, "org.apache.kafka.connect.cli.ConnectDistributed",
                List.of(file.toString()));
        return start();
    }

    /** Starts the stopped or killed worker again: same config, group and REST port. */
    public ConnectWorker start() {
        requireManaged();
        if (jvm == null) {
            throw new IllegalStateException("start(Path, String, Map) must come first");
        }
        long begin = System.nanoTime();
        launch(() -> awaitReady(begin + STARTUP_TIMEOUT.toNanos()));
        LOG.log(Level.INFO, "Connect worker up at {0} in {1} ms (pid {2}, log: {3})",
                rest.baseUrl(), (System.nanoTime() - begin) / 1_000_000, String.valueOf(jvm.pid()), jvm.logFile());
        return this;
    }

    private void awaitReady(long deadline) {
        while (!rest.isReady()) {
            if (!jvm.isAlive()) {
                throw jvm.failure("exited during startup");
            }
            if (System.nanoTime() > deadline) {
                throw jvm.failure("REST API at " + rest.baseUrl() + " not ready within " + STARTUP_TIMEOUT);
            }
            ChildJvm.sleep(200);
        }
        List<ConnectRest.Plugin> plugins = rest.plugins();
        if (plugins.stream().noneMatch(p -> p.className().equals(CONNECTOR_CLASS))) {
            throw jvm.failure("does not list " + CONNECTOR_CLASS + " (plugin.path " + pluginPath + "); plugins: " + plugins);
        }
        warnIfLogsStayEmpty();
    }

    /** The REST client of this worker. */
    public ConnectRest rest() {
        if (rest == null) {
            throw new IllegalStateException("worker not started");
        }
        return rest;
    }

    public String restUrl() {
        return rest().baseUrl();
    }


    /** config/connect-distributed.properties as a map (the stack's containers start from it too). */
    static Map<String, String> exampleConfig() {
        Path file = Path.of(requiredProperty("chsink.config.dir", "the repo's config/ directory"), "connect-distributed.properties");
        Properties props = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            props.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the worker config " + file, e);
        }
        Map<String, String> config = new LinkedHashMap<>();
        props.stringPropertyNames().forEach(k -> config.put(k, props.getProperty(k)));
        return config;
    }

    static String defaultPluginPath() {
        String dir = requiredProperty("chsink.plugin.path", "the directory the connector archive is unpacked into");
        if (!Files.isDirectory(Path.of(dir))) {
            throw new IllegalStateException("plugin path " + dir + " does not exist: build the connector zip and run"
                    + " mvn -pl system-tests generate-resources to unpack it");
        }
        String path = Path.of(dir).toAbsolutePath().toString(); // the worker runs in its own working directory
        String debezium = System.getProperty(DEBEZIUM_PLUGIN_PATH);
        if (debezium != null && !debezium.isBlank() && Files.isDirectory(Path.of(debezium))) {
            path += "," + Path.of(debezium).toAbsolutePath(); // plugin.path lists directories, comma-separated
        }
        String extra = System.getProperty(EXTRA_PLUGIN_PATH);
        if (extra != null && !extra.isBlank() && Files.isDirectory(Path.of(extra))) {
            path += "," + Path.of(extra).toAbsolutePath(); // e.g. the official connector, for side-by-side runs
        }
        return path;
    }

    /** Whether the worker lists Debezium's PostgreSQL source connector (from {@value #DEBEZIUM_PLUGIN_PATH}). */
    public boolean hasDebeziumPostgres() {
        return rest().plugins().stream().anyMatch(p -> p.className().equals(DEBEZIUM_POSTGRES_CLASS));
    }

    /** Whether the worker lists Debezium's MySQL source connector (from {@value #DEBEZIUM_PLUGIN_PATH}). */
    public boolean hasDebeziumMySql() {
        return rest().plugins().stream().anyMatch(p -> p.className().equals(DEBEZIUM_MYSQL_CLASS));
    }

    private static String requiredProperty(String name, String meaning) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("System property " + name + " (" + meaning + ") is not set; Maven's surefire"
                    + " configuration in system-tests/pom.xml sets it");
        }
        return value;
    }
}
