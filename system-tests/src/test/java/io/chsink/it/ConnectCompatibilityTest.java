package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ConnectRest;
import io.chsink.it.stack.ConnectWorker;
import io.chsink.it.stack.RowWatcher;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The packaged plugin on Apache Kafka Connect 3.5.2 (Confluent Platform 7.5's Kafka) and 3.9.1 (7.9's) distributed
 * workers from Maven Central (classpaths written by the modules system-tests/connect-3.5 and connect-3.9), next to
 * the shared broker and ClickHouse: the core checks with small datasets on each. The other system tests run the same
 * checks, and more, on Connect 4.1.1 (the shared worker). Per version: the worker lists the connector with the
 * project's version, and JsonEnvelopeConverter (with it too from 3.6 on); 20,000 events land exactly; bad records go
 * to the dead-letter queue and only they; a second worker of the same version joins mid-stream without a row lost or
 * doubled; exactly_once under a task restart and a SIGKILL of that second worker during an insert lands every event
 * once; a topic renamed by RegexRouter lands exactly on 3.9 and stops the task with the reason on 3.5 (no KIP-793).
 */
class ConnectCompatibilityTest {
    private static final String PROJECT_VERSION = System.getProperty("chsink.project.version");

    @Nested
    class Connect35 extends Checks {
        Connect35() {
            super("3.5.2", "chsink.connect.3.5.classpath");
        }
    }

