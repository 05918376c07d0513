package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ClickHouseServer;
import io.chsink.it.stack.RowWatcher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bounded exactly-once state (docs/exactly-once.md, "Bounded state"), through the packaged plugin in the shared
 * worker, on both state stores: a KeeperMap (a ClickHouse of its own on a ZooKeeper) and the shared server's
 * ReplacingMergeTree.
 * <ul>
 *   <li>Many small blocks and no rebalance: the state rows of each partition, sampled while the blocks land, stay
 *       within the bound the docs give, while the blocks made are many times that.
 *   <li>The consumer group's offsets moved back behind the connector's back (what a failed offset commit leaves):
 *       the records below the handled marks are redelivered and dropped after the anchor records are found, those
 *       above them rebuilt from their recorded blocks; every event is in the table once.
 *   <li>The topic deleted and re-created under the same name with other records: the marks are found stale, the
 *       earlier topic's blocks deleted, and every record of the new topic lands.
 * </ul>
 */
class ExactlyOnceStateBoundTest {
    private static final String EXAMPLE = "clickhouse-sink-exactly-once.json";
    private static final String STATE = "chsink_exactly_once_state";
    /** HandledOffsets.PRUNE_AFTER_BLOCKS: a partition with this many blocks below its mark is pruned. */
    private static final int PRUNE_AFTER = 64;
    /** Blocks a partition records between two offset commits here (one insert per table in flight, commits after each). */
    private static final int BETWEEN_COMMITS = 16;
    private static KeeperClickHouse stand;
    private static ClickHouseServer keeper;

    @BeforeAll
    static void start() {
        stand = KeeperClickHouse.start("state-bound", "needs a local ClickHouse with a Keeper");
        keeper = stand.clickhouse;
    }

    @AfterAll
    static void stop() {
        KeeperClickHouse.stopQuietly(stand, "ExactlyOnceStateBoundTest");
    }

    @Test
    void keeperMapStateStaysBoundedAndMarksHoldWhenOffsetsGoBackOrTheTopicIsRecreated() throws Exception {
        SinkHarness h = new SinkHarness(keeper);
        String topic = SinkHarness.unique("bound_km");
        String connector = SinkHarness.unique("bound_km_sink");
        long rows = 12_000;
        Map<String, String> o = boundedRun(h, topic, connector, rows, 71, "KeeperMap");
        try {
            offsetsMovedBack(h, topic, connector, rows, 71);
            topicRecreated(h, topic, connector, o);
        } finally {
            h.deleteQuietly(connector);
        }
    }

    @Test
    void replacingMergeTreeStateStaysBounded() throws Exception {
        SinkHarness h = new SinkHarness();
        String topic = SinkHarness.unique("bound_rmt");
        String connector = SinkHarness.unique("bound_rmt_sink");
        try {
            boundedRun(h, topic, connector, 10_000, 72, "ReplacingMergeTree");
        } finally {
            h.deleteQuietly(connector);
        }
    }

