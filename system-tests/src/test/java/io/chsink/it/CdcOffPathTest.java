package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.chsink.it.cdc.OffPathTable;
import io.chsink.it.cdc.OffPathWorkload;
import io.chsink.it.kafka.ConnectorFailure;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The CDC paths off the main road (io.chsink.it.cdc.OffPathWorkload), on real PostgreSQL 15 and Debezium 3.6.1's
 * PostgreSQL connector (pgoutput), each compared row for row: ClickHouse's {@code SELECT ... FINAL} (live rows) must
 * equal PostgreSQL, column by column, for
 * (a) unchanged TOAST values (text, bytea, jsonb; REPLICA IDENTITY DEFAULT), compared by md5, also across primary-key
 * changes (the create of the new key takes them from the old key's delete, in another partition);
 * (b) explicit NULLs into columns with defaults (the source's JsonConverter with replace.null.with.default=false);
 * (c) NaN, Infinity and -Infinity in double precision and real;
 * (d) ALTER TABLE ADD COLUMN mid-stream of NOT NULL columns with defaults, with auto.evolve;
 * (e) a target ordered by (tenant_id, id) and partitioned by month while the source's key is id (REPLICA IDENTITY
 * DEFAULT and FULL), read with do_not_merge_across_partitions_select_final=1, and again after OPTIMIZE ... FINAL CLEANUP;
 * (f) ExtractNewRecordState at its defaults (a delete arrives as a tombstone only);
 * (g) auto.create whose first event is a delete.
 * One Debezium source (snapshot.mode=no_data) feeds two sets of sinks: at_least_once into one database, exactly_once
 * into another; the Connect worker running them all is SIGKILLed and restarted mid-stream. Every part of both
 * guarantees is checked and reported, each differing table with its first differing keys and columns, the sink's
 * failure or its dead-letter reasons. Seed: -Dchsink.cdc.seed.
 */
class CdcOffPathTest {
    private static final long SEED = Long.getLong("chsink.cdc.seed", 20261207L);
    private static final int CHANGES = Integer.getInteger("chsink.cdc.offpath.changes", 2400);
    /** About 30 s of stream: the kill waits for the source's first offset commit (offset.flush.interval.ms 10 s). */
    private static final int CHANGES_PER_SECOND = 80;
    private static final ObjectMapper JSON = JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();

    private final SinkHarness h = new SinkHarness();
    private final List<String> connectors = new ArrayList<>();
    /** Sink name to the tables it writes. */
    private final Map<String, List<OffPathTable>> sinks = new LinkedHashMap<>();

    @Test
    void offPathChangesConvergeUnderBothGuaranteesAcrossAWorkerKill() throws Exception {
        assertTrue(h.stack.connect().hasDebeziumPostgres(), "the worker lists Debezium's PostgreSQL connector");
        String prefix = SinkHarness.unique("cdc_off").toLowerCase(java.util.Locale.ROOT);
        System.out.println("CdcOffPathTest: seed " + SEED + ", tables " + prefix + "_*");
        long begin = System.nanoTime();
        OffPathWorkload w = new OffPathWorkload(h.stack.postgres(), prefix, SEED);
        String alo = prefix + "_alo";
        String eo = prefix + "_eo";
        List<Executable> checks = new ArrayList<>();
        try {
            w.createSourceTables();
            w.seedBeforeSource(80);
            for (String db : List.of(alo, eo)) {
                h.ch().exec("CREATE DATABASE `" + db + "`");
                for (OffPathTable t : w.tables()) {
                    String ddl = t.chCreate(db, db.equals(eo));
                    if (ddl != null) {
                        h.ch().exec(ddl);
                    }
                }
            }
            for (OffPathTable t : w.tables()) {
                // (g) in one partition: its delete is the first record the sink reads.
                h.stack.kafka().createTopic(w.topic(t), t == w.late ? 1 : 3);
            }
            String source = prefix + "_source";
            h.rest().putConnectorConfig(source, w.debeziumConfig());
            connectors.add(source);
            h.rest().waitForTasksRunning(source, 1, Duration.ofMinutes(2));
            long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (!w.slotExists()) {
                assertTrue(System.nanoTime() < deadline, "Debezium made no replication slot within a minute");
                Thread.sleep(200);
            }
            for (String db : List.of(alo, eo)) {
                startSinks(w, prefix, db, db.equals(eo));
            }

            w.fill(100, 150);
            CompletableFuture<Void> stream = CompletableFuture.runAsync(() -> w.run(CHANGES, CHANGES_PER_SECOND));
            long nextLook = 0;
            boolean sourceCommitted = false;
            while ((w.changesDone() < CHANGES / 3 || !sourceCommitted) && !stream.isDone()) {
                if (System.nanoTime() >= nextLook) {
                    sourceCommitted = h.rest().committedOffsetCount(source) > 0;
                    nextLook = System.nanoTime() + 500_000_000L;
                }
                Thread.sleep(20);
            }
            long atKill = w.changesDone();
            assertEquals(137, h.stack.connect().kill(), "SIGKILL of the worker");
            assertFalse(h.stack.connect().isRunning());
            Thread.sleep(1000);
            h.stack.connect().start();
            stream.get(5, TimeUnit.MINUTES);
            System.out.println("CdcOffPathTest: " + CHANGES + " changes, worker killed after " + atKill + "; by kind:");
            w.stats().forEach((k, v) -> System.out.println("  " + k + ": " + v));
            assertTrue(atKill < CHANGES, "the kill came while changes were made");

            // Once the sinks have caught up, every TOAST row changed since the restart is in a verified block, so in
            // its task's cache of inserted rows. One more update of the small columns of every TOAST row (each event
            // with the placeholder in every big column) then finds those rows cached: the cache is proven to answer
            // whatever the kill's timing made of the stream (after a restart the sinks often take the whole rest of
            // it as one backlog, where a key's second change finds its first still pending, not cached).
            awaitFinal(w, List.of(alo, eo));
            try (Connection pg = h.stack.postgres().connect(); java.sql.Statement st = pg.createStatement()) {
                int updated = st.executeUpdate("UPDATE " + w.toast.name + " SET small_n = small_n + 1");
                System.out.println("CdcOffPathTest: " + updated + " TOAST rows updated once more (small columns only)");
            }
            List<OffPathTable.Comparison> result = awaitFinal(w, List.of(alo, eo));
            List<OffPathTable.Comparison> all = new ArrayList<>(result);
            // The sinks read current rows (TOAST values, deletes of the month-partitioned tables) since the restart.
            for (String g : List.of("alo", "eo")) {
                String core = prefix + "_" + g + "_core";
                try (TaskMetrics m = TaskMetrics.attach(h.stack.connect().logFile().getParent(), core, 1)) {
                    long reads = m.sinkTask("CurrentRowReads");
                    long ms = m.sinkTask("CurrentRowReadMs");
                    long hits = m.sinkTask("CurrentRowCacheHits");
                    System.out.println("CdcOffPathTest: " + core + " read current rows " + reads + " times in " + ms
                            + " ms since the restart, and found " + hits + " in its cache of inserted rows");
                    // The restart emptied the cache: the first change of a key since reads the table; later ones of
                    // keys whose rows the task inserted since find them cached (FINAL above compares the values).
                    checks.add(() -> assertTrue(reads > 0, core + " read current rows from ClickHouse (JMX "
                            + "CurrentRowReads " + reads + ")"));
                    // The last update of every TOAST row came after its row's block was verified (above).
                    checks.add(() -> assertTrue(hits > 0, core + " found current rows in its cache of inserted rows "
                            + "(JMX CurrentRowCacheHits " + hits + ")"));
                }
            }
            try (Connection pg = h.stack.postgres().connect()) {
                for (String db : List.of(alo, eo)) {
                    for (OffPathTable t : List.of(w.partDefault, w.partFull)) {
                        System.out.println("CdcOffPathTest: (e) " + db + "." + t.name + " delete rows by (tenant_id, "
                                + "partition): " + h.ch().query("SELECT tenant_id, _partition_id, count() FROM `" + db
                                        + "`.`" + t.name + "` WHERE _is_deleted = 1 GROUP BY 1, 2 ORDER BY 1, 2 "
                                        + "LIMIT 8 FORMAT CSV").trim().replace("\n", "; "));
                        h.ch().exec("OPTIMIZE TABLE `" + db + "`.`" + t.name + "` FINAL CLEANUP");
                        all.add(t.compare(pg, h.ch(), db, " after OPTIMIZE TABLE ... FINAL CLEANUP"));
                    }
                }
            }
            Map<String, Map<String, String>> dlq = new HashMap<>();
            for (String db : List.of(alo, eo)) {
                dlq.put(db, deadLetters(db + "_dlq"));
            }
            System.out.println("CdcOffPathTest: results after " + (System.nanoTime() - begin) / 1_000_000_000 + " s:");
            for (OffPathTable.Comparison cmp : all) {
                String context = context(w, cmp, dlq.get(cmp.database));
                System.out.println("  " + cmp + context);
                checks.add(() -> assertTrue(cmp.equal(), cmp + context));
            }
            premises(w, alo, eo, checks);
        } finally {
            for (String c : connectors) {
                h.deleteQuietly(c);
            }
        }
        assertAll("CdcOffPathTest (seed " + SEED + ")", checks);
    }

    private void startSinks(OffPathWorkload w, String prefix, String db, boolean exactlyOnce) {
        String g = exactlyOnce ? "eo" : "alo";
        startSink(w, prefix + "_" + g + "_core", db, exactlyOnce, List.of(w.toast, w.defaults, w.floats, w.partDefault,
                w.partFull), Map.of());
        startSink(w, prefix + "_" + g + "_evolve", db, exactlyOnce, List.of(w.evolve), Map.of("auto.evolve", "true"));
        startSink(w, prefix + "_" + g + "_unwrap", db, exactlyOnce, List.of(w.unwrap), Map.of("transforms", "unwrap",
                "transforms.unwrap.type", "io.debezium.transforms.ExtractNewRecordState"));
        Map<String, String> create = new HashMap<>(Map.of("auto.create", "true"));
        if (exactlyOnce) {
            create.put("auto.create.settings", "non_replicated_deduplication_window=1000");
        }
        startSink(w, prefix + "_" + g + "_create", db, exactlyOnce, List.of(w.late), create);
    }

    private void startSink(OffPathWorkload w, String name, String db, boolean exactlyOnce, List<OffPathTable> tables,
            Map<String, String> extra) {
        Map<String, String> o = new HashMap<>();
        o.put("clickhouse.database", db);
        o.put("topics", tables.stream().map(w::topic).collect(Collectors.joining(",")));
        o.put("topic.to.table.map", tables.stream().map(t -> w.topic(t) + ":" + db + "." + t.name)
                .collect(Collectors.joining(",")));
        o.put("tasks.max", "1");
        o.put("errors.tolerance", "all"); // a bad record of one table must not stop the others
        o.put("errors.deadletterqueue.topic.name", db + "_dlq");
        o.put("errors.deadletterqueue.topic.replication.factor", "1");
        o.put("errors.deadletterqueue.context.headers.enable", "true");
        if (exactlyOnce) {
            o.put("delivery.guarantee", "exactly_once");
        }
        o.putAll(extra);
        h.createConnector(name, "clickhouse-sink-cdc.json", o);
        connectors.add(name);
        sinks.put(name, tables);
        h.rest().waitForTasksRunning(name, 1, Duration.ofMinutes(2));
    }

    /**
     * Compares every table of both databases until all are equal, or until the result is final: the topics' end
     * offsets stood still since the last round and every sink has committed them (or has failed). At most 4 minutes.
     */
    private List<OffPathTable.Comparison> awaitFinal(OffPathWorkload w, List<String> databases) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(4).toNanos();
        Map<TopicPartition, Long> lastEnd = null;
        while (true) {
            Map<TopicPartition, Long> end = endOffsets(w.tables().stream().map(w::topic).collect(Collectors.toList()));
            boolean settled = end.equals(lastEnd) && sinksCaughtUp(w, end);
            List<OffPathTable.Comparison> r = new ArrayList<>();
            try (Connection pg = h.stack.postgres().connect()) {
                for (String db : databases) {
                    for (OffPathTable t : w.tables()) {
                        r.add(t.compare(pg, h.ch(), db, ""));
                    }
                }
            }
            boolean equal = r.stream().allMatch(OffPathTable.Comparison::equal);
            if (equal || settled || System.nanoTime() > deadline) {
                System.out.println("CdcOffPathTest: comparison " + (equal ? "equal" : settled ? "final (sinks caught up)"
                        : "at the 4-minute deadline"));
                return r;
            }
            lastEnd = end;
            Thread.sleep(3000);
        }
    }

    private boolean sinksCaughtUp(OffPathWorkload w, Map<TopicPartition, Long> end) {
        for (Map.Entry<String, List<OffPathTable>> s : sinks.entrySet()) {
            if (new ConnectorFailure(h.rest(), s.getKey()).get() != null) {
                continue;
            }
            Map<TopicPartition, Long> committed;
            try {
                committed = h.rest().sinkOffsets(s.getKey());
            } catch (RuntimeException e) {
                return false;
            }
            for (OffPathTable t : s.getValue()) {
                for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
                    if (e.getKey().topic().equals(w.topic(t)) && e.getValue() > 0
                            && committed.getOrDefault(e.getKey(), -1L) < e.getValue()) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private Map<TopicPartition, Long> endOffsets(List<String> topics) throws Exception {
        Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
        var described = h.stack.kafka().admin().describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS);
        described.forEach((name, d) -> d.partitions().forEach(p -> ask.put(new TopicPartition(name, p.partition()),
                OffsetSpec.latest())));
        Map<TopicPartition, Long> out = new HashMap<>();
        h.stack.kafka().admin().listOffsets(ask).all().get(30, TimeUnit.SECONDS)
                .forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    /** What else a differing table's message should say: its sink's failure, its dead letters. */
    private String context(OffPathWorkload w, OffPathTable.Comparison cmp, Map<String, String> deadLetters) {
        if (cmp.equal()) {
            return "";
        }
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, List<OffPathTable>> s : sinks.entrySet()) {
            if (s.getValue().contains(cmp.table) && s.getKey().contains(cmp.database.endsWith("_eo") ? "_eo_" : "_alo_")) {
                String f = new ConnectorFailure(h.rest(), s.getKey()).get();
                if (f != null) {
                    b.append("\n      sink ").append(s.getKey()).append(" FAILED: ").append(SinkHarness.causeLine(f));
                }
            }
        }
        String dl = deadLetters.get(w.topic(cmp.table));
        if (dl != null) {
            b.append("\n      dead letters of ").append(w.topic(cmp.table)).append(": ").append(dl);
        }
        if (cmp.table == w.late) {
            b.append("\n      created: ").append(h.ch().scalar("SELECT create_table_query FROM system.tables WHERE "
                    + "database = '" + cmp.database + "' AND name = '" + cmp.table.name + "'").trim());
        }
        return b.toString();
    }

    /** Dead letters by source topic: how many, and the first reason. */
    private Map<String, String> deadLetters(String topic) {
        Map<String, String> out = new LinkedHashMap<>();
        Map<String, Integer> counts = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : readTopic(topic)) {
            Header t = r.headers().lastHeader("__connect.errors.topic");
            Header m = r.headers().lastHeader("__connect.errors.exception.message");
            String from = t == null ? "?" : new String(t.value(), StandardCharsets.UTF_8);
            counts.merge(from, 1, Integer::sum);
            if (!out.containsKey(from)) {
                String why = m == null ? "(no message)" : new String(m.value(), StandardCharsets.UTF_8);
                out.put(from, why.length() > 500 ? why.substring(0, 500) + "..." : why);
            }
        }
        out.replaceAll((k, v) -> counts.get(k) + " records, first: " + v);
        return out;
    }

    /**
     * The test's own premises, each of which could be false, and what Debezium sent (printed: input for the
     * connector's developers): placeholders for unchanged TOAST values, NULLs kept in the topic, the headers of a
     * primary-key update, tombstones for (f), a delete first for (g); and the table auto.create made.
     */
    private void premises(OffPathWorkload w, String alo, String eo, List<Executable> checks) {
        long toastBytes = w.toastBytes(w.toast);
        System.out.println("CdcOffPathTest: TOAST relation of " + w.toast.name + ": " + toastBytes + " bytes");
        checks.add(() -> assertTrue(toastBytes > 1_000_000, "part (a): the large values are stored out of line "
                + "(TOAST relation " + toastBytes + " bytes)"));

        String bytesPlaceholder = Base64.getEncoder().encodeToString(OffPathWorkload.PLACEHOLDER.getBytes(
                StandardCharsets.UTF_8));
        Map<String, Integer> toast = new LinkedHashMap<>();
        String example = null;
        for (ConsumerRecord<byte[], byte[]> r : readTopic(w.topic(w.toast))) {
            JsonNode v = parse(r.value());
            if (v != null && "c".equals(v.path("payload").path("op").asText())
                    && r.headers().lastHeader("__debezium.oldkey") != null
                    && v.path("payload").path("after").path("big_text").asText().equals(OffPathWorkload.PLACEHOLDER)) {
                toast.merge("primary-key changes' creates with the placeholder", 1, Integer::sum);
            }
            if (v == null || !"u".equals(v.path("payload").path("op").asText())) {
                continue;
            }
            JsonNode after = v.path("payload").path("after");
            toast.merge("updates", 1, Integer::sum);
            if (v.path("payload").path("before").isNull()) {
                toast.merge("updates without a before image", 1, Integer::sum);
            }
            // int[] and text[]: the placeholder's bytes as integers, and a one-element list of the placeholder.
            JsonNode ints = after.path("big_ints");
            if (ints.isArray() && ints.size() == OffPathWorkload.PLACEHOLDER.length()
                    && ints.get(0).asInt() == OffPathWorkload.PLACEHOLDER.charAt(0)) {
                toast.merge("big_ints = the placeholder's bytes as ints", 1, Integer::sum);
            }
            JsonNode words = after.path("big_words");
            if (words.isArray() && words.size() == 1 && words.get(0).asText().equals(OffPathWorkload.PLACEHOLDER)) {
                toast.merge("big_words = [the placeholder]", 1, Integer::sum);
            }
            for (String f : List.of("big_text", "big_bytes", "big_json")) {
                String s = after.path(f).asText();
                if (s.equals(OffPathWorkload.PLACEHOLDER)) {
                    toast.merge(f + " = the placeholder text", 1, Integer::sum);
                } else if (s.equals(bytesPlaceholder)) {
                    toast.merge(f + " = the placeholder's bytes (base64 " + bytesPlaceholder + ")", 1, Integer::sum);
                } else if (s.length() < 200) {
                    toast.merge(f + " = other short value", 1, Integer::sum);
                }
            }
            if (example == null && after.path("big_json").asText().length() < 200) {
                example = cut(after.toString(), 400) + " | schema of big_json: "
                        + field(v.path("schema"), "after", "big_json") + " | big_bytes: "
                        + field(v.path("schema"), "after", "big_bytes");
            }
        }
        System.out.println("CdcOffPathTest: (a) update events of " + w.topic(w.toast) + ": " + toast);
        System.out.println("CdcOffPathTest: (a) an update of the small columns: " + example);
        int placeholders = toast.entrySet().stream().filter(e -> e.getKey().startsWith("big_text = the placeholder"))
                .mapToInt(Map.Entry::getValue).sum();
        checks.add(() -> assertTrue(placeholders > 100, "part (a): Debezium sent " + OffPathWorkload.PLACEHOLDER
                + " for unchanged TOAST text (" + toast + ")"));
        checks.add(() -> assertTrue(toast.getOrDefault("primary-key changes' creates with the placeholder", 0) > 10,
                "part (a): primary-key changes of TOAST rows came as creates of the new key with Debezium's "
                        + "placeholder and the header __debezium.oldkey (" + toast + ")"));
        checks.add(() -> assertTrue(toast.getOrDefault("big_ints = the placeholder's bytes as ints", 0) > 100
                && toast.getOrDefault("big_words = [the placeholder]", 0) > 100, "part (a): Debezium sent its "
                + "placeholders for unchanged TOAST int[] and text[] values (" + toast + ")"));

        int nullPrices = 0;
        String defaultSchema = null;
        List<String> keyChangeHeaders = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : readTopic(w.topic(w.defaults))) {
            JsonNode v = parse(r.value());
            if (v != null && v.path("payload").path("after").has("price")
                    && v.path("payload").path("after").get("price").isNull()) {
                nullPrices++;
            }
            if (v != null && defaultSchema == null) {
                defaultSchema = field(v.path("schema"), "after", "price") + " " + field(v.path("schema"), "after", "seen");
            }
            // Debezium 3 puts __debezium.context.* headers on every record; a primary-key update adds its own.
            List<Header> own = new ArrayList<>();
            r.headers().forEach(hd -> {
                if (!hd.key().startsWith("__debezium.context.")) {
                    own.add(hd);
                }
            });
            String op = v == null ? "tombstone" : v.path("payload").path("op").asText();
            if (!own.isEmpty() && keyChangeHeaders.stream().noneMatch(k -> k.contains(" op " + op + ":"))) {
                StringBuilder b = new StringBuilder("partition " + r.partition() + " offset " + r.offset() + " op "
                        + op + ":");
                for (Header hd : own) {
                    b.append(" ").append(hd.key()).append("=").append(cut(new String(hd.value(), StandardCharsets.UTF_8),
                            300));
                }
                keyChangeHeaders.add(b.toString());
            }
        }
        int nulls = nullPrices;
        System.out.println("CdcOffPathTest: (b) after images with price null: " + nulls + "; schema: " + defaultSchema);
        System.out.println("CdcOffPathTest: (b) records with headers (primary-key updates): " + keyChangeHeaders);
        checks.add(() -> assertTrue(nulls > 20, "part (b): the topic keeps explicit NULLs (value.converter."
                + "replace.null.with.default=false on the source): " + nulls + " after images with price null"));
        checks.add(() -> assertFalse(keyChangeHeaders.isEmpty(), "part (b): primary-key updates carry headers"));

        for (ConsumerRecord<byte[], byte[]> r : readTopic(w.topic(w.floats))) {
            JsonNode v = parse(r.value());
            if (v != null && v.path("payload").path("after").path("d").isTextual()) {
                System.out.println("CdcOffPathTest: (c) a special double in the topic: " + cut(new String(r.value(),
                        StandardCharsets.UTF_8).replaceAll(".*\"payload\":", ""), 200));
                break;
            }
        }
        for (ConsumerRecord<byte[], byte[]> r : readTopic(w.topic(w.evolve))) {
            JsonNode v = parse(r.value());
            if (v != null && v.path("payload").path("after").has("c_date")) {
                System.out.println("CdcOffPathTest: (d) the added columns in the first event after the ALTER: "
                        + field(v.path("schema"), "after", "c_date") + " " + field(v.path("schema"), "after", "c_time")
                        + " " + field(v.path("schema"), "after", "c_tstz") + " " + field(v.path("schema"), "after", "c_num"));
                break;
            }
        }

        List<ConsumerRecord<byte[], byte[]>> unwrap = readTopic(w.topic(w.unwrap));
        long tombstones = unwrap.stream().filter(r -> r.value() == null).count();
        checks.add(() -> assertTrue(tombstones > 20, "part (f): the topic holds tombstones (" + tombstones + ")"));

        List<ConsumerRecord<byte[], byte[]>> late = readTopic(w.topic(w.late));
        JsonNode first = late.isEmpty() ? null : parse(late.get(0).value());
        String firstOp = first == null ? "none" : first.path("payload").path("op").asText();
        System.out.println("CdcOffPathTest: (g) first event: " + (first == null ? "none" : cut(first.path("payload")
                .toString(), 300)));
        checks.add(() -> assertEquals("d", firstOp, "part (g): the first event in the topic is a delete"));
        for (String db : List.of(alo, eo)) {
            String sorting = h.ch().scalar("SELECT sorting_key FROM system.tables WHERE database = '" + db
                    + "' AND name = '" + w.late.name + "'").trim();
            String columns = h.ch().scalar("SELECT arrayStringConcat(groupArray(name), ',') FROM system.columns WHERE "
                    + "database = '" + db + "' AND table = '" + w.late.name + "'").trim();
            System.out.println("CdcOffPathTest: (g) " + db + " auto-created columns " + columns + ", ORDER BY " + sorting);
            checks.add(() -> assertTrue(List.of(columns.split(",")).containsAll(List.of("id", "a", "b", "c", "d")),
                    "part (g) " + db + "." + w.late.name + ": auto.create made all columns (from the envelope's value "
                            + "schema), made: " + columns));
            checks.add(() -> assertEquals("id", sorting.replace("(", "").replace(")", ""), "part (g) " + db + "."
                    + w.late.name + ": ORDER BY the key"));
        }
    }

    private static String field(JsonNode schema, String part, String name) {
        for (JsonNode p : schema.path("fields")) {
            if (p.path("field").asText().equals(part)) {
                for (JsonNode f : p.path("fields")) {
                    if (f.path("field").asText().equals(name)) {
                        return f.toString();
                    }
                }
            }
        }
        return "(no field " + name + ")";
    }

    private static JsonNode parse(byte[] value) {
        if (value == null) {
            return null;
        }
        try {
            return JSON.readTree(value);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("a record that is no JSON: " + cut(new String(value, StandardCharsets.UTF_8),
                    200), e);
        }
    }

    private static String cut(String s, int n) {
        return s.length() > n ? s.substring(0, n) + "...(" + s.length() + " chars)" : s;
    }

    /** All records of a topic now (none if it does not exist), partition by partition. */
    private List<ConsumerRecord<byte[], byte[]>> readTopic(String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, h.stack.kafka().bootstrapServers());
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 * 1024 * 1024);
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            Map<String, List<PartitionInfo>> topics = c.listTopics(Duration.ofSeconds(30));
            if (!topics.containsKey(topic)) {
                return out;
            }
            List<TopicPartition> parts = topics.get(topic).stream().map(i -> new TopicPartition(topic, i.partition()))
                    .sorted(java.util.Comparator.comparingInt(TopicPartition::partition)).collect(Collectors.toList());
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts);
            long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(500)).forEach(out::add);
            }
        }
        out.sort(java.util.Comparator.<ConsumerRecord<byte[], byte[]>>comparingInt(ConsumerRecord::partition)
                .thenComparingLong(ConsumerRecord::offset));
        return out;
    }
}
