package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventJson;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ConnectWorker;
import io.chsink.it.stack.RowWatcher;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Sink tasks whose consumers rebalance incrementally: {@code consumer.override.partition.assignment.strategy} set to
 * Kafka's CooperativeStickyAssignor, while a second worker joins the Connect cluster mid-stream and leaves again, so
 * that tasks stop, start and move, and a task's consumer gives up some of its partitions while it keeps the others
 * (with blocks open in both); then a third member (a plain consumer) joins each group for a few seconds and leaves
 * without committing, so that a task surely gives up part of its partitions and gets them back. Two connectors run through it at once, each from a topic of four partitions renamed by
 * RegexRouter into its table: at_least_once (no event missing) and exactly_once (every event exactly once).
 *
 * <p>That the cooperative protocol really ran is checked, not assumed: the groups' descriptions name the assignor
 * {@code cooperative-sticky}, the workers' logs hold the consumers' incremental assignment lines ("Updating assignment
 * with", written only under the COOPERATIVE protocol) for both groups, and at least one of them revoked part of a
 * consumer's partitions while it kept the rest.
 */
class CooperativeRebalanceTest {
    private static final long ROWS = 150_000;
    private static final int PARTITIONS = 4;
    /** Chunks of the paced stream, one every 500 ms: about 45 s, so that the join and the departure both come mid-stream. */
    private static final int CHUNKS = 90;
    private final SinkHarness h = new SinkHarness();

    @Test
    void cooperativeRebalancesLoseNothingAndDuplicateNothingUnderExactlyOnce() throws Exception {
        Assumptions.assumeTrue(System.getProperty("chsink.connect.url") == null && System.getenv("CHSINK_CONNECT_URL") == null,
                "needs the local Connect worker to add a second one to its group");
        String prefix = SinkHarness.unique("coop");
        Sink alo = new Sink(prefix + "_alo", false, 41);
        Sink eo = new Sink(prefix + "_eo", true, 42);
        List<Sink> sinks = List.of(alo, eo);
        ConnectWorker second = new ConnectWorker();
        List<Executable> checks = new ArrayList<>();
        try {
            for (Sink s : sinks) {
                s.create();
            }
            for (Sink s : sinks) {
                h.rest().waitForTasksRunning(s.name, 2, Duration.ofMinutes(2));
            }
            CompletableFuture<Long> producing = CompletableFuture.supplyAsync(() -> stream(sinks));
            RowWatcher watcher = new RowWatcher(h.ch(), EventsTable.qualified(h.db, alo.table));
            watcher.awaitRows(ROWS / 8, Duration.ofMinutes(3), Duration.ofSeconds(90),
                    new ConnectorFailure(h.rest(), alo.name), null);
            second.start(Paths.get(System.getProperty("chsink.work.dir", "target/stack"), prefix + "-worker2"),
                    h.stack.kafka().bootstrapServers());
            long joined = watcher.count();
            Thread.sleep(12_000);
            second.stop();
            long left = watcher.count();
            // Connect may move all of a connector's tasks together (then no consumer keeps part of its partitions):
            // a third member joins each group for a while, so that a task gives up one of its two partitions and
            // keeps the other, with blocks open in both, and gets it back when the member leaves uncommitted.
            for (Sink s : sinks) {
                s.visitor = CompletableFuture.runAsync(() -> visit(s, Duration.ofSeconds(8)));
            }
            for (Sink s : sinks) {
                s.visitor.get();
            }
            long visited = watcher.count();
            assertTrue(visited < ROWS, "the third member must leave mid-stream");
            assertTrue(left < ROWS, "the second worker must leave mid-stream");
            assertEquals(2 * ROWS, producing.get().longValue());
            for (Sink s : sinks) {
                new RowWatcher(h.ch(), EventsTable.qualified(h.db, s.table), "uniqExact(*)").awaitRows(ROWS,
                        Duration.ofMinutes(5), Duration.ofSeconds(120), new ConnectorFailure(h.rest(), s.name), null);
                h.awaitCommittedToEnd(s.name, s.partitions(), Duration.ofMinutes(3));
            }
            List<Path> logs = List.of(h.stack.connect().logFile(), second.logFile());
            int partialRevocations = 0;
            for (Sink s : sinks) {
                String assignor = h.stack.kafka().admin().describeConsumerGroups(List.of(s.group())).describedGroups()
                        .get(s.group()).get().partitionAssignor();
                Assignments a = Assignments.read(logs, s.group());
                partialRevocations += a.partialRevocations;
                long count = h.scalar("SELECT count() FROM " + EventsTable.qualified(h.db, s.table));
                long distinct = h.scalar("SELECT uniqExact(*) FROM " + EventsTable.qualified(h.db, s.table));
                System.out.printf("CooperativeRebalanceTest: %s (%s, %s -> %s): assignor %s; %d incremental assignments, "
                        + "%d of them revoking part of a consumer's partitions (e.g. %s); %d rows, %d distinct, "
                        + "%d duplicates%n", s.name, s.exactlyOnce ? "exactly_once" : "at_least_once", s.topic, s.table,
                        assignor, a.updates, a.partialRevocations, a.example, count, distinct, count - distinct);
                checks.add(() -> assertEquals(new CooperativeStickyAssignor().name(), assignor, s.group() + ": assignor"));
                checks.add(() -> assertTrue(a.updates > 0, s.group() + ": no incremental (COOPERATIVE) assignment "
                        + "in the workers' logs"));
                checks.add(() -> h.assertDistinctRowsAreTheDataset(s.table, s.seed, ROWS));
                if (s.exactlyOnce) {
                    checks.add(() -> assertEquals(ROWS, count, s.table + ": rows (exactly_once)"));
                }
            }
            int partial = partialRevocations;
            checks.add(() -> assertTrue(partial > 0, "no consumer gave up part of its partitions while keeping the rest"));
            System.out.printf("CooperativeRebalanceTest: second worker joined at %d rows of %s, left at %d; a third "
                    + "group member left at %d%n", joined, alo.table, left, visited);
        } finally {
            second.close();
            for (Sink s : sinks) {
                h.deleteQuietly(s.name);
            }
        }
        assertAll("CooperativeRebalanceTest", checks);
    }

    /**
     * A consumer of the sink's group (CooperativeStickyAssignor too) that polls for {@code stay} and leaves without
     * committing: the records it was handed are the sink's again from the group's committed offsets.
     */
    private void visit(Sink s, Duration stay) {
        java.util.Properties p = new java.util.Properties();
        p.put("bootstrap.servers", h.stack.kafka().bootstrapServers());
        p.put("group.id", s.group());
        p.put("enable.auto.commit", "false");
        p.put("partition.assignment.strategy", CooperativeStickyAssignor.class.getName());
        org.apache.kafka.common.serialization.ByteArrayDeserializer d =
                new org.apache.kafka.common.serialization.ByteArrayDeserializer();
        try (org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> c =
                new org.apache.kafka.clients.consumer.KafkaConsumer<>(p, d, d)) {
            c.subscribe(List.of(s.topic));
            long end = System.nanoTime() + stay.toNanos();
            while (System.nanoTime() < end) {
                c.poll(Duration.ofMillis(200));
            }
            System.out.printf("CooperativeRebalanceTest: a third member of %s held %s when it left%n", s.group(),
                    c.assignment());
        }
    }

    /** The events of every sink in {@link #CHUNKS} chunks, one every 500 ms, round robin over the partitions. */
    private long stream(List<Sink> sinks) {
        EventProducer.Batches out = new EventProducer(h.stack.kafka().bootstrapServers()).batches();
        try (out) {
            long next = System.nanoTime();
            for (int chunk = 0; chunk < CHUNKS; chunk++) {
                for (Sink s : sinks) {
                    for (long i = s.generator.produced(); i < ROWS * (chunk + 1) / CHUNKS; i++) {
                        out.send(new ProducerRecord<>(s.topic, (int) (i % PARTITIONS), null,
                                EventJson.withSchema(s.generator.next())));
                    }
                }
                out.flush();
                next += 500_000_000L;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000L);
                }
            }
            return out.sent();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** One connector: topic NAME_src, renamed by RegexRouter to NAME_dst, its table. */
    private final class Sink {
        final String name;
        final boolean exactlyOnce;
        final long seed;
        final EventGenerator generator;
        final String topic;
        final String table;
        CompletableFuture<Void> visitor;

        Sink(String name, boolean exactlyOnce, long seed) {
            this.name = name;
            this.exactlyOnce = exactlyOnce;
            this.seed = seed;
            this.generator = new EventGenerator(seed);
            this.topic = name + "_src";
            this.table = name + "_dst";
        }

        String group() {
            return "connect-" + name;
        }

        List<TopicPartition> partitions() {
            List<TopicPartition> out = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                out.add(new TopicPartition(topic, p));
            }
            return out;
        }

        void create() {
            h.clickhouse.exec(exactlyOnce ? EventsTable.createDedupSql(h.db, table) : EventsTable.createSql(h.db, table));
            h.stack.kafka().createTopic(topic, PARTITIONS);
            Map<String, String> o = SinkHarness.overrides(topic, 2);
            o.put("consumer.override.partition.assignment.strategy", CooperativeStickyAssignor.class.getName());
            o.put("transforms", "route");
            o.put("transforms.route.type", "org.apache.kafka.connect.transforms.RegexRouter");
            o.put("transforms.route.regex", "(.*)_src");
            o.put("transforms.route.replacement", "$1_dst");
            // Blocks sealed by time every 3 s: revocations and commits meet open blocks.
            o.put("flush.interval.ms", "3000");
            o.put("flush.max.rows", "100000");
            h.createConnector(name, exactlyOnce ? "clickhouse-sink-exactly-once.json" : "clickhouse-sink.json", o);
        }
    }

    /**
     * The incremental assignments a group's consumers logged (Kafka's ConsumerCoordinator writes "Updating assignment
     * with" and the assigned, owned, added and revoked partitions only under the COOPERATIVE protocol), and how many
     * revoked some partitions of a consumer that kept others.
     */
    private record Assignments(int updates, int partialRevocations, String example) {
        private static final String LIST = "\\s*\\[([^\\]]*)\\]\\s*";

        static Assignments read(List<Path> logs, String group) throws Exception {
            Pattern update = Pattern.compile("groupId=" + Pattern.quote(group) + "\\] Updating assignment with\\s*"
                    + "Assigned partitions:" + LIST + "Current owned partitions:" + LIST
                    + "Added partitions \\(assigned - owned\\):" + LIST + "Revoked partitions \\(owned - assigned\\):" + LIST);
            int updates = 0;
            int partial = 0;
            String example = "none";
            for (Path log : logs) {
                if (!Files.exists(log)) {
                    continue;
                }
                Matcher m = update.matcher(new String(Files.readAllBytes(log), StandardCharsets.UTF_8));
                while (m.find()) {
                    updates++;
                    if (!m.group(1).isBlank() && !m.group(4).isBlank()) {
                        partial++;
                        example = "kept [" + m.group(1) + "], revoked [" + m.group(4) + "]";
                    }
                }
            }
            return new Assignments(updates, partial, example);
        }
    }
}