    /**
     * {@code rows} events over 2 partitions in blocks of at most 20 rows; samples the state rows per partition until
     * every offset is committed. Returns the connector's overrides.
     */
    private Map<String, String> boundedRun(SinkHarness h, String topic, String connector, long rows, long seed,
            String engine) throws Exception {
        long t0 = System.nanoTime();
        h.clickhouse.exec(EventsTable.createDedupSql(h.db, topic));
        h.stack.kafka().createTopic(topic, 2);
        Set<TopicPartition> partitions = Set.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
        int maxRows = 20;
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("flush.max.rows", Integer.toString(maxRows));
        FaultInjector offsets = new FaultInjector(h, connector, 1, List.of(topic), partitions, STATE, seed,
                Duration.ofSeconds(5));
        new EventProducer(h.stack.kafka().bootstrapServers()).produce(topic, 2, new EventGenerator(seed), rows, true,
                null);
        h.createConnector(connector, EXAMPLE, o);
        Map<Integer, Long> most = new TreeMap<>();
        AtomicBoolean done = new AtomicBoolean();
        int[] samples = {0};
        CompletableFuture<Void> sampler = CompletableFuture.runAsync(() -> {
            while (!done.get()) {
                try {
                    stateRows(h, connector, topic).forEach((p, n) -> most.merge(p, n, Math::max));
                    samples[0]++;
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    // the state table is not created yet
                }
            }
        });
        try {
            h.awaitRows(topic, rows, connector);
            offsets.awaitCommittedToEnd(Duration.ofMinutes(2));
        } finally {
            done.set(true);
            sampler.get(10, TimeUnit.SECONDS);
        }
        assertEquals(engine, h.ch().scalar("SELECT engine FROM system.tables WHERE database = 'default' AND name = '"
                + STATE + "'").trim());
        assertEquals(rows, h.scalar("SELECT count() FROM `" + topic + "`"));
        assertEquals(rows, h.scalar("SELECT uniqExact(*) FROM `" + topic + "`"));
        long blocksPerPartition = rows / 2 / maxRows; // at least: blocks hold at most flush.max.rows rows
        int bound = PRUNE_AFTER + BETWEEN_COMMITS + 1; // + the mark row (no epoch marker: offsets never reset)
        Map<Integer, Long> end = stateRows(h, connector, topic);
        System.out.printf("ExactlyOnceStateBoundTest (%s): %d rows in blocks of at most %d rows, >= %d blocks per "
                + "partition; state rows per partition: most %s over %d samples, %s at the end (bound %d); marks %s; "
                + "%.1f s%n", engine, rows, maxRows, blocksPerPartition, most, samples[0], end, bound,
                marks(h, connector, topic), (System.nanoTime() - t0) / 1e9);
        assertEquals(Set.of(0, 1), most.keySet(), "both partitions sampled: " + most);
        assertTrue(samples[0] >= 20, samples[0] + " samples");
        most.forEach((p, n) -> assertTrue(n <= bound, "partition " + p + ": " + n + " state rows > " + bound));
        assertTrue(blocksPerPartition > 3L * bound, "the run makes many times the bound in blocks");
        // Marks are written when a prune is due: each is within the bound's blocks of the partition's end.
        Map<Integer, Long> m = marks(h, connector, topic);
        assertEquals(Set.of(0, 1), m.keySet(), "both partitions have a mark: " + m);
        m.forEach((p, w) -> assertTrue(w <= rows / 2 && rows / 2 - w <= (long) bound * maxRows,
                "partition " + p + ": mark " + w + " of " + rows / 2));
        return o;
    }

    /** The group's offsets moved back to 7 and 13 while the connector is stopped; then 1,000 events more. */
    private void offsetsMovedBack(SinkHarness h, String topic, String connector, long rows, long seed)
            throws Exception {
        long t0 = System.nanoTime();
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        h.rest().stopConnector(connector, Duration.ofSeconds(60));
        Admin admin = h.stack.kafka().admin();
        String group = "connect-" + connector;
        admin.alterConsumerGroupOffsets(group, Map.of(p0, new OffsetAndMetadata(7), p1, new OffsetAndMetadata(13)))
                .all().get(30, TimeUnit.SECONDS);
        Map<TopicPartition, OffsetAndMetadata> back = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        assertEquals(7, back.get(p0).offset(), "the group's offsets are back");
        assertEquals(13, back.get(p1).offset());
        Map<Integer, Long> marks = marks(h, connector, topic);
        Path log = h.stack.connect().logFile();
        long mark = Files.size(log);
        h.rest().resumeConnector(connector);
        EventGenerator more = new EventGenerator(seed);
        for (long i = 0; i < rows; i++) {
            more.next(); // the events after the first run's
        }
        long extra = 1_000;
        new EventProducer(h.stack.kafka().bootstrapServers()).produce(topic, 2, more, extra, true, null);
        h.awaitRows(topic, rows + extra, connector);
        new FaultInjector(h, connector, 1, List.of(topic), Set.of(p0, p1), STATE, seed, Duration.ofSeconds(5))
                .awaitCommittedToEnd(Duration.ofMinutes(2));
        Thread.sleep(2_000); // a duplicate would have landed by now
        List<String> lines = WorkerLog.taskLines(log, mark, connector);
        System.out.printf("ExactlyOnceStateBoundTest (offsets moved back to 7 and 13): %d rows; %s; %s; %.1f s%n",
                h.scalar("SELECT count() FROM `" + topic + "`"),
                lines.stream().filter(l -> l.contains("were written before")).toList(),
                lines.stream().filter(l -> l.contains("are rebuilt before new ones")).toList(),
                (System.nanoTime() - t0) / 1e9);
        for (TopicPartition tp : List.of(p0, p1)) {
            long from = tp.partition() == 0 ? 7 : 13;
            long w = marks.get(tp.partition());
            assertTrue(lines.stream().anyMatch(l -> l.contains(tp + ": records from offset " + from + " to "
                    + (w - 1) + " were written before (handled mark " + w + ", anchor record ")),
                    tp + ": the redelivered records below the mark were dropped after the anchor was found: " + lines);
        }
        assertTrue(lines.stream().anyMatch(l -> l.contains("Seeking {") && l.contains("to check the handled marks")),
                "the task sought to the anchors: " + lines);
        assertEquals(rows + extra, h.scalar("SELECT count() FROM `" + topic + "`"), "no record twice");
        assertEquals(rows + extra, h.scalar("SELECT uniqExact(*) FROM `" + topic + "`"));
        h.assertDistinctRowsAreTheDataset(topic, seed, rows + extra);
    }