    @Nested
    class Connect39 extends Checks {
        Connect39() {
            super("3.9.1", "chsink.connect.3.9.classpath");
        }
    }

    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    abstract static class Checks {
        private final String version;
        private final String classpathProperty;
        private final SinkHarness h = new SinkHarness();
        private final String group;
        private final Path workDir;
        private ConnectWorker worker;
        private ConnectWorker second;
        private long startedAt;

        Checks(String version, String classpathProperty) {
            this.version = version;
            this.classpathProperty = classpathProperty;
            this.group = "chsink-compat-" + version.replace('.', '-');
            this.workDir = Path.of(System.getProperty("chsink.work.dir", "target/stack"), "compat-" + version);
        }

        @BeforeAll
        void startWorker() {
            Assumptions.assumeTrue(System.getProperty("chsink.connect.url") == null
                    && System.getenv("CHSINK_CONNECT_URL") == null, "starts its own Connect workers");
            startedAt = System.nanoTime();
            worker = newWorker().start(workDir.resolve("a"), h.stack.kafka().bootstrapServers(), workerConfig());
            System.out.printf("ConnectCompatibilityTest: Connect %s worker up in %.1f s%n", version, seconds(startedAt));
        }

        @AfterAll
        void stopWorkers() {
            if (second != null) {
                second.close();
            }
            if (worker != null) {
                worker.close();
                System.out.printf("ConnectCompatibilityTest: Connect %s checks took %.1f s in all%n", version,
                        seconds(startedAt));
            }
        }

        /**
         * The cluster's own group and topics; a worker that died is replaced after 5 s (config/: 10 s) so the run
         * stays short.
         */
        private Map<String, String> workerConfig() {
            Map<String, String> c = new HashMap<>(ConnectWorker.isolatedGroup(group));
            c.put("scheduled.rebalance.max.delay.ms", "5000");
            return c;
        }

        private ConnectWorker newWorker() {
            return new ConnectWorker().classpathFrom(classpathProperty);
        }

        private ConnectRest rest() {
            return worker.rest();
        }

        private void create(String name, String example, Map<String, String> overrides) {
            Map<String, String> o = new HashMap<>();
            o.put("clickhouse.url", h.clickhouse.url());
            o.put("clickhouse.database", h.db);
            o.putAll(overrides);
            Map<String, String> config = ConnectorConfigs.load(example, o);
            config.remove("name");
            rest().putConnectorConfig(name, config);
        }

        private void delete(String name) {
            try {
                rest().deleteConnector(name);
            } catch (RuntimeException e) {
                // already gone
            }
        }

        private long await(String table, String aggregate, long expected, String connector) {
            return new RowWatcher(h.ch(), "`" + table + "`", aggregate).awaitRows(expected, Duration.ofMinutes(4),
                    Duration.ofSeconds(90), new ConnectorFailure(rest(), connector), null);
        }

        @Test
        @Order(1)
        void theWorkerIsThatVersionAndListsThePluginsWithTheProjectVersion() {
            assertEquals(version, rest().workerVersion(), "GET / of the worker");
            ConnectRest.Plugin sink = rest().plugins().stream()
                    .filter(p -> p.className().equals(ConnectWorker.CONNECTOR_CLASS)).findFirst().orElseThrow();
            assertEquals("sink", sink.type());
            assertEquals(PROJECT_VERSION, sink.version(), "the connector's version()");
            ConnectRest.Plugin converter = rest().allPlugins().stream()
                    .filter(p -> p.className().equals("io.chsink.connect.convert.JsonEnvelopeConverter"))
                    .findFirst().orElseThrow(() -> new AssertionError("JsonEnvelopeConverter not listed: " + rest().allPlugins()));
            assertEquals("converter", converter.type());
            System.out.printf("ConnectCompatibilityTest: Connect %s lists %s and %s%n", version, sink, converter);
            // Connect 3.5 lists converters without versions; the plugin scanning of KIP-898 (3.6) reports Versioned's.
            if (!version.startsWith("3.5.")) {
                assertEquals(PROJECT_VERSION, converter.version(), "the converter's Versioned.version()");
            }
        }

        @Test
        @Order(2)
        void eventsLandExactly() throws Exception {
            long begin = System.nanoTime();
            long rows = 20_000;
            long seed = 31;
            String topic = SinkHarness.unique("compat_events");
            String connector = SinkHarness.unique("sink");
            h.stack.clickhouse().exec(EventsTable.createSql(h.db, topic));
            h.stack.kafka().createTopic(topic, 4);
            new EventProducer(h.stack.kafka().bootstrapServers()).produce(topic, 4, new EventGenerator(seed), rows, true, null);
            try {
                create(connector, "clickhouse-sink.json", SinkHarness.overrides(topic, 2));
                await(topic, "count()", rows, connector);
                Thread.sleep(1500); // a duplicate would show by now
                assertEquals(rows, h.scalar("SELECT count() FROM `" + topic + "`"));
                assertEquals(rows, h.scalar("SELECT uniqExact(*) FROM `" + topic + "`"));
                assertEquals(EventsTable.expected(seed, rows), EventsTable.check(h.ch(), h.db, topic));
            } finally {
                delete(connector);
            }
            report("events exact", begin);
        }

        @Test
        @Order(3)
        void badRecordsAndOnlyThemGoToTheDeadLetterQueue() throws Exception {
            long begin = System.nanoTime();
            String topic = SinkHarness.unique("compat_dlq");
            String connector = SinkHarness.unique("sink");
            Map<String, String> o = LevelRecords.prepare(h, topic);
            try {
                create(connector, "clickhouse-sink-schemaless.json", o);
                await(topic, "count()", LevelRecords.GOOD, connector);
                LevelRecords.assertOnlyTheBadOnesWereDeadLettered(h, topic);
            } finally {
                delete(connector);
            }
            report("dead-letter queue", begin);
        }

        /**
         * Events produced at 1,000 a second until a second worker of the same version has joined the group mid-stream
         * (tasks move, partitions are revoked and reassigned) and for 5 s more: every event lands, none twice
         * (orderly rebalances re-insert nothing, as RebalanceTest shows on 4.1.1). The second worker stays for the
         * exactly_once run, which kills it.
         */
        @Test
        @Order(4)
        void aSecondWorkerJoiningMidStreamLosesAndDoublesNothing() throws Exception {
            long begin = System.nanoTime();
            long seed = 37;
            String topic = SinkHarness.unique("compat_rebalance");
            String connector = SinkHarness.unique("sink");
            h.stack.clickhouse().exec(EventsTable.createSql(h.db, topic));
            h.stack.kafka().createTopic(topic, 4);
            Map<String, String> o = SinkHarness.overrides(topic, 2);
            o.put("flush.max.rows", "2000");
            AtomicBoolean more = new AtomicBoolean(true);
            try {
                create(connector, "clickhouse-sink.json", o);
                CompletableFuture<Long> producing = produceEverySecond(topic, 4, seed, 1000, more::get);
                await(topic, "count()", 1000, connector);
                startSecond();
                RowWatcher watcher = new RowWatcher(h.ch(), "`" + topic + "`");
                long joined = watcher.count();
                Thread.sleep(5000);
                more.set(false);
                long rows = producing.get();
                assertTrue(joined < rows, "the second worker must join mid-stream, but " + joined + " of " + rows
                        + " rows were in");
                await(topic, "uniqExact(*)", rows, connector);
                Thread.sleep(1500);
                h.assertDistinctRowsAreTheDataset(topic, seed, rows);
                long total = h.scalar("SELECT count() FROM `" + topic + "`");
                System.out.printf("ConnectCompatibilityTest %s: second worker joined at %d rows of %d; %d rows in the "
                        + "end; tasks on %s%n", version, joined, rows, total, workers(connector));
                assertEquals(rows, total, "rows inserted twice across the rebalance");
            } finally {
                more.set(false);
                delete(connector);
            }
            report("rebalance", begin);
        }

        /**
         * exactly_once with both workers: events produced over about 15 s into two partitions; once rows land a task
         * is restarted through REST, then the second worker is SIGKILLed while an insert runs and its tasks go to the
         * first one. In the end every event is in the table exactly once.
         */
        @Test
        @Order(5)
        void exactlyOnceSurvivesATaskRestartAndAWorkerKillDuringAnInsert() throws Exception {
            long begin = System.nanoTime();
            long rows = 15_000;
            long seed = 41;
            String topic = SinkHarness.unique("compat_eo");
            String connector = SinkHarness.unique("eo_sink");
            h.stack.clickhouse().exec(EventsTable.createDedupSql(h.db, topic));
            h.stack.kafka().createTopic(topic, 2);
            Map<String, String> o = SinkHarness.overrides(topic, 2);
            o.put("flush.max.rows", "1000");
            if (second == null || !second.isRunning()) {
                startSecond();
            }
            try {
                create(connector, "clickhouse-sink-exactly-once.json", o);
                rest().waitForTasksRunning(connector, 2, Duration.ofMinutes(2));
                java.util.concurrent.atomic.AtomicInteger chunks = new java.util.concurrent.atomic.AtomicInteger();
                CompletableFuture<Long> producing = produceEverySecond(topic, 2, seed, rows / 15,
                        () -> chunks.getAndIncrement() < 15);
                await(topic, "count()", 1000, connector);
                String atRestart = awaitInsert(topic);
                rest().restartTask(connector, 1);
                rest().waitForTasksRunning(connector, 2, Duration.ofMinutes(2));
                String tasks = workers(connector);
                String atKill = awaitInsert(topic);
                assertEquals(137, second.kill(), "SIGKILL");
                long landed = h.scalar("SELECT count() FROM `" + topic + "`");
                assertTrue(landed < rows, "the kill must come mid-stream, but " + landed + " rows were in");
                assertEquals(rows, producing.get().longValue());
                awaitCommittedToEnd(topic, 2, connector);
                long count = h.scalar("SELECT count() FROM `" + topic + "`");
                System.out.printf("ConnectCompatibilityTest %s: exactly_once task restart (%s), kill of %s (tasks on %s;"
                        + " %s, %d rows in): %d rows%n", version, atRestart, second.restUrl(), tasks, atKill, landed, count);
                assertEquals(rows, count, "count() under exactly_once");
                assertEquals(rows, h.scalar("SELECT uniqExact(*) FROM `" + topic + "`"));
                assertEquals(EventsTable.expected(seed, rows), EventsTable.check(h.ch(), h.db, topic));
            } finally {
                delete(connector);
            }
            report("exactly_once faults", begin);
        }

        /** Schema'd events of {@code seed}, {@code perSecond} each second while {@code more} says so; the count. */
        private CompletableFuture<Long> produceEverySecond(String topic, int partitions, long seed, long perSecond,
                java.util.function.BooleanSupplier more) {
            return CompletableFuture.supplyAsync(() -> {
                EventProducer producer = new EventProducer(h.stack.kafka().bootstrapServers());
                EventGenerator generator = new EventGenerator(seed);
                while (more.getAsBoolean()) {
                    producer.produce(topic, partitions, generator, perSecond, true, null);
                    sleep(1000);
                }
                return generator.produced();
            });
        }

        /**
         * A topic renamed by RegexRouter ({@code X} into {@code X_routed}, the table's name). From Connect 3.6 on
         * (KIP-793) the task commits the consumer's partitions: every event lands once and the group's committed
         * offsets reach the end of the source topic. On 3.5 a task cannot tell where a renamed record was read, so it
         * stops at the first one with a message that names the transform problem and the version that fixes it, and
         * writes nothing.
         */
        @Test
        @Order(6)
        void aTopicRenamingTransformIsFollowedOrRefusedWithTheReason() throws Exception {
            long begin = System.nanoTime();
            long rows = 5_000;
            long seed = 43;
            String topic = SinkHarness.unique("compat_route");
            String table = topic + "_routed";
            String connector = SinkHarness.unique("sink");
            h.stack.clickhouse().exec(EventsTable.createSql(h.db, table));
            h.stack.kafka().createTopic(topic, 2);
            new EventProducer(h.stack.kafka().bootstrapServers()).produce(topic, 2, new EventGenerator(seed), rows, true,
                    null);
            Map<String, String> o = SinkHarness.overrides(topic, 1);
            o.put("transforms", "route");
            o.put("transforms.route.type", "org.apache.kafka.connect.transforms.RegexRouter");
            o.put("transforms.route.regex", "(.*)");
            o.put("transforms.route.replacement", "$1_routed");
            try {
                create(connector, "clickhouse-sink.json", o);
                if (version.startsWith("3.5.")) {
                    String trace = ConnectorFailure.await(rest(), connector, Duration.ofMinutes(2));
                    Mentions.assertMentions(trace, "Record topic=" + table + " partition=",
                            "is not from a partition this task consumes", "a transform changed its topic or partition",
                            "KIP-793, Connect 3.6 and later", "route with topic.to.table.map instead");
                    assertEquals(0, h.scalar("SELECT count() FROM `" + table + "`"), "nothing written");
                } else {
                    await(table, "count()", rows, connector);
                    awaitCommittedToEnd(topic, 2, connector);
                    Thread.sleep(1500); // a duplicate would show by now
                    assertEquals(rows, h.scalar("SELECT count() FROM `" + table + "`"));
                    assertEquals(EventsTable.expected(seed, rows), EventsTable.check(h.ch(), h.db, table));
                }
            } finally {
                delete(connector);
            }
            report("renaming transform", begin);
        }

        private void startSecond() {
            second = newWorker().start(workDir.resolve("b"), h.stack.kafka().bootstrapServers(), workerConfig());
        }

        /** Which worker runs which task, for the output. */
        private String workers(String connector) {
            StringBuilder out = new StringBuilder();
            for (ConnectRest.TaskState t : rest().connectorStatus(connector).tasks()) {
                out.append(out.length() == 0 ? "" : ", ").append("task ").append(t.id()).append(' ').append(t.workerId());
            }
            return out.toString();
        }

        private static void sleep(long ms) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        /** Polls system.processes (up to 5 s) for an insert into the table; says what it saw. */
        private String awaitInsert(String table) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (System.nanoTime() < deadline) {
                String now = h.ch().query("SELECT round(elapsed * 1000) FROM system.processes WHERE startsWith(query, "
                        + "'INSERT') AND position(query, '`" + table + "`') > 0 FORMAT TSV").trim();
                if (!now.isEmpty()) {
                    return "an insert running for " + now.split("\n")[0] + " ms";
                }
                Thread.sleep(2);
            }
            return "no insert seen within 5 s";
        }

