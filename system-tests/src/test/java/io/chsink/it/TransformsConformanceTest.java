package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.clickhouse.client.api.Client;
import io.chsink.it.events.DirectLoader;
import io.chsink.it.events.Event;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventJson;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ConnectRest;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The single message transforms a sink meets in the wild, through the real worker: Kafka's RegexRouter (also with
 * topic.to.table.map), TimestampRouter, InsertField (topic, partition, offset and timestamp into columns),
 * ReplaceField, MaskField, ValueToKey with ExtractField$Key, ExtractField, HoistField, Flatten, Cast,
 * TimestampConverter, SetSchemaMetadata, Filter with TopicNameMatches, HasHeaderKey and RecordIsTombstone,
 * InsertHeader, DropHeaders, and Debezium's ExtractNewRecordState (fed Debezium envelopes, deletes among them) and
 * ByLogicalTableRouter (two shard topics into one table; the rewritten key lands in a {@code _key} Tuple column).
 * Each case is one connector on its own topics and tables; at_least_once for all, exactly_once for RegexRouter,
 * TimestampRouter, InsertField, Filter, ByLogicalTableRouter, Flatten and Cast. All of them stream at once, with
 * blocks held open across Connect's offset commits (flush.interval.ms of 4 s, flush.max.rows far above what arrives
 * meanwhile), when the worker is SIGKILLed once, after every connector's first offset commit and while every table
 * is still incomplete; it is started again and the stream goes on.
 *
 * <p>Then, per case: the table the docs name (the renamed one for the routers) holds every event (no row of a direct
 * load of the same events missing, none that is not one of them, the distinct rows' check line equal to the
 * dataset's); under exactly_once each event exactly once (count() = distinct = events); the records the transforms
 * drop (a whole topic, records with a header, tombstones, Debezium deletes, the last records of every partition
 * among them) still let the connector's consumer group commit every partition to its end; and what the transform
 * does shows in the table (masked, renamed, excluded, inserted fields, the key, the headers). Every case prints
 * a line: rows expected, found, duplicates.
 */
class TransformsConformanceTest {
    private static final long EVENTS = 20_000;
    /** Chunks of the paced stream, one every {@link #CHUNK_MS}: about 40 s of stream. */
    private static final int CHUNKS = 80;
    private static final long CHUNK_MS = 500;
    private static final String KAFKA_SMT = "org.apache.kafka.connect.transforms.";
    private static final String DEBEZIUM_SMT = "io.debezium.transforms.";
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyyMMdd").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter TEXT_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
            .withZone(ZoneOffset.UTC);

    private final SinkHarness h = new SinkHarness();
    private final String prefix = SinkHarness.unique("smt");
    private final List<Case> cases = new ArrayList<>();
    private final JsonConverter values = converter(false);
    private final JsonConverter keys = converter(true);
    private final java.util.concurrent.atomic.AtomicInteger chunksSent = new java.util.concurrent.atomic.AtomicInteger();

    @Test
    void everyTransformDeliversEveryRowAcrossAWorkerKill() throws Exception {
        Assumptions.assumeTrue(System.getProperty("chsink.connect.url") == null && System.getenv("CHSINK_CONNECT_URL") == null,
                "kills the local worker");
        Set<String> transforms = h.rest().allPlugins().stream().map(ConnectRest.Plugin::className)
                .collect(Collectors.toSet());
        for (String t : List.of(DEBEZIUM_SMT + "ExtractNewRecordState", DEBEZIUM_SMT + "ByLogicalTableRouter",
                KAFKA_SMT + "RegexRouter", KAFKA_SMT + "predicates.HasHeaderKey")) {
            assertTrue(transforms.contains(t), "the worker lists " + t);
        }
        long begin = System.nanoTime();
        defineCases();
        List<Executable> checks = new ArrayList<>();
        try {
            for (Case c : cases) {
                c.create();
            }
            for (Case c : cases) {
                if (c.failure == null) {
                    try {
                        h.rest().waitForTasksRunning(c.name, c.tasks, Duration.ofMinutes(2));
                    } catch (RuntimeException | AssertionError e) {
                        c.failure = "tasks not running: " + e.getMessage();
                    }
                }
            }
            CompletableFuture<Long> stream = CompletableFuture.supplyAsync(this::stream);
            awaitFirstCommits(stream);
            for (Case c : cases) {
                c.atKill = h.scalar("SELECT count() FROM " + c.from());
            }
            assertEquals(137, h.stack.connect().kill(), "SIGKILL of the worker");
            long killedAt = System.nanoTime();
            h.stack.connect().start();
            System.out.printf("TransformsConformanceTest: worker killed %d s into the run and started again in %d ms; "
                    + "rows at the kill: %s%n", (killedAt - begin) / 1_000_000_000L,
                    (System.nanoTime() - killedAt) / 1_000_000, cases.stream().map(c -> c.label + "=" + c.atKill)
                            .collect(Collectors.joining(", ")));
            long sent = stream.get(5, TimeUnit.MINUTES);
            assertTrue(cases.stream().anyMatch(c -> c.failure == null && c.atKill < EVENTS),
                    "the kill must come mid-stream, but every table was complete");
            awaitAll();
            System.out.printf("TransformsConformanceTest: %d cases, %d records sent, results after %d s:%n",
                    cases.size(), sent, (System.nanoTime() - begin) / 1_000_000_000L);
            try (Client client = h.clickhouse.newClient()) {
                for (Case c : cases) {
                    c.verify(client, checks);
                }
            }
        } finally {
            for (Case c : cases) {
                h.deleteQuietly(c.name);
            }
        }
        assertAll("TransformsConformanceTest", checks);
    }

    /** The matrix: each case's records, transforms, tables and what the table must show. */
    private void defineCases() {
        for (boolean eo : new boolean[] {false, true}) {
            add("regex_router", eo).topics("src").tables("dst").tasks(2)
                    .transform("route", KAFKA_SMT + "RegexRouter", "regex", "(.*)_src", "replacement", "$1_dst");

            Case ts = add("timestamp_router", eo).tasks(2).transform("route", KAFKA_SMT + "TimestampRouter",
                    "topic.format", "${topic}_${timestamp}", "timestamp.format", "yyyyMMdd");
            // The records' timestamps are their send times: today's table, and tomorrow's for a run across midnight.
            ts.tables.clear();
            Instant now = Instant.now();
            for (Instant t : List.of(now, now.plus(Duration.ofMinutes(15)))) {
                String table = ts.base + "_" + DAY.format(t);
                if (!ts.tables.contains(table)) {
                    ts.tables.add(table);
                }
            }

            Case insert = add("insert_field", eo).tasks(2)
                    .columns("src_topic String, src_partition Int32, src_offset Int64, src_ts DateTime64(3)")
                    .transform("meta", KAFKA_SMT + "InsertField$Value", "topic.field", "src_topic",
                            "partition.field", "src_partition", "offset.field", "src_offset", "timestamp.field", "src_ts");
            insert.check("rows with another src_topic", "countIf(src_topic != '" + insert.base + "')", 0);
            insert.check("distinct (src_partition, src_offset)", "uniqExact(src_partition, src_offset)", EVENTS);
            insert.check("offsets beyond the last", "countIf(src_offset >= " + EVENTS / insert.partitions + ")", 0);
            insert.check("rows without src_ts", "countIf(src_ts < now64(3) - INTERVAL 1 HOUR)", 0);

            Case filter = add("filter_header", eo).tasks(2)
                    .transform("skip", KAFKA_SMT + "Filter", "predicate", "skipped")
                    .predicate("skipped", KAFKA_SMT + "predicates.HasHeaderKey", "name", "chsink-skip");
            EventGenerator junk = new EventGenerator(filter.seed + 10_000);
            List<Header> skip = List.of(new RecordHeader("chsink-skip", "yes".getBytes(StandardCharsets.UTF_8)));
            filter.dropsBefore = i -> i % 7 == 3 ? List.of(new ProducerRecord<>(filter.base, filter.partition(i), null,
                    null, EventJson.withSchema(junk.next()), skip)) : List.of();
            filter.dropsAtEnd = p -> List.of(new ProducerRecord<>(filter.base, p, null, null,
                    EventJson.withSchema(junk.next()), skip));

            Case router = add("logical_router", eo).topics("shard_0", "shard_1").tables("all").tasks(2)
                    .columns("`_key` Tuple(id Int64, `__dbz__physicalTableIdentifier` String)")
                    .set("key.converter", "io.chsink.connect.convert.JsonEnvelopeConverter")
                    .set("key.converter.schemas.enable", "true")
                    .transform("route", DEBEZIUM_SMT + "ByLogicalTableRouter", "topic.regex", "(.*)_shard_(\\d+)",
                            "topic.replacement", "$1_all");
            router.record = (i, e) -> new ProducerRecord<>(router.topic(i), router.partition(i), keys.fromConnectData(
                    router.topic(i), KEY, new Struct(KEY).put("id", i)), EventJson.withSchema(e));
            String shard0 = router.base + "_shard_0";
            String shard1 = router.base + "_shard_1";
            String physical = "tupleElement(`_key`, '__dbz__physicalTableIdentifier')";
            router.check("distinct keys", "uniqExact(`_key`)", EVENTS);
            router.check("keys of another table", "countIf(" + physical + " NOT IN ('" + shard0 + "', '" + shard1 + "'))", 0);
            router.check("keys naming the wrong shard", "countIf(tupleElement(`_key`, 'id') % 2 != if(" + physical
                    + " = '" + shard0 + "', 0, 1))", 0);

            Case flatten = add("flatten", eo).transform("flat", KAFKA_SMT + "Flatten$Value", "delimiter", "_");
            flatten.value = e -> values.fromConnectData(flatten.base, NESTED, nested(e));

            Case cast = add("cast", eo).transform("cast", KAFKA_SMT + "Cast$Value", "spec",
                    "user_id:int64,duration_ms:int64");
            cast.value = e -> values.fromConnectData(cast.base, AS_TEXT, asText(e));
        }

        Case map = add("regex_router_mapped", false).topics("src").tables("table").transform("route",
                KAFKA_SMT + "RegexRouter", "regex", "(.*)_src", "replacement", "$1_renamed");
        map.set("topic.to.table.map", map.base + "_renamed:" + map.base + "_table");

        Case replace = add("replace_field", false).columns("internal_note String DEFAULT 'excluded'")
                .transform("fields", KAFKA_SMT + "ReplaceField$Value", "renames", "ts:event_time,uid:user_id,kind:event_type",
                        "exclude", "internal_note");
        replace.value = e -> values.fromConnectData(replace.base, RENAMED, renamed(e));
        replace.check("rows with internal_note", "countIf(internal_note != 'excluded')", 0);

        Case mask = add("mask_field", false).columns("email String")
                .transform("mask", KAFKA_SMT + "MaskField$Value", "fields", "email", "replacement", "***");
        mask.value = e -> values.fromConnectData(mask.base, WITH_EMAIL, withEmail(e));
        mask.check("unmasked emails", "countIf(email != '***')", 0);

        Case toKey = add("value_to_key", false).columns("`_key` UInt64")
                .transform("copy", KAFKA_SMT + "ValueToKey", "fields", "user_id")
                .transform("id", KAFKA_SMT + "ExtractField$Key", "field", "user_id");
        toKey.check("keys other than user_id", "countIf(`_key` != user_id)", 0);

        Case extract = add("extract_field", false).transform("event", KAFKA_SMT + "ExtractField$Value", "field", "event");
        extract.value = e -> values.fromConnectData(extract.base, WRAPPED, wrapped(e));

        Case hoist = add("hoist_field", false).transform("hoist", KAFKA_SMT + "HoistField$Value", "field", "event");
        hoist.columns = "event Tuple(event_time DateTime, user_id UInt64, event_type String, url String, "
                + "duration_ms UInt32, country String, revenue Decimal(10,2))";
        hoist.projection = "tupleElement(event, 'event_time') AS event_time, tupleElement(event, 'user_id') AS user_id, "
                + "tupleElement(event, 'event_type') AS event_type, tupleElement(event, 'url') AS url, "
                + "tupleElement(event, 'duration_ms') AS duration_ms, tupleElement(event, 'country') AS country, "
                + "tupleElement(event, 'revenue') AS revenue";

        Case time = add("timestamp_converter", false).transform("time", KAFKA_SMT + "TimestampConverter$Value",
                "field", "event_time", "target.type", "Timestamp", "format", "yyyy-MM-dd HH:mm:ss");
        time.value = e -> values.fromConnectData(time.base, TEXT_TIMES, textTime(e));

        add("set_schema_metadata", false).transform("meta", KAFKA_SMT + "SetSchemaMetadata$Value",
                "schema.name", "io.chsink.demo.Renamed", "schema.version", "7");

        Case byTopic = add("filter_topic", false).topics("keep", "drop").tables("keep").tasks(2)
                .transform("skip", KAFKA_SMT + "Filter", "predicate", "dropped")
                .predicate("dropped", KAFKA_SMT + "predicates.TopicNameMatches", "pattern", ".*_drop");
        byTopic.eventTopics = 1;
        // A Filter on TopicNameMatches may drop whole topics: validate() does not ask for the dropped topic's table
        // (docs/configuration.md), and none is ever made or written.
        byTopic.absentTables.add(byTopic.base + "_drop");
        EventGenerator other = new EventGenerator(byTopic.seed + 10_000);
        String dropTopic = byTopic.base + "_drop";
        byTopic.dropsBefore = i -> i % 3 == 0 ? List.of(new ProducerRecord<>(dropTopic, byTopic.partition(i), null,
                EventJson.withSchema(other.next()))) : List.of();
        byTopic.dropsAtEnd = p -> List.of(new ProducerRecord<>(dropTopic, p, null, EventJson.withSchema(other.next())));

        Case tomb = add("filter_tombstone", false).set("tombstones.behavior", "fail")
                .transform("skip", KAFKA_SMT + "Filter", "predicate", "tombstone")
                .predicate("tombstone", KAFKA_SMT + "predicates.RecordIsTombstone");
        tomb.dropsBefore = i -> i % 5 == 2 ? List.of(new ProducerRecord<>(tomb.base, tomb.partition(i), null, null))
                : List.of();
        tomb.dropsAtEnd = p -> List.of(new ProducerRecord<>(tomb.base, p, null, null));

        Case insertHeader = add("insert_header", false).columns("`_header_origin` Nullable(String)")
                .transform("origin", KAFKA_SMT + "InsertHeader", "header", "origin", "value.literal", "web-shop");
        insertHeader.check("rows without the inserted header", "countIf(ifNull(`_header_origin`, '') != 'web-shop')", 0);

        Case dropHeaders = add("drop_headers", false)
                .columns("`_header_trace` Nullable(String), `_header_tenant` Nullable(String)")
                .transform("drop", KAFKA_SMT + "DropHeaders", "headers", "trace");
        dropHeaders.record = (i, e) -> new ProducerRecord<>(dropHeaders.topic(i), dropHeaders.partition(i), null, null,
                EventJson.withSchema(e), List.of(new RecordHeader("trace", ("t-" + i).getBytes(StandardCharsets.UTF_8)),
                        new RecordHeader("tenant", "acme".getBytes(StandardCharsets.UTF_8))));
        dropHeaders.check("rows with the dropped header", "countIf(`_header_trace` IS NOT NULL)", 0);
        dropHeaders.check("rows without the kept header", "countIf(ifNull(`_header_tenant`, '') != 'acme')", 0);

        Case unwrap = add("extract_new_record_state", false).set("tombstones.behavior", "fail")
                .transform("unwrap", DEBEZIUM_SMT + "ExtractNewRecordState", "delete.tombstone.handling.mode", "drop");
        EventGenerator deleted = new EventGenerator(unwrap.seed + 10_000);
        unwrap.value = e -> values.fromConnectData(unwrap.base, ENVELOPE, envelope(e, "c"));
        unwrap.dropsBefore = i -> i % 6 == 1 ? List.of(new ProducerRecord<>(unwrap.base, unwrap.partition(i), null,
                values.fromConnectData(unwrap.base, ENVELOPE, envelope(deleted.next(), "d")))) : List.of();
        unwrap.dropsAtEnd = p -> List.of(new ProducerRecord<>(unwrap.base, p, null, values.fromConnectData(unwrap.base,
                ENVELOPE, envelope(deleted.next(), "d"))), new ProducerRecord<>(unwrap.base, p, null, null));
    }

    private Case add(String label, boolean exactlyOnce) {
        Case c = new Case(label, exactlyOnce, 1000 + cases.size());
        cases.add(c);
        return c;
    }

    /**
     * Sends every case's events in {@link #CHUNKS} chunks, one every {@link #CHUNK_MS}, with the records its
     * transforms drop among them and after them; returns the records sent.
     */
    private long stream() {
        EventProducer.Batches out = new EventProducer(h.stack.kafka().bootstrapServers()).batches();
        try (out) {
            long next = System.nanoTime();
            for (int chunk = 0; chunk < CHUNKS; chunk++) {
                for (Case c : cases) {
                    long to = EVENTS * (chunk + 1) / CHUNKS;
                    for (long i = c.generator.produced(); i < to; i++) {
                        c.dropsBefore.apply(i).forEach(out::send);
                        out.send(c.record.apply(i, c.generator.next()));
                    }
                }
                out.flush();
                chunksSent.incrementAndGet();
                next += CHUNK_MS * 1_000_000L;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000L);
                }
            }
            for (Case c : cases) {
                for (int p = 0; p < c.partitions; p++) {
                    c.dropsAtEnd.apply(p).forEach(out::send);
                }
            }
            out.flush();
            return out.sent();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Waits until every running case's consumer group has committed offsets past some of its records (a commit of
     * Connect's came while the stream flowed into open blocks) and 40% of the stream is sent, at most a minute; the
     * kill comes right after.
     */
    private void awaitFirstCommits(CompletableFuture<Long> stream) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        List<String> waiting = new ArrayList<>();
        while (System.nanoTime() < deadline && !stream.isDone()) {
            waiting.clear();
            for (Case c : cases) {
                if (c.failure == null) {
                    c.failure = new ConnectorFailure(h.rest(), c.name).get();
                }
                if (c.failure == null && h.committedOffsets(c.name).values().stream().mapToLong(Long::longValue).sum() == 0) {
                    waiting.add(c.label);
                }
            }
            if (waiting.isEmpty() && chunksSent.get() >= CHUNKS * 2 / 5) {
                return;
            }
            Thread.sleep(250);
        }
        System.out.println("TransformsConformanceTest: no offset commit before the kill from " + waiting);
    }

    /**
     * Waits until each case has all its events (distinct) and its group committed every partition to its end, or
     * failed; stops when nothing moved for 90 s (rows lost for good never come).
     */
    private void awaitAll() throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(6).toNanos();
        long lastChange = System.nanoTime();
        String last = "";
        while (System.nanoTime() < deadline && System.nanoTime() - lastChange < Duration.ofSeconds(90).toNanos()) {
            StringBuilder state = new StringBuilder();
            boolean all = true;
            for (Case c : cases) {
                if (c.failure == null) {
                    c.failure = new ConnectorFailure(h.rest(), c.name).get();
                }
                if (c.failure != null || c.done) {
                    continue;
                }
                long distinct = c.distinct();
                long behind = c.uncommitted();
                c.done = distinct >= EVENTS && behind == 0;
                all &= c.done;
                state.append(distinct).append('/').append(behind).append(' ');
            }
            if (all) {
                return;
            }
            if (!state.toString().equals(last)) {
                last = state.toString();
                lastChange = System.nanoTime();
            }
            Thread.sleep(1000);
        }
        System.out.println("TransformsConformanceTest: stopped waiting, nothing moved for 90 s (distinct rows / "
                + "records not committed per pending case): " + last);
    }

    /** What one case's table must show besides the events: {@code SELECT aggregate FROM the tables} = expected. */
    private record Check(String what, String aggregate, long expected) {
    }

    /** One connector of the matrix: its topics, records, transforms, tables and checks. */
    private final class Case {
        final String label;
        final boolean exactlyOnce;
        final String base;
        final String name;
        final long seed;
        final EventGenerator generator;
        final List<String> topics = new ArrayList<>();
        /** The first {@code eventTopics} of {@link #topics} take the events, in turns. */
        int eventTopics;
        final int partitions = 2;
        int tasks = 1;
        final Map<String, String> config = new LinkedHashMap<>();
        final List<String> tables = new ArrayList<>();
        /** The columns of the tables. */
        String columns = EventsTable.COLUMNS;
        /** The events' columns, in {@link EventsTable#COLUMN_NAMES} order, from the tables' rows. */
        String projection = EventsTable.COLUMN_NAMES;
        Function<Event, byte[]> value = EventJson::withSchema;
        BiFunction<Long, Event, ProducerRecord<byte[], byte[]>> record;
        /** Records the transforms drop, sent right before event i. */
        LongFunction<List<ProducerRecord<byte[], byte[]>>> dropsBefore = i -> List.of();
        /** Records sent after all events, per partition (dropped ones: committed offsets at the end prove they count). */
        java.util.function.IntFunction<List<ProducerRecord<byte[], byte[]>>> dropsAtEnd = p -> List.of();
        final List<Check> checks = new ArrayList<>();
        /** Tables that exist for validate() only: the transforms send nothing there. */
        /** Tables no topic reaches after the transforms: not created, and still missing at the end. */
        final List<String> absentTables = new ArrayList<>();
        String failure;
        long atKill = -1;
        boolean done;

        Case(String label, boolean exactlyOnce, long seed) {
            this.label = label + (exactlyOnce ? "/eo" : "/alo");
            this.exactlyOnce = exactlyOnce;
            this.base = prefix + "_" + label + (exactlyOnce ? "_eo" : "_alo");
            this.name = base;
            this.seed = seed;
            this.generator = new EventGenerator(seed);
            topics.add(base);
            eventTopics = 1;
            tables.add(base);
            record = (i, e) -> new ProducerRecord<>(topic(i), partition(i), null, value.apply(e));
        }

        Case topics(String... suffixes) {
            topics.clear();
            for (String s : suffixes) {
                topics.add(base + "_" + s);
            }
            eventTopics = suffixes.length;
            return this;
        }

        Case tables(String... suffixes) {
            tables.clear();
            for (String s : suffixes) {
                tables.add(base + "_" + s);
            }
            return this;
        }

        Case tasks(int n) {
            tasks = n;
            return this;
        }

        Case columns(String extra) {
            columns = EventsTable.COLUMNS + ", " + extra;
            return this;
        }

        Case set(String key, String value) {
            config.put(key, value);
            return this;
        }

        Case transform(String alias, String type, String... settings) {
            return plugin("transforms", alias, type, settings);
        }

        Case predicate(String alias, String type, String... settings) {
            return plugin("predicates", alias, type, settings);
        }

        private Case plugin(String list, String alias, String type, String... settings) {
            config.merge(list, alias, (a, b) -> a + "," + b);
            config.put(list + "." + alias + ".type", type);
            for (int k = 0; k < settings.length; k += 2) {
                config.put(list + "." + alias + "." + settings[k], settings[k + 1]);
            }
            return this;
        }

        void check(String what, String aggregate, long expected) {
            checks.add(new Check(what, aggregate, expected));
        }

        String topic(long i) {
            return topics.get((int) (i % eventTopics));
        }

        int partition(long i) {
            return (int) (i / eventTopics % partitions);
        }

        /** The rows of all the case's tables. */
        String from() {
            if (tables.size() == 1) {
                return EventsTable.qualified(h.db, tables.get(0));
            }
            return "(" + tables.stream().map(t -> "SELECT * FROM " + EventsTable.qualified(h.db, t))
                    .collect(Collectors.joining(" UNION ALL ")) + ")";
        }

        List<TopicPartition> partitions() {
            List<TopicPartition> out = new ArrayList<>();
            for (String t : topics) {
                for (int p = 0; p < partitions; p++) {
                    out.add(new TopicPartition(t, p));
                }
            }
            return out;
        }

        void create() {
            for (String t : tables) {
                h.clickhouse.exec("CREATE TABLE " + EventsTable.qualified(h.db, t) + " (" + columns
                        + ") ENGINE = MergeTree ORDER BY tuple()"
                        + (exactlyOnce ? " SETTINGS non_replicated_deduplication_window = 1000" : ""));
            }
            for (String t : topics) {
                h.stack.kafka().createTopic(t, partitions);
            }
            Map<String, String> o = SinkHarness.overrides(String.join(",", topics), tasks);
            // Blocks sealed by time only, every 4 s (a few thousand rows each): open across Connect's offset commits.
            o.put("flush.interval.ms", "4000");
            o.put("flush.max.rows", "100000");
            o.putAll(config);
            try {
                h.createConnector(name, exactlyOnce ? "clickhouse-sink-exactly-once.json" : "clickhouse-sink.json", o);
            } catch (RuntimeException e) {
                failure = "refused: " + e.getMessage();
            }
        }

        long distinct() {
            return h.scalar("SELECT uniqExact(*) FROM (SELECT " + projection + " FROM " + from() + ")");
        }

        /** Records of the case's partitions beyond the group's committed offsets. */
        long uncommitted() throws Exception {
            Map<TopicPartition, Long> end = h.endOffsets(partitions());
            Map<TopicPartition, Long> committed = h.committedOffsets(name);
            return end.entrySet().stream().mapToLong(e -> e.getValue() - committed.getOrDefault(e.getKey(), 0L)).sum();
        }

        void verify(Client client, List<Executable> out) throws Exception {
            String reference = base + "_direct";
            h.clickhouse.exec(EventsTable.createSql(h.db, reference));
            new DirectLoader(client).load(h.db, reference, new EventGenerator(seed), EVENTS);
            String ref = EventsTable.qualified(h.db, reference);
            String rowsSql = "SELECT " + projection + " FROM " + from();
            long rows = h.scalar("SELECT count() FROM " + from());
            long distinct = distinct();
            long missing = h.scalar("SELECT count() FROM (SELECT * FROM " + ref + " EXCEPT DISTINCT " + rowsSql + ")");
            long unexpected = h.scalar("SELECT count() FROM (" + rowsSql + " EXCEPT DISTINCT SELECT * FROM " + ref + ")");
            long expected = EVENTS;
            long behind = failure == null ? uncommitted() : -1; // a connector refused at creation has no group
            List<String> failed = new ArrayList<>();
            for (String t : absentTables) {
                if (h.scalar("SELECT count() FROM system.tables WHERE database = '" + h.db + "' AND name = '" + t
                        + "'") != 0) {
                    failed.add("table " + t + " exists, where the transforms send nothing");
                }
            }
            for (Check c : checks) {
                long v = h.scalar("SELECT " + c.aggregate() + " FROM " + from());
                if (v != c.expected()) {
                    failed.add(c.what() + " " + v + " (expected " + c.expected() + ")");
                }
            }
            String line = String.format("  %-30s %s: rows expected %d, found %d, distinct %d, missing %d, unexpected %d, "
                    + "duplicates %d; %d at the kill; %d records not committed%s%s", label, tables.size() == 1
                            ? tables.get(0).substring(prefix.length() + 1) : tables.size() + " tables",
                    expected, rows, distinct, missing, unexpected, rows - distinct, atKill, behind,
                    failed.isEmpty() ? "" : "; FAILED CHECKS " + failed, failure == null ? "" : "; " + failure);
            System.out.println(line);
            out.add(() -> assertEquals(null, failure, label + ": connector " + name));
            out.add(() -> assertEquals(0, missing, label + ": events missing from " + tables));
            out.add(() -> assertEquals(0, unexpected, label + ": rows that are none of the events in " + tables));
            out.add(() -> assertEquals(expected, distinct, label + ": distinct rows in " + tables));
            if (exactlyOnce) {
                out.add(() -> assertEquals(expected, rows, label + ": rows in " + tables + " (exactly_once)"));
            }
            out.add(() -> assertEquals(0, behind, label + ": records of " + topics + " beyond the committed offsets"));
            out.add(() -> assertTrue(failed.isEmpty(), label + ": " + failed));
        }
    }

    private static JsonConverter converter(boolean isKey) {
        JsonConverter c = new JsonConverter();
        c.configure(Map.of("schemas.enable", "true"), isKey);
        return c;
    }

    private static final Schema KEY = SchemaBuilder.struct().name("smt.Key").field("id", Schema.INT64_SCHEMA).build();

    private static SchemaBuilder eventFields(SchemaBuilder b, Schema time, Schema user, Schema duration) {
        return b.field("event_time", time).field("user_id", user).field("event_type", Schema.STRING_SCHEMA)
                .field("url", Schema.STRING_SCHEMA).field("duration_ms", duration).field("country", Schema.STRING_SCHEMA)
                .field("revenue", Decimal.schema(2));
    }

    private static final Schema EVENT = eventFields(SchemaBuilder.struct().name("smt.Event"), Timestamp.SCHEMA,
            Schema.INT64_SCHEMA, Schema.INT64_SCHEMA).build();
    private static final Schema ROW = eventFields(SchemaBuilder.struct().name("dbserver.public.events.Value").optional(),
            Timestamp.SCHEMA, Schema.INT64_SCHEMA, Schema.INT64_SCHEMA).build();
    private static final Schema SOURCE = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Source")
            .field("version", Schema.STRING_SCHEMA).field("connector", Schema.STRING_SCHEMA)
            .field("name", Schema.STRING_SCHEMA).field("ts_ms", Schema.INT64_SCHEMA).field("db", Schema.STRING_SCHEMA)
            .field("schema", Schema.STRING_SCHEMA).field("table", Schema.STRING_SCHEMA).build();
    private static final Schema ENVELOPE = SchemaBuilder.struct().name("dbserver.public.events.Envelope")
            .field("before", ROW).field("after", ROW).field("source", SOURCE).field("op", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA).build();
    private static final Schema AS_TEXT = eventFields(SchemaBuilder.struct().name("smt.TextNumbers"), Timestamp.SCHEMA,
            Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build();
    private static final Schema TEXT_TIMES = eventFields(SchemaBuilder.struct().name("smt.TextTime"),
            Schema.STRING_SCHEMA, Schema.INT64_SCHEMA, Schema.INT64_SCHEMA).build();
    private static final Schema WITH_EMAIL = eventFields(SchemaBuilder.struct().name("smt.WithEmail"), Timestamp.SCHEMA,
            Schema.INT64_SCHEMA, Schema.INT64_SCHEMA).field("email", Schema.STRING_SCHEMA).build();
    private static final Schema META = SchemaBuilder.struct().name("smt.Meta").field("source", Schema.STRING_SCHEMA)
            .field("schema_version", Schema.INT32_SCHEMA).build();
    private static final Schema WRAPPED = SchemaBuilder.struct().name("smt.Wrapped").field("event", EVENT)
            .field("meta", META).build();
    private static final Schema RENAMED = SchemaBuilder.struct().name("smt.Legacy").field("ts", Timestamp.SCHEMA)
            .field("uid", Schema.INT64_SCHEMA).field("kind", Schema.STRING_SCHEMA).field("url", Schema.STRING_SCHEMA)
            .field("duration_ms", Schema.INT64_SCHEMA).field("country", Schema.STRING_SCHEMA)
            .field("revenue", Decimal.schema(2)).field("internal_note", Schema.STRING_SCHEMA).build();
    private static final Schema EVENT_PART = SchemaBuilder.struct().name("smt.EventPart")
            .field("time", Timestamp.SCHEMA).field("type", Schema.STRING_SCHEMA).build();
    private static final Schema USER_PART = SchemaBuilder.struct().name("smt.UserPart").field("id", Schema.INT64_SCHEMA)
            .build();
    private static final Schema NESTED = SchemaBuilder.struct().name("smt.Nested").field("event", EVENT_PART)
            .field("user", USER_PART).field("url", Schema.STRING_SCHEMA).field("duration_ms", Schema.INT64_SCHEMA)
            .field("country", Schema.STRING_SCHEMA).field("revenue", Decimal.schema(2)).build();

    private static Struct fill(Struct s, Event e) {
        for (org.apache.kafka.connect.data.Field f : s.schema().fields()) {
            switch (f.name()) {
                case "event_time" -> s.put(f, f.schema().type() == Schema.Type.STRING
                        ? TEXT_TIME.format(Instant.ofEpochSecond(e.eventTime())) : new Date(e.eventTime() * 1000));
                case "user_id" -> s.put(f, f.schema().type() == Schema.Type.STRING ? Long.toString(e.userId()) : e.userId());
                case "event_type" -> s.put(f, e.eventType());
                case "url" -> s.put(f, e.url());
                case "duration_ms" -> s.put(f, f.schema().type() == Schema.Type.STRING ? Long.toString(e.durationMs())
                        : e.durationMs());
                case "country" -> s.put(f, e.country());
                case "revenue" -> s.put(f, BigDecimal.valueOf(e.revenueCents(), 2));
                default -> { }
            }
        }
        return s;
    }

    private static Struct asText(Event e) {
        return fill(new Struct(AS_TEXT), e);
    }

    private static Struct textTime(Event e) {
        return fill(new Struct(TEXT_TIMES), e);
    }

    private static Struct withEmail(Event e) {
        return fill(new Struct(WITH_EMAIL), e).put("email", "user" + e.userId() + "@example.com");
    }

    private static Struct wrapped(Event e) {
        return new Struct(WRAPPED).put("event", fill(new Struct(EVENT), e))
                .put("meta", new Struct(META).put("source", "web").put("schema_version", 3));
    }

    private static Struct renamed(Event e) {
        return new Struct(RENAMED).put("ts", new Date(e.eventTime() * 1000)).put("uid", e.userId())
                .put("kind", e.eventType()).put("url", e.url()).put("duration_ms", e.durationMs())
                .put("country", e.country()).put("revenue", BigDecimal.valueOf(e.revenueCents(), 2))
                .put("internal_note", "call " + e.userId() + " back");
    }

    private static Struct nested(Event e) {
        return new Struct(NESTED)
                .put("event", new Struct(EVENT_PART).put("time", new Date(e.eventTime() * 1000)).put("type", e.eventType()))
                .put("user", new Struct(USER_PART).put("id", e.userId())).put("url", e.url())
                .put("duration_ms", e.durationMs()).put("country", e.country())
                .put("revenue", BigDecimal.valueOf(e.revenueCents(), 2));
    }

    /** A Debezium change event: a create carries the row as {@code after}, a delete as {@code before}. */
    private static Struct envelope(Event e, String op) {
        Struct row = fill(new Struct(ROW), e);
        Struct source = new Struct(SOURCE).put("version", "3.6.1.Final").put("connector", "postgresql")
                .put("name", "dbserver").put("ts_ms", e.eventTime() * 1000).put("db", "shop").put("schema", "public")
                .put("table", "events");
        Struct env = new Struct(ENVELOPE).put("source", source).put("op", op).put("ts_ms", e.eventTime() * 1000);
        return op.equals("d") ? env.put("before", row) : env.put("after", row);
    }
}
