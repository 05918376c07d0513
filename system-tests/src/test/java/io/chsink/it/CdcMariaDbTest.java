package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.chsink.it.cdc.BinlogWorkload;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.stack.ConnectRest;
import io.chsink.it.stack.MariaDbServer;
import io.chsink.it.stack.Stack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * MariaDB 10.11 (Debian's package; log_bin, binlog_format=ROW, binlog_row_image=FULL) → Debezium 3.6.1's MySQL
 * connector → Kafka → cdc.mode=debezium → ClickHouse ReplacingMergeTree(_version, _is_deleted). Three tables (one
 * with a composite key) are loaded and snapshotted, then a seeded random stream of changes runs (inserts, updates,
 * deletes, primary-key updates, re-inserts, multi-row UPDATEs: several rows in one binlog event) while the binlog is
 * rotated twice (FLUSH BINARY LOGS), so that the versions of one row cross binlog files. ClickHouse FINAL must equal
 * MariaDB row for row after the snapshot and at the end, under both delivery guarantees, with no event refused (the
 * sink runs with errors.tolerance=none). The versions in ClickHouse must come from three binlog files; the events'
 * source blocks are read back from Kafka and checked for what the version rule uses (file, pos, row).
 * Seeds: -Dchsink.cdc.seed.
 */
class CdcMariaDbTest {
    private static final long SEED = Long.getLong("chsink.cdc.seed", 20261202L);
    private static final int CHANGES = Integer.getInteger("chsink.cdc.changes", 4_000);
    private static final int CHANGES_PER_SECOND = 800;
    /** 64-bit versions: binlog file index << 44 | pos << 12 | row (connector's ChangeVersion, epoch 0). */
    private static final int FILE_SHIFT = 44;
    private static final AtomicInteger SERVER_IDS = new AtomicInteger(5400);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The version string the streaming tests' MariaDB reports: see {@link MariaDbServer#start(Path, String)}. */
    static final String VERSION_AS_MYSQL_55 = "5.5.5-10.11-MariaDB-as-5.5.5";
    private static MariaDbServer mariaAs55;

    @AfterAll
    static void stopMariaAs55() {
        if (mariaAs55 != null) {
            mariaAs55.close();
        }
    }

    private static synchronized MariaDbServer mariaAs55() {
        if (mariaAs55 == null) {
            mariaAs55 = MariaDbServer.start(Stack.workDir("mariadb-as-5.5.5"), VERSION_AS_MYSQL_55);
        }
        return mariaAs55;
    }

    /**
     * Debezium 3.6.1's MySQL connector, pointed at MariaDB 10.11 as it is, refuses it while validating the
     * configuration: it tries SHOW BINARY LOG STATUS (MySQL 8.4's statement; MariaDB 10.11 has no such syntax), then
     * reads VERSION() = "10.11.x-MariaDB-..." as MySQL 10.11, a version that "should support" it, and throws. Connect
     * 4.1.1 answers the PUT with HTTP 500 (a NullPointerException of its own over the failed validation); the reason
     * is in the worker log. When a later Debezium accepts MariaDB here, this test fails and the version override of
     * the streaming tests can go.
     */
    @Test
    void debeziumMySqlConnectorRefusesMariaDb1011AsItIs() throws Exception {
        SinkHarness h = new SinkHarness();
        assertTrue(h.stack.connect().hasDebeziumMySql(), "the worker lists Debezium's MySQL connector");
        MariaDbServer maria = h.stack.mariadb();
        String version = maria.version();
        assertTrue(version.startsWith("10.11.") && version.contains("MariaDB"), version);
        String prefix = SinkHarness.unique("maria_refused").toLowerCase(java.util.Locale.ROOT);
        BinlogWorkload w = new BinlogWorkload(maria, prefix, SEED);
        w.createSourceTables();
        Map<String, String> config = w.debeziumConfig(prefix, h.stack.kafka().bootstrapServers(),
                SERVER_IDS.incrementAndGet(), 1);
        long logFrom = Files.size(h.stack.connect().logFile());
        ConnectRest.RestException refused = assertThrows(ConnectRest.RestException.class,
                () -> h.rest().putConnectorConfig(prefix + "_source", config));
        String expected = "MySQL version " + version + " should support SHOW BINARY LOG STATUS but it failed";
        String log = newLogText(h, logFrom);
        System.out.println("PUT of the connector: HTTP " + refused.status() + " " + refused.body());
        log.lines().filter(l -> l.contains("SHOW BINARY LOG STATUS") || l.contains("LOG STATUS' at line")
                || l.contains("Uncaught exception in REST call")).forEach(l -> System.out.println("worker log: " + l));
        assertEquals(500, refused.status(), refused.body());
        assertTrue(log.contains(expected), "the worker log says: " + expected);
        assertTrue(log.contains("You have an error in your SQL syntax; check the manual that corresponds to your "
                + "MariaDB server version for the right syntax to use near 'LOG STATUS'"), "MariaDB's own answer");
        assertTrue(!h.rest().connectors().contains(prefix + "_source"), "no connector was created");
    }

    private static String newLogText(SinkHarness h, long from) throws java.io.IOException {
        byte[] all = Files.readAllBytes(h.stack.connect().logFile());
        return new String(all, (int) from, all.length - (int) from, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void atLeastOnceSnapshotThenStreamAcrossBinlogRotations() throws Exception {
        run("maria_alo", SEED, 600, Map.of());
    }

    @Test
    void exactlyOnceSnapshotThenStreamAcrossBinlogRotations() throws Exception {
        run("maria_eo", SEED + 1, 300, Map.of("delivery.guarantee", "exactly_once"));
    }

    /** One test's tables, topics and connectors on the version-overridden MariaDB, snapshot replicated. */
    private record Pipeline(SinkHarness h, MariaDbServer maria, BinlogWorkload w, String prefix, String snapshotFile,
            List<String> connectors, Supplier<String> failures) {
        void deleteConnectors() {
            for (String c : connectors) {
                h.deleteQuietly(c);
            }
        }
    }

    /** Tables, snapshot rows, the Debezium source and the sink; returns once ClickHouse FINAL equals MariaDB. */
    private static Pipeline start(String name, long seed, int snapshotRows, Map<String, String> sinkOverrides)
            throws Exception {
        SinkHarness h = new SinkHarness();
        assertTrue(h.stack.connect().hasDebeziumMySql(), "the worker lists Debezium's MySQL connector "
                + "(plugin.path from chsink.debezium.plugin.path)");
        MariaDbServer maria = mariaAs55();
        String prefix = SinkHarness.unique(name).toLowerCase(java.util.Locale.ROOT);
        BinlogWorkload w = new BinlogWorkload(maria, prefix, seed);
        List<String> connectors = new ArrayList<>();
        System.out.println("CdcMariaDbTest " + name + ": " + maria.version() + ", seed " + seed + ", tables " + prefix
                + "_*");
        Pipeline p = new Pipeline(h, maria, w, prefix, null, connectors, failures(h, connectors));
        try {
            w.createSourceTables();
            w.createTargetTables(h.ch(), h.db, sinkOverrides.containsKey("delivery.guarantee"));
            for (String t : w.topics(prefix)) {
                h.stack.kafka().createTopic(t, 3);
            }
            w.seed(snapshotRows);
            String snapshotFile = maria.currentBinlog();

            String source = prefix + "_source";
            h.rest().putConnectorConfig(source, w.debeziumConfig(prefix, h.stack.kafka().bootstrapServers(),
                    SERVER_IDS.incrementAndGet(), 3));
            connectors.add(source);
            h.rest().waitForTasksRunning(source, 1, Duration.ofMinutes(2));

            Map<String, String> o = new HashMap<>();
            o.put("clickhouse.database", h.db);
            o.put("topics", String.join(",", w.topics(prefix)));
            o.put("topic.to.table.map", w.topicToTableMap(prefix, h.db));
            o.put("tasks.max", "2");
            o.putAll(sinkOverrides);
            String sink = prefix + "_sink";
            h.createConnector(sink, "clickhouse-sink-cdc.json", o);
            connectors.add(sink);
            h.rest().waitForTasksRunning(sink, 2, Duration.ofMinutes(2));
            assertConverges(w, h, p.failures(), name + " after the snapshot of " + snapshotRows + " rows per table");
            return new Pipeline(h, maria, w, prefix, snapshotFile, connectors, p.failures());
        } catch (Exception | AssertionError e) {
            p.deleteConnectors();
            throw e;
        }
    }

    private void run(String name, long seed, int snapshotRows, Map<String, String> sinkOverrides) throws Exception {
        Pipeline p = start(name, seed, snapshotRows, sinkOverrides);
        SinkHarness h = p.h();
        MariaDbServer maria = p.maria();
        BinlogWorkload w = p.w();
        try {
            CompletableFuture<BinlogWorkload.Stats> stream = CompletableFuture.supplyAsync(
                    () -> w.run(CHANGES, 8, CHANGES_PER_SECOND));
            Set<String> files = new LinkedHashSet<>(List.of(p.snapshotFile()));
            for (int third = 1; third <= 2; third++) {
                while (w.changesDone() < (long) CHANGES * third / 3 && !stream.isDone()) {
                    Thread.sleep(20);
                }
                files.add(maria.rotateBinlog());
            }
            BinlogWorkload.Stats stats = stream.get();
            System.out.println(name + ": " + stats + "; binlog files " + files);
            assertEquals(CHANGES, stats.total());
            assertEquals(3, files.size(), "two rotations during the stream: " + files);
            assertTrue(stats.deletes > 0 && stats.keyUpdates > 0 && stats.reinserts > 0 && stats.updates > 0
                    && stats.groupUpdatedRows > stats.groupUpdates, stats.toString());
            // A little more after the last rotation, so that the newest file carries changes too.
            BinlogWorkload.Stats tail = w.run(200, 8, 0);
            assertConverges(w, h, p.failures(), name + " after " + (CHANGES + tail.total()) + " changes over " + files);

            // The versions of the current rows and of the replaced ones come from every binlog file in turn.
            long lastIndex = fileIndex(maria.currentBinlog());
            for (BinlogWorkload.Table t : w.tables()) {
                String q = "FROM `" + h.db + "`.`" + t.name + "`";
                long distinct = h.scalar("SELECT uniqExact(bitShiftRight(_version, " + FILE_SHIFT + ")) " + q);
                long max = h.scalar("SELECT max(bitShiftRight(_version, " + FILE_SHIFT + ")) " + q);
                long deleted = h.scalar("SELECT count() " + q + " WHERE _is_deleted = 1");
                System.out.println(t.name + ": versions from " + distinct + " binlog files, newest " + max + "; "
                        + deleted + " delete rows");
                assertEquals(3, distinct, t.name + ": versions from the snapshot's file and the two after it");
                assertEquals(lastIndex, max, t.name + ": the newest versions come from the newest binlog file");
                assertTrue(deleted > 0, t.name + " holds delete rows (_is_deleted = 1) that FINAL leaves out");
            }
            SourceBlocks blocks = readSourceBlocks(h, w.topics(p.prefix()));
            blocks.check(p.snapshotFile(), files);
        } finally {
            p.deleteConnectors();
        }
    }

    /**
     * MariaDB's binlog compression: 10.11 has no binlog_transaction_compression (MySQL's zstd transaction payloads);
     * its log_bin_compress zlib-compresses single events instead (here every event of 10 bytes or more), which it
     * logs as Query_compressed and Write/Update/Delete_rows_compressed_v1 events. Debezium 3.6.1's MySQL connector
     * reads past those rows events and emits nothing for them: no record, no warning, its task RUNNING and its offset
     * moving on. A marker row written after compression is off again arrives, the changes before it never do. This
     * test asserts that loss (a source-side one: the sink never sees the changes); it fails once a Debezium release
     * decodes compressed events, and then the changes must arrive instead.
     */
    @Test
    void debeziumSkipsCompressedRowsEventsSilently() throws Exception {
        Pipeline p = start("maria_zip", SEED + 2, 100, Map.of());
        SinkHarness h = p.h();
        MariaDbServer maria = p.maria();
        BinlogWorkload w = p.w();
        try {
            maria.rootExec("SET GLOBAL log_bin_compress_min_len = 10", "SET GLOBAL log_bin_compress = ON");
            BinlogWorkload.Stats stats;
            try {
                stats = w.run(300, 8, 0);
            } finally {
                maria.rootExec("SET GLOBAL log_bin_compress = OFF");
            }
            List<String> types = maria.binlogEventTypes(maria.currentBinlog());
            System.out.println("maria_zip: " + stats + " with log_bin_compress=ON; event types of "
                    + maria.currentBinlog() + ": " + types);
            assertTrue(types.containsAll(List.of("Write_rows_compressed_v1", "Update_rows_compressed_v1",
                    "Delete_rows_compressed_v1")), "MariaDB logged compressed rows events: " + types);

            String orders = w.tables().get(0).name;
            long marker = 999_999_999L;
            maria.exec("INSERT INTO `" + orders + "` (`id`, `customer`, `amount`, `status`, `created`) VALUES ("
                    + marker + ", 1, 1.00, 'marker', '2020-01-01 00:00:00')");
            String inCh = "SELECT count() FROM `" + h.db + "`.`" + orders + "` FINAL WHERE `id` = " + marker;
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (h.scalar(inCh) == 0) {
                String f = p.failures().get();
                assertTrue(f == null, "a connector failed: " + f);
                assertTrue(System.nanoTime() < deadline, "the marker row written after the compressed events arrives");
                Thread.sleep(250);
            }
            SourceBlocks blocks = readSourceBlocks(h, w.topics(p.prefix()));
            System.out.println("maria_zip: the source task is " + h.rest().connectorStatus(p.connectors().get(0)));
            assertEquals(1, blocks.streamed, "of the " + stats.total() + " compressed changes and the marker, only the"
                    + " marker reached Kafka");
            List<BinlogWorkload.TableComparison> r = w.compare(h.ch(), h.db);
            r.forEach(c -> System.out.println("maria_zip: " + c.table() + ": MariaDB " + c.sourceRows()
                    + " rows, ClickHouse FINAL " + c.targetRows() + " rows, " + c.differing() + " keys differ"));
            assertEquals(101, r.get(0).targetRows(), "ClickHouse: the snapshot's 100 orders and the marker");
            assertEquals(100, r.get(1).targetRows(), "ClickHouse: the snapshot's 100 lines, nothing since");
            assertTrue(r.stream().allMatch(c -> c.differing() > 0), "every table lost the compressed changes");
        } finally {
            p.deleteConnectors();
        }
    }

    /** What the events of some topics carry in their source blocks. */
    private static final class SourceBlocks {
        long snapshot;
        long streamed;
        long multiRow;
        long tombstones;
        final Set<Long> snapshotPositions = new LinkedHashSet<>();
        final Set<String> snapshotFiles = new LinkedHashSet<>();
        final Set<String> files = new LinkedHashSet<>();
        final Map<String, String> examples = new java.util.TreeMap<>();
        final List<String> problems = new ArrayList<>();
        /** Topic, key, file, pos and row of each streamed event: what the version is made of, per row. */
        final Set<String> streamedPositions = new java.util.HashSet<>();

        void add(String topic, String key, JsonNode payload) {
            JsonNode src = payload.path("source");
            String op = payload.path("op").asText();
            String snap = src.path("snapshot").asText();
            files.add(src.path("file").asText());
            if (!src.path("connector").asText().equals("mysql") || src.path("pos").asLong() <= 0) {
                problems.add("connector/pos: " + src);
            }
            if (op.equals("r")) {
                snapshot++;
                snapshotFiles.add(src.path("file").asText());
                snapshotPositions.add(src.path("pos").asLong());
                if (src.path("row").asLong() != 0 || snap.equals("false")) {
                    problems.add("snapshot row: " + src);
                }
                examples.putIfAbsent("snapshot " + snap, src.toString());
            } else {
                streamed++;
                streamedPositions.add(topic + "\t" + key + "\t" + src.path("file").asText() + "\t"
                        + src.path("pos").asLong() + "\t" + src.path("row").asLong());
                // A streamed event leaves source.snapshot unset: null in the topic with the example's
                // value.converter.replace.null.with.default=false (JsonConverter would write the field's default "false").
                boolean notSnapshot = snap.equals("false") || src.path("snapshot").isNull();
                if (!notSnapshot || src.path("server_id").asInt() != MariaDbServer.SERVER_ID) {
                    problems.add("streamed row: " + src);
                }
                if (src.path("row").asLong() > 0) {
                    multiRow++;
                    examples.putIfAbsent("streamed, row > 0", src.toString());
                }
                examples.putIfAbsent("streamed " + op, src.toString());
            }
        }

        /**
         * Snapshot rows carry the binlog position the snapshot began at (file, pos; row 0), streamed rows their own
         * event's file and pos and server_id 1, and a row index above 0 in the events of multi-row statements.
         */
        void check(String snapshotFile, Set<String> binlogFiles) {
            examples.forEach((k, v) -> System.out.println("source block, " + k + ": " + v));
            System.out.println("events: " + snapshot + " snapshot, " + streamed + " streamed (" + multiRow
                    + " with row > 0), " + tombstones + " tombstones; snapshot positions " + snapshotPositions
                    + "; files " + files);
            assertEquals(List.of(), problems.stream().limit(5).toList(), "source blocks");
            assertTrue(snapshot > 0 && streamed > 0 && multiRow > 0, "snapshot, streamed and multi-row events");
            assertEquals(Set.of(snapshotFile), snapshotFiles, "snapshot rows: the file the snapshot began in");
            assertEquals(1, snapshotPositions.size(), "every snapshot row carries the one position it began at");
            assertEquals(binlogFiles, files, "the events come from every binlog file");
            // pos is the event's own position, not its transaction's: two changes of one row (in one transaction
            // or not) never share file, pos and row, so their versions differ.
            assertEquals(streamed, streamedPositions.size(), "streamed changes of one row with the same file/pos/row");
        }
    }

    /** Reads every event of the topics back, from the beginning to their end offsets. */
    private static SourceBlocks readSourceBlocks(SinkHarness h, List<String> topics) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, h.stack.kafka().bootstrapServers());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        SourceBlocks blocks = new SourceBlocks();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> parts = new ArrayList<>();
            for (String t : topics) {
                consumer.partitionsFor(t).forEach(i -> parts.add(new TopicPartition(t, i.partition())));
            }
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.value() == null) {
                        blocks.tombstones++;
                    } else {
                        blocks.add(r.topic(), r.key(), JSON.readTree(r.value()).path("payload"));
                    }
                }
            }
            assertTrue(parts.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp)), "read every event back");
        }
        return blocks;
    }

    private static long fileIndex(String file) {
        return Long.parseLong(file.substring(file.lastIndexOf('.') + 1));
    }

    private static Supplier<String> failures(SinkHarness h, List<String> connectors) {
        List<ConnectorFailure> probes = new ArrayList<>();
        for (String c : connectors) {
            probes.add(new ConnectorFailure(h.rest(), c));
        }
        return () -> probes.stream().map(ConnectorFailure::get).filter(f -> f != null).findFirst().orElse(null);
    }

    private static void assertConverges(BinlogWorkload w, SinkHarness h, Supplier<String> failures, String when)
            throws InterruptedException {
        List<BinlogWorkload.TableComparison> r = w.awaitEqual(h.ch(), h.db, Duration.ofMinutes(2), failures);
        StringBuilder all = new StringBuilder();
        for (BinlogWorkload.TableComparison c : r) {
            all.append("\n  ").append(c);
        }
        System.out.println(when + ":" + all);
        assertTrue(r.stream().allMatch(BinlogWorkload.TableComparison::equal), when
                + ": ClickHouse FINAL differs from MariaDB:" + all);
    }
}
