package io.chsink.it.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.clickhouse.ClickHouseContainer;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The stack as Docker containers, through Testcontainers ({@code mvn -B verify -Pcontainers}, which sets
 * {@code chsink.stack=containers}; see {@link Stack}): a ClickHouse server, an Apache Kafka KRaft broker, and a
 * Kafka Connect worker running in the Apache Kafka image with the unpacked plugin archive (the same
 * {@code chsink.plugin.path} the local worker uses) mounted read-only as its {@code plugin.path}, started from
 * config/connect-distributed.properties with only the machine-specific keys replaced. The worker runs in the host's
 * network (Linux Docker engines), so it reaches ClickHouse and Kafka at the same mapped ports as the tests.
 * Its output is copied to {@code <workDir>/worker/worker.log}.
 *
 * <p>The services are external to the tests ({@code chsink.clickhouse.url}, {@code chsink.bootstrap.servers} and
 * {@code chsink.connect.url} are set), so the tests that kill or restart the local child processes skip themselves
 * as they do for any external service. Images: {@code chsink.containers.clickhouse.image},
 * {@code chsink.containers.kafka.image} (also the worker's image).
 */
public final class ContainerStack implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ContainerStack.class.getName());
    static final String CLICKHOUSE_IMAGE = System.getProperty("chsink.containers.clickhouse.image", "clickhouse/clickhouse-server:26.7");
    static final String KAFKA_IMAGE = System.getProperty("chsink.containers.kafka.image", "apache/kafka:4.1.1");
    private static final Duration WORKER_STARTUP = Duration.ofMinutes(3);

    private final List<GenericContainer<?>> started = new ArrayList<>();

    private ContainerStack() {
    }

    /** Called by {@link Stack#start} through reflection. */
    public static Stack start(Path workDir) {
        requireDocker();
        ContainerStack containers = new ContainerStack();
        try {
            return containers.startAll(workDir.toAbsolutePath());
        } catch (RuntimeException e) {
            containers.close();
            throw e;
        }
    }

    /** Fails at once, naming what Testcontainers tried, when there is no Docker engine to talk to. */
    static void requireDocker() {
        String reason;
        try {
            DockerClientFactory.instance().client(); // throws when no strategy finds an engine (they are logged)
            return;
        } catch (Throwable e) {
            reason = e.getMessage() == null ? e.toString() : e.getMessage();
        }
        throw new IllegalStateException("The containers mode of the system tests (-Pcontainers, chsink.stack=containers)"
                + " needs a Docker engine, and Testcontainers found none: " + reason + ". Start Docker (or point"
                + " DOCKER_HOST at one), or run without -Pcontainers: the default stack needs no Docker.");
    }

    private Stack startAll(Path workDir) throws RuntimeException {
        ClickHouseContainer clickhouse = new ClickHouseContainer(CLICKHOUSE_IMAGE)
                .withUsername("default")
                .withPassword("")
                // "default" with no password, reachable from outside the container (what config/ examples use).
                .withEnv("CLICKHOUSE_SKIP_USER_SETUP", "1");
        KafkaContainer kafka = new KafkaContainer(KAFKA_IMAGE);
        run(clickhouse);
        run(kafka);
        String bootstrap = kafka.getBootstrapServers().replaceFirst("^PLAINTEXT://", "");

        int port = LocalPorts.free();
        Map<String, String> config = new TreeMap<>(ConnectWorker.exampleConfig());
        config.put("bootstrap.servers", bootstrap);
        config.put("listeners", "http://127.0.0.1:" + port);
        config.put("rest.advertised.host.name", "127.0.0.1");
        config.put("rest.advertised.port", String.valueOf(port));
        config.put("plugin.path", "/opt/kafka/plugins");
        StringBuilder properties = new StringBuilder();
        config.forEach((k, v) -> properties.append(k).append('=').append(v).append('\n'));
        Path log = workDir.resolve("worker").resolve("worker.log");
        resetLog(log);
        GenericContainer<?> worker = new GenericContainer<>(KAFKA_IMAGE)
                .withNetworkMode("host")
                .withFileSystemBind(ConnectWorker.defaultPluginPath(), "/opt/kafka/plugins", BindMode.READ_ONLY)
                .withCopyToContainer(Transferable.of(properties.toString()), "/tmp/chsink-connect.properties")
                .withCommand("/opt/kafka/bin/connect-distributed.sh", "/tmp/chsink-connect.properties")
                .withLogConsumer((OutputFrame frame) -> append(log, frame.getUtf8String()));
        run(worker);
        String restUrl = "http://127.0.0.1:" + port;
        awaitWorker(new ConnectRest(restUrl), worker, log);

        String clickhouseUrl = clickhouse.getHttpUrl();
        // The services are external to the tests: those that manage local processes skip themselves.
        System.setProperty("chsink.clickhouse.url", clickhouseUrl);
        System.setProperty("chsink.bootstrap.servers", bootstrap);
        System.setProperty("chsink.connect.url", restUrl);
        LOG.log(Level.INFO, "Containers up: ClickHouse {0} ({1}), Kafka {2} ({3}), Connect {4} (log {5})", clickhouseUrl,
                CLICKHOUSE_IMAGE, bootstrap, KAFKA_IMAGE, restUrl, log);
        return Stack.of(ClickHouseServer.external(clickhouseUrl, "default", ""), KafkaBroker.external(bootstrap),
                ConnectWorker.external(restUrl, log), workDir, this);
    }

    private void run(GenericContainer<?> container) {
        started.add(container);
        container.start();
    }

    private static void awaitWorker(ConnectRest rest, GenericContainer<?> worker, Path log) {
        long deadline = System.nanoTime() + WORKER_STARTUP.toNanos();
        while (!rest.isReady() || rest.plugins().stream().noneMatch(p -> p.className().equals(ConnectWorker.CONNECTOR_CLASS))) {
            if (!worker.isRunning() || System.nanoTime() > deadline) {
                throw new IllegalStateException("the Connect container did not list " + ConnectWorker.CONNECTOR_CLASS
                        + " at " + rest.baseUrl() + " within " + WORKER_STARTUP + " (running: " + worker.isRunning()
                        + "); its output is in " + log);
            }
            ChildJvm.sleep(500);
        }
    }

    private static void resetLog(Path log) {
        try {
            Files.createDirectories(log.getParent());
            Files.deleteIfExists(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static synchronized void append(Path log, String text) {
        try {
            Files.writeString(log, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            // the test goes on without this line of the worker's output
        }
    }

    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).stop();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "cannot stop " + started.get(i).getDockerImageName(), e);
            }
        }
        started.clear();
    }

    @Override
    public String toString() {
        return "the stack's containers";
    }
}