    /** Stopped, the topic deleted and created again with 14,000 other events: all of them land. */
    private void topicRecreated(SinkHarness h, String topic, String connector, Map<String, String> o)
            throws Exception {
        long t0 = System.nanoTime();
        h.rest().stopConnector(connector, Duration.ofSeconds(60));
        h.stack.kafka().deleteTopic(topic);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                h.stack.kafka().createTopic(topic, 2); // the deletion completes in the background
                break;
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(500);
            }
        }
        Map<TopicPartition, OffsetAndMetadata> left = h.stack.kafka().admin().listConsumerGroupOffsets("connect-"
                + connector).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        left.values().removeIf(v -> v == null);
        assertEquals(Map.of(), left, "the deleted topic's committed offsets went with it");
        h.clickhouse.exec("TRUNCATE TABLE `" + topic + "`");
        h.clickhouse.exec("DROP TABLE `" + topic + "_distinct`"); // the check of the first life's rows
        long seed = 73;
        long rows = 14_000; // 7,000 per partition: past the anchors (near 6,500), with other timestamps
        new EventProducer(h.stack.kafka().bootstrapServers()).produce(topic, 2, new EventGenerator(seed), rows, true,
                null);
        Path log = h.stack.connect().logFile();
        long mark = Files.size(log);
        Map<String, String> larger = new HashMap<>(o);
        larger.put("flush.max.rows", "2000");
        h.createConnector(connector, EXAMPLE, larger);
        h.rest().resumeConnector(connector);
        h.awaitRows(topic, rows, connector);
        Set<TopicPartition> partitions = Set.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
        new FaultInjector(h, connector, 1, List.of(topic), partitions, STATE, seed, Duration.ofSeconds(5))
                .awaitCommittedToEnd(Duration.ofMinutes(2));
        List<String> lines = WorkerLog.taskLines(log, mark, connector);
        List<String> ignored = lines.stream().filter(l -> l.contains(" is ignored: ")).toList();
        System.out.printf("ExactlyOnceStateBoundTest (topic re-created): %d rows; %s; state rows %s; %.1f s%n",
                h.scalar("SELECT count() FROM `" + topic + "`"), ignored, stateRows(h, connector, topic),
                (System.nanoTime() - t0) / 1e9);
        for (TopicPartition tp : partitions) {
            assertTrue(ignored.stream().anyMatch(l -> l.contains(tp + ": the handled mark ")
                    && l.contains("has timestamp")), tp + ": the mark was found stale: " + lines);
        }
        assertEquals(rows, h.scalar("SELECT count() FROM `" + topic + "`"), "every record of the new topic");
        assertEquals(rows, h.scalar("SELECT uniqExact(*) FROM `" + topic + "`"));
        h.assertDistinctRowsAreTheDataset(topic, seed, rows);
    }

    /** Rows of the state table per partition of the topic (blocks and marks). */
    private static Map<Integer, Long> stateRows(SinkHarness h, String connector, String topic) {
        return perPartition(h, "count()", connector, topic, "1");
    }

    /** The handled mark of each partition of the topic. */
    private static Map<Integer, Long> marks(SinkHarness h, String connector, String topic) {
        return perPartition(h, "max(last_offset)", connector, topic, "first_offset = -2");
    }

    private static Map<Integer, Long> perPartition(SinkHarness h, String what, String connector, String topic,
            String where) {
        Map<Integer, Long> out = new TreeMap<>();
        String engine = h.ch().scalar("SELECT engine FROM system.tables WHERE database = 'default' AND name = '"
                + STATE + "'").trim();
        for (String line : h.ch().query("SELECT partition, " + what + " FROM `" + STATE + "`"
                + (engine.equals("KeeperMap") ? "" : " FINAL") + " WHERE connector = '" + connector + "' AND topic = '"
                + topic + "' AND " + where + " GROUP BY partition FORMAT TSV").split("\n")) {
            if (!line.isBlank()) {
                String[] f = line.split("\t");
                out.put(Integer.parseInt(f[0]), Long.parseLong(f[1]));
            }
        }
        return out;
    }
}