        /** Waits until the connector's consumer group has committed every partition to its end. */
        private void awaitCommittedToEnd(String topic, int partitions, String connector) throws Exception {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> end = new HashMap<>();
            h.stack.kafka().admin().listOffsets(latest).all().get().forEach((tp, i) -> end.put(tp, i.offset()));
            ConnectorFailure failure = new ConnectorFailure(rest(), connector);
            long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
            while (true) {
                Map<TopicPartition, Long> committed = new HashMap<>();
                h.stack.kafka().admin().listConsumerGroupOffsets("connect-" + connector).partitionsToOffsetAndMetadata()
                        .get().forEach((tp, m) -> committed.put(tp, m == null ? -1 : m.offset()));
                if (end.entrySet().stream().allMatch(e -> committed.getOrDefault(e.getKey(), -1L) >= e.getValue())) {
                    return;
                }
                String f = failure.get();
                if (f != null) {
                    throw new AssertionError("connector failed: " + f);
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("offsets not committed to the end: " + committed + " of " + end);
                }
                Thread.sleep(500);
            }
        }

        private void report(String check, long begin) {
            System.out.printf("ConnectCompatibilityTest: Connect %s, %s: %.1f s%n", version, check, seconds(begin));
        }

        private static double seconds(long since) {
            return (System.nanoTime() - since) / 1e9;
        }
    }
}
