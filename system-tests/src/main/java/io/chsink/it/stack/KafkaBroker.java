package io.chsink.it.stack;

import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Uuid;

/**
 * A single-node KRaft Kafka cluster (combined broker + controller) in a child JVM, listening on free loopback
 * ports, or an external cluster ({@link #external}) that is only talked to. Files in the work dir:
 * {@code broker.log} (INFO log), {@code broker.out} (stdout/stderr), {@code broker.properties}, {@code data/}.
 * JVM options default to {@code -Xmx512m}, overridable with system property {@code chsink.broker.jvm.opts}
 * or {@link #jvmOptions}.
 */
public final class KafkaBroker extends ChildJvmService {
    private static final System.Logger LOG = System.getLogger(KafkaBroker.class.getName());
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);

    private List<String> jvmOptions = ChildJvm.jvmOptions("chsink.broker.jvm.opts", "-Xmx512m");
    private String bootstrapServers;
    private Admin admin;

    public KafkaBroker() {
        super(false);
    }

    private KafkaBroker(String bootstrapServers) {
        super(true);
        this.bootstrapServers = bootstrapServers;
    }

    @Override
    protected String describe() {
        return "Kafka cluster" + (bootstrapServers == null ? "" : " " + bootstrapServers);
    }

    /** A cluster started elsewhere: topics and admin work, start/stop/kill throw. */
    public static KafkaBroker external(String bootstrapServers) {
        return new KafkaBroker(bootstrapServers);
    }

    /** Replaces the child JVM options (heap etc.); takes effect on the next start. */
    public KafkaBroker jvmOptions(String... options) {
        jvmOptions = List.of(options);
        return this;
    }

    /** Wipes {@code workDir}, formats fresh KRaft storage and starts the node; waits until it serves metadata. */
    public KafkaBroker start(Path workDir) {
        return start(workDir, Map.of());
    }

    /** Like {@link #start(Path)}, with extra or replaced broker properties. */
    public KafkaBroker start(Path workDir, Map<String, String> overrides) {
        workDir = workDir.toAbsolutePath(); // the child JVM runs in another working directory
        requireManaged();
        if (jvm != null && jvm.isAlive()) {
            throw new IllegalStateException("broker already running at " + bootstrapServers);
        }
        closeAdmin();
        ChildJvm.resetWorkDir(workDir);
        int port = LocalPorts.free();
        int controllerPort = LocalPorts.free();
        bootstrapServers = "127.0.0.1:" + port;
        Map<String, String> config = new LinkedHashMap<>();
        config.put("process.roles", "broker,controller");
        config.put("node.id", "1");
        config.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        config.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        config.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        config.put("controller.listener.names", "CONTROLLER");
        config.put("inter.broker.listener.name", "PLAINTEXT");
        // The benchmark puts the log on tmpfs (chsink.kafka.log.dirs): gigabytes written to disk just before a timed
        // run would be flushed to disk during it.
        config.put("log.dirs", System.getProperty("chsink.kafka.log.dirs", workDir.resolve("data").toString()));
        config.put("offsets.topic.replication.factor", "1");
        config.put("offsets.topic.num.partitions", "5"); // 50 by default: slower startup and recovery for nothing
        config.put("transaction.state.log.replication.factor", "1");
        config.put("transaction.state.log.min.isr", "1");
        config.put("share.coordinator.state.topic.replication.factor", "1");
        config.put("share.coordinator.state.topic.min.isr", "1");
        // 0 for fast tests (Kafka's default is 3000); the benchmark sets Kafka's default through this property, so
        // that a connector's tasks join their consumer group together instead of rebalancing after the first read.
        config.put("group.initial.rebalance.delay.ms", System.getProperty("chsink.kafka.initial.rebalance.delay.ms", "0"));
        config.putAll(overrides);
        Path file = workDir.resolve("broker.properties");
        ChildJvm.writeProperties(file, config);

        long begin = System.nanoTime();
        ChildJvm.run("storage-format", workDir, "kafka.tools.StorageTool",
                List.of("format", "--cluster-id", Uuid.randomUuid().toString(), "--config", file.toString()),
                Duration.ofSeconds(60));
        long formatted = System.nanoTime();
        jvm = new ChildJvm("broker", workDir, jvmOptions, "kafka.Kafka", List.of(file.toString()));
        awaitStarted();
        LOG.log(Level.INFO, "Kafka broker up at {0}: storage format {1} ms, broker start {2} ms (log: {3})",
                bootstrapServers, (formatted - begin) / 1_000_000, (System.nanoTime() - formatted) / 1_000_000, jvm.logFile());
        return this;
    }

    /** Starts the stopped or killed node again with the same ports and data. */
    public KafkaBroker start() {
        requireManaged();
        if (jvm == null) {
            throw new IllegalStateException("start(Path) must come first");
        }
        long begin = System.nanoTime();
        awaitStarted();
        LOG.log(Level.INFO, "Kafka broker restarted at {0} in {1} ms", bootstrapServers, (System.nanoTime() - begin) / 1_000_000);
        return this;
    }

    private void awaitStarted() {
        launch(this::awaitMetadata);
    }

    private void awaitMetadata() {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (true) {
            if (!jvm.isAlive()) {
                throw jvm.failure("exited during startup");
            }
            try {
                if (!admin().describeCluster(new DescribeClusterOptions().timeoutMs(2000)).nodes().get().isEmpty()) {
                    break;
                }
            } catch (ExecutionException e) {
                // not serving metadata yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the broker", e);
            }
            if (System.nanoTime() > deadline) {
                throw jvm.failure("did not serve metadata within " + STARTUP_TIMEOUT);
            }
            ChildJvm.sleep(200);
        }
        warnIfLogsStayEmpty();
    }

    /** {@code host:port} of the PLAINTEXT listener. */
    public String bootstrapServers() {
        if (bootstrapServers == null) {
            throw new IllegalStateException("broker not started");
        }
        return bootstrapServers;
    }

    /** A shared admin client for this cluster; owned by the broker (closed by {@link #close()}), do not close it. */
    public synchronized Admin admin() {
        if (admin == null) {
            admin = Admin.create(Map.of(
                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
                    // a local broker: retry fast, so startup and restarts are noticed within ~0.3 s
                    AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 250,
                    AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 250,
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
        }
        return admin;
    }

    /** Deletes a topic (its log files go with it). */
    public void deleteTopic(String name) {
        try {
            admin().deleteTopics(List.of(name)).all().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("cannot delete topic " + name, e);
        }
    }

    /** Creates a topic (replication factor 1) and waits until every partition has a leader. */
    public void createTopic(String name, int partitions) {
        try {
            admin().createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (true) {
                try {
                    TopicDescription topic = admin().describeTopics(List.of(name)).topicNameValues().get(name).get(10, TimeUnit.SECONDS);
                    if (topic.partitions().size() == partitions && topic.partitions().stream().allMatch(p -> p.leader() != null)) {
                        return;
                    }
                } catch (ExecutionException e) {
                    // metadata not propagated yet
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("topic " + name + " has no leaders for all partitions after 30 s");
                }
                ChildJvm.sleep(100);
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create topic " + name + " with " + partitions + " partitions", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + name, e);
        }
    }


    /** Closes the admin client and stops the broker if it runs; an external cluster is left alone. */
    @Override
    public void close() {
        closeAdmin();
        super.close();
    }

    private synchronized void closeAdmin() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
            admin = null;
        }
    }
}
