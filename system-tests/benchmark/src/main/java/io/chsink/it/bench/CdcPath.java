package io.chsink.it.bench;

import io.chsink.it.avro.TestRegistry;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.stack.ClickHouseHttp;
import io.chsink.it.stack.ProcessCpu;
import io.chsink.it.stack.RowWatcher;
import io.chsink.it.stack.Stack;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.data.Struct;

/**
 * Path V, change events: Debezium change events of K tables ({@link ChangeStream}, in the shapes of
 * {@link DebeziumEvents}) through the Connect worker with {@code cdc.mode=debezium} into ReplacingMergeTree tables,
 * and beside it, in the same run, the "append" path: the same records as flat rows with {@code cdc.mode=none} into
 * MergeTree tables, each in JSON with schemas and in Avro. The ratio of the two rows/s is what consuming change
 * events costs over appending rows. In JSON, when the official ClickHouse connector's plugin is in the worker
 * (--official-plugin, as path M), the official connector 1.5.0 with {@code debeziumCDCEnabled=true} reads the same
 * CDC topics too, between the two. {@code --cdc-toast} sets the share of updates carrying Debezium's TOAST
 * placeholder (10% by default); with several shares the path runs once per share, its ids ending in
 * {@code -toast<PCT>}.
 *
 * <p><b>CDC.</b> Topics {@code <server>.public.<table>}, 2 partitions each, the records keyed and partitioned as a
 * Debezium source's worker writes them (the producer's default partitioner over the serialized key); the connector
 * from {@code config/clickhouse-sink-cdc.json} with only addresses, topics, topic.to.table.map and tasks.max set
 * (Avro: key and value converter the plugin's AvroConverter, as {@code config/clickhouse-sink-avro.json} sets it,
 * with the stand-in registry's URL); each table {@code ReplacingMergeTree(_version, _is_deleted) ORDER BY id}
 * created beforehand, NOT NULL columns as such, {@code note} Nullable.
 *
 * <p><b>Append.</b> An envelope does not map to a table's columns with {@code cdc.mode=none}, so the append path
 * gets topics of its own ({@code <server>.rows.<table>}, 2 partitions) holding, for every record of the CDC topics,
 * the flat row the CDC path writes for it: the row after the change (with the body a TOAST placeholder stood for),
 * or for a delete and its tombstone the key with every other column null; same key bytes, same count of records, no
 * headers; JSON with schemas or Avro, read by {@code config/clickhouse-sink.json} / {@code -avro.json} as they are
 * (their key converter, StringConverter, reads the key as text: appending needs no key) into MergeTree tables of
 * the same columns, all but the key Nullable.
 *
 * <p><b>Official.</b> Its settings are path M's ({@link ManyTablesPath#officialConfig}: Kafka's JsonConverter with
 * schemas, StringConverter for the key, which it never reads, {@code consumer.override.max.poll.records=5000},
 * client V2, {@code exactlyOnce=false}) plus {@code debeziumCDCEnabled=true} and, as ours has it, the
 * ByteArrayConverter for headers (it reads none). Its DebeziumRecordConvertor takes an envelope's {@code after} for
 * op c, r, u ({@code is_deleted}=0) and {@code before} for d (1), skips t, adds {@code _version} from source.lsn,
 * and writes an unavailable TOAST value as the placeholder text; a tombstone (null value) writes nothing. Its tables
 * have ours' columns (a delete's key-only {@code before} carries Debezium's fallbacks for the NOT NULL columns, so
 * nothing needs to be Nullable beyond {@code note}) with {@code _version UInt64, is_deleted UInt8},
 * {@code ReplacingMergeTree(_version, is_deleted) ORDER BY id}.
 *
 * <p><b>Clock and counts.</b> As path B: from the REST call that creates the connector until the last row is
 * visible. For a ReplacingMergeTree, {@code count()} is no measure of rows landed (merges collapse the versions of
 * a key while the run goes on) and {@code count() FINAL} counts keys, not rows; so every target table (also the
 * append path's, for the same overhead) has a materialized view adding each inserted block's {@code count()} to a
 * counter table, and the clock stops when the counter reaches the rows the records write: one per change event (a
 * tombstone after its delete writes nothing: docs/cdc.md, Tombstones), for both connectors.
 * CPU seconds of the worker and of ClickHouse over that window, from /proc. Blocks inserted, rows inserted, records
 * without a row, the current-row look-ups (the tasks' {@code CurrentRowReads} and {@code CurrentRowReadMs}) and the
 * current rows their caches had ({@code CurrentRowCacheHits}), printed in their stop lines, are read from the worker
 * log after the connector is deleted.
 *
 * <p><b>Checks</b> (a mismatch fails the run): per CDC table, {@code FINAL} without deleted rows holds exactly the
 * generator's final rows (count and the sum of the MD5 prefixes of each row's canonical text), the live rows whose
 * body last came from a TOAST fill hold the last real body, and no version of any row holds the placeholder; per
 * append table, {@code count()} equals its records. The official connector's tables are read the same way
 * ({@code FINAL}, {@code is_deleted = 0}), and row by row: how many live rows hold the placeholder and how many
 * differ from the source (printed for ours too); its difference is printed and recorded but does not fail the run
 * (with placeholders in the stream it is expected).
 */
final class CdcPath {
    enum Format {
        JSON("json", "JSON", "JSON with schemas"),
        AVRO("avro", "Avro", "Avro with a schema registry");

        final String id;
        final String shortName;
        final String description;

        Format(String id, String shortName, String description) {
            this.id = id;
            this.shortName = shortName;
            this.description = description;
        }
    }

    private static final String[] TABLE_NAMES = {"orders", "payments", "shipments", "invoices", "customers",
        "accounts", "parcels", "refunds"};
    private static final Pattern STOPPED = Pattern.compile("ClickHouse sink task stopped: records received=(\\d+),"
            + " rows inserted=(\\d+) in (\\d+) blocks.*?records without a row=(\\d+)"
            + "(?:.*?current-row reads=(\\d+) \\((\\d+) ms\\)(?:, current-row cache hits=(\\d+))?"
            + "(?:, polls held for reads=(\\d+))?)?");

    private final Stack stack;
    private final String db;
    private final String prefix;
    private final int tables;
    private final long events;
    private final long seed;
    private final int tasks;
    private final boolean keepTables;
    /** --ours-props: settings tried against the examples' (both connectors of the path). */
    private final Map<String, String> oursProps;
    private Path profileDir;
    /** Also run the official connector over the JSON CDC topics ({@link #officialToo}). */
    private boolean official;
    /** Also run the floor over the CDC topics ({@link #floorToo}). */
    private boolean floor;

    /** --cdc-granularity: the index_granularity of both paths' tables, 0 for the server's default. */
    private final int granularity;

    CdcPath(Stack stack, String db, String prefix, int tables, long events, long seed, int tasks, boolean keepTables,
            Map<String, String> oursProps, int granularity) {
        this.oursProps = oursProps;
        this.granularity = granularity;
        this.stack = stack;
        this.db = db;
        this.prefix = prefix;
        this.tables = tables;
        this.events = events;
        this.seed = seed;
        this.tasks = tasks;
        this.keepTables = keepTables;
    }

    static String tableName(int t) {
        return t < TABLE_NAMES.length ? TABLE_NAMES[t] : "table_" + (t + 1);
    }

    /** What one connector run measured. */
    record Measured(String connector, long logMark, long nanos, long firstRowNanos, ProcessCpu.Sample workerCpu,
            ProcessCpu.Sample serverCpu, long recordsReceived, long rowsInserted, long blocks, long withoutRow,
            long reads, long readMs, long cacheHits, long pollsHeld, int tasksLogged) {
    }

    /** With the official connector's plugin in the worker: JSON runs also read the CDC topics with it. */
    void officialToo(boolean on) {
        this.official = on;
    }

    /**
     * --cdc-floor: each run also reads the CDC topics with this connector's CDC example but {@code cdc.mode=none},
     * into tables of two columns ({@code op}, {@code ts_ms}; the envelope's other fields are ignored, tombstones
     * skipped): what Kafka's consumer, Connect and the converter cost on these records with next to nothing done
     * in {@code put()}: no sink reading these records with this converter finishes before it ({@code V-<format>-floor}).
     */
    void floorToo(boolean on) {
        this.floor = on;
    }

    /**
     * Produces one format's topics ({@code toastPercent} of the updates with the TOAST placeholder), runs the CDC
     * connector, then (JSON, {@link #officialToo}) the official connector, then the append connector over them,
     * checks each and returns their figures (ids {@code V-<format>-debezium}, {@code V-<format>-official},
     * {@code V-<format>-none}, each followed by {@code idSuffix}); with {@code timed} false (a warm-up) nothing is
     * checked strictly and nothing is returned.
     */
    List<SinkBenchReport.Path> run(Format f, long eventCount, long streamSeed, int toastPercent, String idSuffix,
            boolean timed) throws Exception {
        String server = (prefix + "_v_" + f.id + "_" + Long.toString(System.currentTimeMillis(), 36))
                .toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        ChangeStream stream = new ChangeStream(tables, eventCount, streamSeed, toastPercent);
        List<DebeziumEvents> shapes = new ArrayList<>();
        UUID runId = new UUID(streamSeed, 42);
        for (int t = 0; t < tables; t++) {
            shapes.add(new DebeziumEvents(server, tableName(t), runId));
        }
        TestRegistry registry = f == Format.AVRO ? new TestRegistry() : null;
        try {
            ChangeWire wire = f == Format.AVRO ? new ChangeWire.Avro(registry) : new ChangeWire.Json();
            List<String> cdcTopics = new ArrayList<>();
            List<String> rowTopics = new ArrayList<>();
            for (DebeziumEvents s : shapes) {
                cdcTopics.add(s.topic);
                rowTopics.add(server + ".rows." + s.table);
                stack.kafka().createTopic(s.topic, 2);
                stack.kafka().createTopic(server + ".rows." + s.table, 2);
            }
            System.out.printf("V (%s, %d%% of updates with the TOAST placeholder)%s: producing %,d change events of %d"
                    + " tables to %s.public.*, and their flat rows to %s.rows.*...%n", f.description, toastPercent,
                    timed ? "" : ", warm-up", eventCount, tables, server, server);
            Produced produced = produce(stream, shapes, wire, rowTopics);
            ChangeStream.Counts counts = stream.counts;
            System.out.printf("    %s; produced in %.1f s (not timed): %.0f + %.0f bytes per CDC record (key + value,"
                    + " headers %.0f), %.0f per flat-row record%n", counts, produced.seconds,
                    produced.cdcKeyBytes / (double) counts.records(), produced.cdcValueBytes / (double) counts.records(),
                    produced.cdcHeaderBytes / (double) counts.records(),
                    (produced.rowKeyBytes + produced.rowValueBytes) / (double) counts.records());

            List<SinkBenchReport.Path> out = new ArrayList<>();
            String tag = prefix + "_v_" + f.id + idSuffix.replace('-', '_') + (timed ? "" : "_warmup");
            // CDC
            List<String> cdcTables = new ArrayList<>();
            for (DebeziumEvents s : shapes) {
                cdcTables.add(createCdcTable(tag + "_cdc_" + s.table));
            }
            String cdcCounter = counter(tag + "_cdc_inserted", cdcTables);
            Map<String, String> cdcConfig = config("clickhouse-sink-cdc.json", cdcTopics, cdcTables, f, registry, true);
            Measured cdc = measure(server + "-cdc", cdcConfig, cdcCounter, counts.events, "CDC");
            SinkBenchReport.Check cdcCheck = checkCdc(stream, cdcTables);
            long[] cdcLive = liveDiff(stream, cdcTables, deleted);
            System.out.printf("    ours: %,d live rows hold the placeholder, %,d rows differ from the source%n", cdcLive[0],
                    cdcLive[1]);
            cdc = finish(cdc);
            if (timed) {
                SinkBenchReport.Path p = path("V-" + f.id + "-debezium" + idSuffix, "change events, " + f.shortName
                        + ", cdc.mode=debezium", counts, cdc, produced, true, toastPercent);
                p.details.put("livePlaceholders", cdcLive[0]);
                p.details.put("liveRowsDiffering", cdcLive[1]);
                p.check = cdcCheck;
                out.add(p);
            }
            dropAll(cdcCounter, cdcTables);
            // The official connector, on the same CDC topics (JSON only: its plugin reads them with JsonConverter)
            if (official && f == Format.JSON) {
                SinkBenchReport.Path p = runOfficial(server, tag, shapes, cdcTopics, stream, produced, toastPercent,
                        idSuffix, timed, cdc.nanos());
                if (p != null) {
                    out.add(p);
                }
            }
            if (floor) {
                SinkBenchReport.Path p = runFloor(server, tag, f, registry, shapes, cdcTopics, counts, produced,
                        toastPercent, idSuffix, cdc.nanos());
                if (timed) {
                    out.add(p);
                }
            }
            // Append
            List<String> rowTables = new ArrayList<>();
            for (DebeziumEvents s : shapes) {
                rowTables.add(createRowTable(tag + "_app_" + s.table));
            }
            String rowCounter = counter(tag + "_app_inserted", rowTables);
            Map<String, String> rowConfig = config(f == Format.AVRO ? "clickhouse-sink-avro.json" : "clickhouse-sink.json",
                    rowTopics, rowTables, f, registry, false);
            Measured app = measure(server + "-append", rowConfig, rowCounter, counts.records(), "append");
            SinkBenchReport.Check rowCheck = checkRows(rowTables, produced.recordsByTable);
            app = finish(app);
            if (timed) {
                SinkBenchReport.Path p = path("V-" + f.id + "-none" + idSuffix, "the same records as flat rows, "
                        + f.shortName + ", cdc.mode=none", counts, app, produced, false, toastPercent);
                p.check = rowCheck;
                out.add(p);
            }
            dropAll(rowCounter, rowTables);
            for (int t = 0; t < tables; t++) {
                stack.kafka().deleteTopic(cdcTopics.get(t));
                stack.kafka().deleteTopic(rowTopics.get(t));
            }
            if (!timed) {
                System.out.printf("    warm-up done: %s, %s (not reported)%n", cdcCheck.ok() ? "CDC check equal"
                        : "CDC check differs", rowCheck.ok() ? "append check equal" : "append check differs");
            }
            return out;
        } finally {
            if (registry != null) {
                registry.close();
            }
        }
    }

    /** The floor ({@link #floorToo}): timed until its tables hold one row per change event. */
    private SinkBenchReport.Path runFloor(String server, String tag, Format f, TestRegistry registry,
            List<DebeziumEvents> shapes, List<String> cdcTopics, ChangeStream.Counts counts, Produced produced,
            int toastPercent, String idSuffix, long oursNanos) throws IOException {
        List<String> targets = new ArrayList<>();
        for (DebeziumEvents s : shapes) {
            String name = tag + "_floor_" + s.table;
            http().exec("DROP TABLE IF EXISTS " + q(name) + " SYNC");
            http().exec("CREATE TABLE " + q(name) + " (`op` String, `ts_ms` Int64) ENGINE = MergeTree ORDER BY tuple()");
            targets.add(name);
        }
        String counter = counter(tag + "_floor_inserted", targets);
        Map<String, String> config = config("clickhouse-sink-cdc.json", cdcTopics, targets, f, registry, true);
        config.keySet().removeIf(k -> k.startsWith("cdc."));
        config.put("cdc.mode", "none");
        config.put("tombstones.behavior", "skip");
        Measured m = finish(measure(server + "-floor", config, counter, counts.events, "floor"));
        System.out.printf("    V, %s, %d%% TOAST: change events/s ours %,.0f, floor %,.0f (ours takes %.2f times the"
                + " floor's %.2f s)%n", f.id, toastPercent, counts.events / (oursNanos / 1e9),
                counts.events / (m.nanos() / 1e9), oursNanos / (double) m.nanos(), m.nanos() / 1e9);
        SinkBenchReport.Path p = path("V-" + f.id + "-floor" + idSuffix, "the same change events, " + f.shortName
                + ", cdc.mode=none into two columns (op, ts_ms)", counts, m, produced, true, toastPercent);
        long rows = counterBlocks(counter)[1];
        p.check = new SinkBenchReport.Check(String.join(",", targets), rows, rows + " rows", counts.events + " rows",
                rows == counts.events);
        dropAll(counter, targets);
        return p;
    }

    /**
     * The official connector over the CDC topics with {@code debeziumCDCEnabled=true}, into tables of its own: the
     * same columns as ours, {@code _version UInt64} and {@code is_deleted UInt8}, ReplacingMergeTree(_version,
     * is_deleted). Timed until its counter reaches the rows it writes (one per change event; tombstones write none),
     * then checked ({@link #checkOfficial}; a difference does not fail the run). A failure of the connector (or rows
     * that never come) is printed, not thrown: null then.
     */
    private SinkBenchReport.Path runOfficial(String server, String tag, List<DebeziumEvents> shapes,
            List<String> cdcTopics, ChangeStream stream, Produced produced, int toastPercent, String idSuffix,
            boolean timed, long oursNanos) {
        ChangeStream.Counts counts = stream.counts;
        List<String> targets = new ArrayList<>();
        for (DebeziumEvents s : shapes) {
            targets.add(createOfficialTable(tag + "_off_" + s.table));
        }
        String counter = counter(tag + "_off_inserted", targets);
        Map<String, String> config = ManyTablesPath.officialConfig(stack, db, cdcTopics, targets, tasks);
        config.put("debeziumCDCEnabled", "true");
        // It reads no header: skip parsing them, as config/clickhouse-sink-cdc.json has ours do.
        config.put("header.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        String connector = server + "-official";
        SinkBenchReport.Path p = null;
        long logMark = logSize();
        try {
            Measured m = measure(connector, config, counter, counts.events, "official");
            stack.connect().rest().deleteConnector(connector);
            OfficialCheck check = checkOfficial(stream, targets);
            long[] blocks = counterBlocks(counter);
            double ours = counts.events / (oursNanos / 1e9);
            double theirs = counts.events / (m.nanos() / 1e9);
            System.out.printf("    V, JSON, %d%% TOAST: change events/s ours %,.0f, official %,.0f, ours/official = %.2f"
                    + " (%,d events, %.2f s against %.2f s)%n", toastPercent, ours, theirs, ours / theirs, counts.events,
                    oursNanos / 1e9, m.nanos() / 1e9);
            if (timed) {
                p = path("V-json-official" + idSuffix, "the same change events, JSON, the official connector 1.5.0,"
                        + " debeziumCDCEnabled=true", counts, m, produced, true, toastPercent);
                p.check = check.check();
                p.checkFailsRun = false;
                p.details.put("rowsWritten", blocks[1]);
                p.details.put("blocksInserted", blocks[0]);
                p.details.put("rowsPerBlock", blocks[0] > 0 ? (double) blocks[1] / blocks[0] : Double.NaN);
                p.details.put("livePlaceholders", check.live()[0]);
                p.details.put("liveRowsDiffering", check.live()[1]);
                p.details.put("liveRowsLastUpdatedWithPlaceholder", check.live()[2]);
            }
        } catch (AssertionError | RuntimeException | IOException e) {
            System.out.printf("    official: FAILED (%s); its figures are left out, the run goes on%n", e.getMessage());
            try {
                stack.connect().rest().deleteConnector(connector);
            } catch (RuntimeException ignored) {
                // already gone
            }
        }
        String[] log = workerLogLines(connector, logMark);
        System.out.printf("    official: worker log %s WARN and %s ERROR lines of its tasks%s%n", log[0], log[1],
                log[2].isEmpty() ? "" : "; first kinds:" + log[2]);
        if (p != null) {
            p.details.put("workerLogWarnLines", Long.parseLong(log[0]));
            p.details.put("workerLogErrorLines", Long.parseLong(log[1]));
        }
        dropAll(counter, targets);
        return p;
    }

    private SinkBenchReport.Path path(String id, String what, ChangeStream.Counts counts, Measured m, Produced produced,
            boolean cdc, int toastPercent) {
        SinkBenchReport.Path p = new SinkBenchReport.Path(id, what + ", " + tables + " tables x 2 partitions, tasks.max="
                + tasks + (granularity > 0 ? ", index_granularity " + granularity : ""), counts.records(), m.nanos() / 1e9,
                "worker", m.workerCpu(), m.serverCpu());
        p.details.put("tables", tables);
        p.details.put("indexGranularity", granularity);
        p.details.put("toastPercent", toastPercent);
        p.details.put("changeEvents", counts.events);
        p.details.put("tombstones", counts.tombstones);
        p.details.put("records", counts.records());
        Map<String, Object> mix = new LinkedHashMap<>();
        mix.put("snapshotReads", counts.reads);
        mix.put("updates", counts.updates);
        mix.put("toastPlaceholderUpdates", counts.toastUpdates);
        mix.put("inserts", counts.inserts);
        mix.put("deletes", counts.deletes);
        mix.put("primaryKeyUpdates", counts.keyChanges);
        mix.put("transactions", counts.transactions);
        p.details.put("mix", mix);
        long keyBytes = cdc ? produced.cdcKeyBytes : produced.rowKeyBytes;
        long valueBytes = cdc ? produced.cdcValueBytes : produced.rowValueBytes;
        p.details.put("kafkaKeyBytesPerRecord", keyBytes / (double) counts.records());
        p.details.put("kafkaValueBytesPerRecord", valueBytes / (double) counts.records());
        p.details.put("kafkaHeaderBytesPerRecord", cdc ? produced.cdcHeaderBytes / (double) counts.records() : 0.0);
        p.details.put("produceSecondsNotTimed", produced.seconds);
        if (m.firstRowNanos() > 0) {
            p.details.put("firstRowSeconds", m.firstRowNanos() / 1e9);
            if (m.nanos() - m.firstRowNanos() >= 100_000_000L) { // else the rows came in one go: no rate to speak of
                p.details.put("rowsPerSecondAfterFirstRow", counts.records() / ((m.nanos() - m.firstRowNanos()) / 1e9));
            }
        }
        if (m.tasksLogged() < 0) {
            return p; // the official connector: no stop lines of ours
        }
        p.details.put("tasksLogged", m.tasksLogged());
        p.details.put("recordsReceivedByTasks", m.recordsReceived());
        p.details.put("rowsInsertedByTasks", m.rowsInserted());
        p.details.put("blocksInserted", m.blocks());
        p.details.put("rowsPerBlock", m.blocks() > 0 ? (double) m.rowsInserted() / m.blocks() : Double.NaN);
        p.details.put("recordsWithoutRow", m.withoutRow());
        p.details.put("currentRowReads", m.reads());
        p.details.put("currentRowReadMs", m.readMs());
        p.details.put("currentRowCacheHits", m.cacheHits());
        p.details.put("pollsHeldForReads", m.pollsHeld());
        return p;
    }

    // ---------------------------------------------------------------- producing

    /** What went to Kafka. */
    static final class Produced {
        long cdcKeyBytes;
        long cdcValueBytes;
        long cdcHeaderBytes;
        long rowKeyBytes;
        long rowValueBytes;
        long[] recordsByTable;
        double seconds;
    }

    private Produced produce(ChangeStream stream, List<DebeziumEvents> shapes, ChangeWire wire, List<String> rowTopics) {
        Produced p = new Produced();
        p.recordsByTable = new long[tables];
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(1 << 20));
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, String.valueOf(128L << 20));
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        AtomicReference<Exception> failed = new AtomicReference<>();
        long t0 = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            stream.generate(c -> {
                DebeziumEvents s = shapes.get(c.table());
                Struct keyStruct = s.key(c.id());
                byte[] key = wire.key(s, s.topic, keyStruct);
                byte[] value = c.op() == 't' ? null : wire.value(s, s.topic, s.envelope(c));
                List<org.apache.kafka.common.header.Header> headers = wire.headers(s.topic, s.headers(c));
                p.cdcKeyBytes += key.length;
                p.cdcValueBytes += value == null ? 0 : value.length;
                for (org.apache.kafka.common.header.Header h : headers) {
                    p.cdcHeaderBytes += h.key().length() + (h.value() == null ? 0 : h.value().length);
                }
                producer.send(new ProducerRecord<>(s.topic, null, null, key, value, headers), (md, e) -> {
                    if (e != null) {
                        failed.compareAndSet(null, e);
                    }
                });
                String rowTopic = rowTopics.get(c.table());
                byte[] rowKey = wire.key(s, rowTopic, keyStruct);
                byte[] row = wire.value(s, rowTopic, c.row() == null ? s.flatDelete(c.id()) : s.flatRow(c.row()));
                p.rowKeyBytes += rowKey.length;
                p.rowValueBytes += row.length;
                p.recordsByTable[c.table()]++;
                producer.send(new ProducerRecord<>(rowTopic, null, rowKey, row), (md, e) -> {
                    if (e != null) {
                        failed.compareAndSet(null, e);
                    }
                });
            });
            producer.flush();
        }
        if (failed.get() != null) {
            // Sending again would change the order of a key's changes (a TOAST fill reads the change before it).
            throw new IllegalStateException("the broker did not acknowledge every record of path V", failed.get());
        }
        p.seconds = (System.nanoTime() - t0) / 1e9;
        return p;
    }

    // ---------------------------------------------------------------- tables

    private ClickHouseHttp http() {
        return stack.clickhouse().http();
    }

    private String q(String table) {
        return EventsTable.qualified(db, table);
    }

    private static String columns(boolean nullable) {
        StringBuilder sb = new StringBuilder();
        for (String[] c : DebeziumEvents.COLUMNS) {
            String type = c[2];
            if (nullable && !c[0].equals("id") && !type.startsWith("Nullable(")) {
                type = "Nullable(" + type + ")";
            }
            sb.append(EventsTable.quote(c[0])).append(' ').append(type).append(", ");
        }
        return sb.toString();
    }

    /** The ReplacingMergeTree of docs/cdc.md, with the version and deleted columns the CDC example names. */
    private String createCdcTable(String name) {
        Map<String, String> example = ConnectorConfigs.load("clickhouse-sink-cdc.json", Map.of());
        String version = EventsTable.quote(example.getOrDefault("cdc.version.column", "_version"));
        deleted = EventsTable.quote(example.getOrDefault("cdc.deleted.column", "_is_deleted"));
        http().exec("DROP TABLE IF EXISTS " + q(name) + " SYNC");
        http().exec("CREATE TABLE " + q(name) + " (" + columns(false) + version + " UInt64, " + deleted + " UInt8)"
                + " ENGINE = ReplacingMergeTree(" + version + ", " + deleted + ") ORDER BY `id`" + tableSettings());
        return name;
    }

    /**
     * The official connector's target: our CDC table's columns (a delete's {@code before} carries the key and
     * Debezium's fallbacks for the NOT NULL columns, {@code note} null: they fit), and the columns its
     * DebeziumRecordConvertor adds, {@code _version UInt64} (source.lsn) and {@code is_deleted UInt8}.
     */
    private String createOfficialTable(String name) {
        http().exec("DROP TABLE IF EXISTS " + q(name) + " SYNC");
        http().exec("CREATE TABLE " + q(name) + " (" + columns(false) + OFFICIAL_VERSION + " UInt64, " + OFFICIAL_DELETED
                + " UInt8) ENGINE = ReplacingMergeTree(" + OFFICIAL_VERSION + ", " + OFFICIAL_DELETED + ") ORDER BY `id`"
                + tableSettings());
        return name;
    }

    /** The columns the official connector's DebeziumRecordConvertor writes the version and the delete flag to. */
    private static final String OFFICIAL_VERSION = "`_version`";
    private static final String OFFICIAL_DELETED = "`is_deleted`";

    /** The SETTINGS clause of both paths' tables: --cdc-granularity, or none. */
    private String tableSettings() {
        return granularity > 0 ? " SETTINGS index_granularity = " + granularity : "";
    }

    /** The deleted column of the CDC tables, quoted. */
    private String deleted = "`_is_deleted`";

    private String createRowTable(String name) {
        http().exec("DROP TABLE IF EXISTS " + q(name) + " SYNC");
        String cols = columns(true);
        http().exec("CREATE TABLE " + q(name) + " (" + cols.substring(0, cols.length() - 2) + ")"
                + " ENGINE = MergeTree ORDER BY `id`" + tableSettings());
        return name;
    }

    /** A counter's blocks (its rows: one per inserted block) and rows (the sum). */
    private long[] counterBlocks(String counter) {
        String[] f = http().scalar("SELECT count(), sum(`n`) FROM " + q(counter)).split("\t");
        return new long[] {Long.parseLong(f[0].trim()), Long.parseLong(f[1].trim())};
    }

    /**
     * The worker log's WARN and ERROR lines of {@code connector}'s tasks since {@code logMark}: their counts and the
     * first three kinds (the message with digits elided, at most 160 characters).
     */
    private String[] workerLogLines(String connector, long logMark) {
        long warn = 0;
        long error = 0;
        java.util.LinkedHashSet<String> kinds = new java.util.LinkedHashSet<>();
        try {
            byte[] all = Files.readAllBytes(stack.connect().logFile());
            String tail = new String(all, (int) Math.min(logMark, all.length), (int) Math.max(0, all.length - logMark),
                    StandardCharsets.UTF_8);
            String tag = " [" + connector + "|";
            for (String line : tail.split("\n")) {
                int at = line.indexOf(tag);
                if (at < 0) {
                    continue;
                }
                boolean w = line.contains("] WARN [");
                boolean e = line.contains("] ERROR [");
                warn += w ? 1 : 0;
                error += e ? 1 : 0;
                if ((w || e) && kinds.size() < 3) {
                    String msg = line.substring(line.indexOf(']', at + tag.length()) + 1).trim().replaceAll("\\d+", "N");
                    kinds.add((e ? "ERROR " : "WARN ") + (msg.length() > 160 ? msg.substring(0, 160) + "..." : msg));
                }
            }
        } catch (IOException | RuntimeException e) {
            return new String[] {"?", "?", ""};
        }
        StringBuilder sb = new StringBuilder();
        kinds.forEach(k -> sb.append("\n      ").append(k));
        return new String[] {Long.toString(warn), Long.toString(error), sb.toString()};
    }

    /** A counter table and, per target table, a materialized view adding each inserted block's row count to it. */
    private String counter(String name, List<String> targets) {
        http().exec("DROP TABLE IF EXISTS " + q(name) + " SYNC");
        http().exec("CREATE TABLE " + q(name) + " (`n` UInt64) ENGINE = MergeTree ORDER BY tuple()");
        for (String t : targets) {
            http().exec("DROP VIEW IF EXISTS " + q(t + "_mv") + " SYNC");
            http().exec("CREATE MATERIALIZED VIEW " + q(t + "_mv") + " TO " + q(name) + " AS SELECT count() AS `n` FROM "
                    + q(t));
        }
        return name;
    }

    private void dropAll(String counter, List<String> targets) {
        for (String t : targets) {
            http().exec("DROP VIEW IF EXISTS " + q(t + "_mv") + " SYNC");
        }
        if (keepTables) {
            return;
        }
        for (String t : targets) {
            http().exec("DROP TABLE IF EXISTS " + q(t) + " SYNC");
        }
        http().exec("DROP TABLE IF EXISTS " + q(counter) + " SYNC");
    }

    // ---------------------------------------------------------------- connectors

    private Map<String, String> config(String example, List<String> topics, List<String> targets, Format f,
            TestRegistry registry, boolean cdc) {
        Map<String, String> overrides = new HashMap<>();
        overrides.put("topics", String.join(",", topics));
        List<String> map = new ArrayList<>();
        for (int t = 0; t < topics.size(); t++) {
            map.add(topics.get(t) + ":" + targets.get(t));
        }
        overrides.put("topic.to.table.map", String.join(",", map));
        overrides.put("tasks.max", Integer.toString(tasks));
        overrides.put("clickhouse.url", stack.clickhouseUrl());
        overrides.put("clickhouse.user", stack.clickhouse().user());
        overrides.put("clickhouse.password", stack.clickhouse().password());
        overrides.put("clickhouse.database", db);
        Map<String, String> config = ConnectorConfigs.load(example, overrides);
        config.remove("name");
        if (f == Format.AVRO) {
            String avro = ConnectorConfigs.load("clickhouse-sink-avro.json", Map.of()).get("value.converter");
            if (cdc) {
                // The CDC example's converters are JSON ones; Avro reads keys and values with the plugin's AvroConverter.
                config.keySet().removeIf(k -> k.startsWith("key.converter") || k.startsWith("value.converter"));
                config.put("key.converter", avro);
                config.put("key.converter.schema.registry.url", registry.url());
                config.put("value.converter", avro);
            }
            config.put("value.converter.schema.registry.url", registry.url());
        }
        config.putAll(oursProps);
        return config;
    }

    /** ClickHouse's global counters of queries, reads, inserts, merges and CPU (for --profile). */
    private Map<String, Long> serverEvents() {
        Map<String, Long> m = new java.util.HashMap<>();
        for (String line : http().query("SELECT event, value FROM system.events WHERE event IN ('Query', 'SelectQuery',"
                + " 'InsertQuery', 'InsertedRows', 'SelectedRows', 'SelectedBytes', 'SelectedMarks', 'SelectedParts',"
                + " 'SelectedRanges', 'ReadCompressedBytes', 'CompressedReadBufferBytes', 'Merge', 'MergedRows',"
                + " 'MergedUncompressedBytes', 'MergeTotalMilliseconds', 'UserTimeMicroseconds', 'SystemTimeMicroseconds',"
                + " 'OSCPUVirtualTimeMicroseconds', 'QueryTimeMicroseconds', 'SelectQueryTimeMicroseconds',"
                + " 'InsertQueryTimeMicroseconds') FORMAT TabSeparated").split("\n")) {
            String[] f = line.split("\t");
            if (f.length == 2) {
                m.put(f[0], Long.parseLong(f[1]));
            }
        }
        return m;
    }

    /** With --profile: each timed run records a JFR file of the worker into {@code dir} and prints its breakdown. */
    void profileTo(Path dir) {
        this.profileDir = dir;
    }

    private Measured measure(String connector, Map<String, String> config, String counter, long expectedRows,
            String what) throws IOException {
        long workerPid = stack.connect().pid();
        EndToEndPath.Jfr jfr = profileDir != null && workerPid > 0 ? EndToEndPath.Jfr.start(workerPid) : null;
        Map<String, Long> events0 = profileDir != null ? serverEvents() : null;
        ProcessCpu workerCpu = ProcessCpu.ofPid(workerPid);
        ProcessCpu serverCpu = ProcessCpu.ofClickHouse(stack.clickhouse().httpPort());
        ProcessCpu brokerCpu = ProcessCpu.ofPid(stack.kafka().pid());
        long logMark = logSize();
        ProcessCpu.Sample w0 = workerCpu.sample();
        ProcessCpu.Sample s0 = serverCpu.sample();
        ProcessCpu.Sample b0 = brokerCpu.sample();
        Map<Long, Map.Entry<String, Long>> threads0 = workerCpu.threads();
        long start = System.nanoTime();
        stack.connect().rest().putConnectorConfig(connector, config);
        RowWatcher watcher = new RowWatcher(http(), q(counter), "sum(`n`)");
        long[] lastPrint = {start};
        watcher.awaitRows(expectedRows, Duration.ofMinutes(60), Duration.ofMinutes(3),
                EndToEndPath.everyFewSeconds(new ConnectorFailure(stack.connect().rest(), connector)),
                (landed, rate) -> {
                    long now = System.nanoTime();
                    if (now - lastPrint[0] >= 10_000_000_000L) {
                        lastPrint[0] = now;
                        System.out.printf("    %s rows landed: %,d / %,d (%,d rows/s)%n", what, landed, expectedRows,
                                rate);
                    }
                });
        long nanos = System.nanoTime() - start;
        if (jfr != null) {
            Path file = profileDir.resolve("worker-v-" + connector + ".jfr");
            jfr.dump(file);
            JfrBreakdown b = JfrBreakdown.of(file);
            System.out.printf("    %s profile (%s): %s%n", what, file, b.json());
        }
        if (events0 != null) {
            Map<String, Long> d = new java.util.TreeMap<>();
            serverEvents().forEach((k, v) -> {
                long x = v - events0.getOrDefault(k, 0L);
                if (x != 0) {
                    d.put(k, x);
                }
            });
            System.out.printf("    %s ClickHouse system.events during the run: %s%n", what, d);
        }
        ProcessCpu.Sample wUsed = workerCpu.sample().minus(w0);
        ProcessCpu.Sample sUsed = serverCpu.sample().minus(s0);
        ProcessCpu.Sample bUsed = brokerCpu.sample().minus(b0);
        System.out.printf("    %s worker CPU s by thread: %s%n", what, threadSeconds(threads0, workerCpu.threads()));
        long firstRow = watcher.firstRowNanos() < 0 ? -1 : watcher.firstRowNanos() - start;
        System.out.printf("    %s: %,d rows in %.2f s = %,.0f rows/s; worker %.2f CPU s, ClickHouse %.2f CPU s, broker %.2f"
                + " CPU s%n", what, expectedRows, nanos / 1e9, expectedRows / (nanos / 1e9), wUsed.seconds(),
                sUsed.seconds(), bUsed.seconds());
        return new Measured(connector, logMark, nanos, firstRow, wUsed, sUsed, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    }

    /**
     * The worker's CPU seconds from {@code before} to {@code after} (samples by thread id) by the threads' names at
     * the end, grouped as the task threads ({@code task-thread-*}, or {@code pool-*} between tasks: poll, convert,
     * put), the JIT compilers, the garbage collector's threads, and the rest by name with digits as N. Threads that
     * ended in between are missing.
     */
    static String threadSeconds(Map<Long, Map.Entry<String, Long>> before, Map<Long, Map.Entry<String, Long>> after) {
        Map<String, Long> groups = new java.util.LinkedHashMap<>();
        groups.put("tasks", 0L);
        groups.put("JIT", 0L);
        groups.put("GC", 0L);
        after.forEach((tid, t) -> {
            Map.Entry<String, Long> b = before.get(tid);
            long used = t.getValue() - (b == null ? 0L : b.getValue());
            if (used <= 0) {
                return;
            }
            String name = t.getKey();
            String g = name.startsWith("task-thread") || name.startsWith("pool-") ? "tasks"
                    : name.contains("Compiler") ? "JIT"
                    : name.startsWith("GC ") || name.startsWith("G1 ") || name.startsWith("VM Thread") ? "GC"
                    : name.replaceAll("[0-9]+", "N");
            groups.merge(g, used, Long::sum);
        });
        StringBuilder b = new StringBuilder();
        groups.entrySet().stream().sorted((x, y) -> Long.compare(y.getValue(), x.getValue()))
                .filter(e -> e.getValue() >= 50_000_000L).forEach(e -> b.append(b.length() == 0 ? "" : ", ")
                        .append(e.getKey()).append(' ').append(String.format("%.2f", e.getValue() / 1e9)));
        return b.toString();
    }

    /** Deletes the measured connector and completes its figures from its tasks' stop lines. */
    private Measured finish(Measured m) {
        String connector = m.connector();
        long logMark = m.logMark();
        stack.connect().rest().deleteConnector(connector);
        long[] sums = new long[8];
        int logged = 0;
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (stack.connect().pid() > 0 && System.nanoTime() < deadline) {
            try {
                byte[] all = Files.readAllBytes(stack.connect().logFile());
                String tail = new String(all, (int) Math.min(logMark, all.length),
                        (int) Math.max(0, all.length - logMark), StandardCharsets.UTF_8);
                java.util.Arrays.fill(sums, 0);
                logged = 0;
                for (String line : tail.split("\n")) {
                    Matcher x = STOPPED.matcher(line);
                    if (line.contains("[" + connector + "|task-") && x.find()) {
                        for (int g = 0; g < sums.length; g++) {
                            sums[g] += x.group(g + 1) == null ? 0 : Long.parseLong(x.group(g + 1));
                        }
                        logged++;
                    }
                }
                if (logged >= tasks) {
                    break;
                }
                Thread.sleep(500);
            } catch (IOException e) {
                break;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (logged < tasks) {
            System.out.printf("    (only %d of %d tasks of %s logged their stop line within 30 s)%n", logged, tasks,
                    connector);
        }
        return new Measured(connector, logMark, m.nanos(), m.firstRowNanos(), m.workerCpu(), m.serverCpu(), sums[0],
                sums[1], sums[2], sums[3], sums[4], sums[5], sums[6], sums[7], logged);
    }

    private long logSize() {
        try {
            return stack.connect().pid() > 0 ? Files.size(stack.connect().logFile()) : 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    // ---------------------------------------------------------------- checks

    /** The CDC tables against the generator's final state; retried for up to 30 s while rows may still land. */
    private SinkBenchReport.Check checkCdc(ChangeStream stream, List<String> targets) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        SinkBenchReport.Check c;
        while (true) {
            c = cdcOnce(stream, targets);
            if (c.ok() || System.nanoTime() > deadline) {
                break;
            }
            sleep(1000);
        }
        System.out.printf("    CDC check: %s %s%n", c.line(), c.ok() ? "= expected" : "!= expected " + c.expected());
        return c;
    }

    private SinkBenchReport.Check cdcOnce(ChangeStream stream, List<String> targets) {
        long rows = 0;
        long wantRows = 0;
        long hash = 0;
        long wantHash = 0;
        long filled = 0;
        long wantFilled = 0;
        long filledHash = 0;
        long wantFilledHash = 0;
        long placeholders = 0;
        boolean ok = true;
        for (int t = 0; t < targets.size(); t++) {
            String target = q(targets.get(t));
            String[] got = http().scalar("SELECT count(), sum(reinterpretAsUInt64(MD5(" + ChangeStream.ROW_LINE_SQL
                    + "))) FROM " + target + " FINAL WHERE " + deleted + " = 0").split("\t");
            ChangeStream.Fingerprint want = stream.expectedRows(t);
            long gotRows = Long.parseLong(got[0]);
            long gotHash = Long.parseUnsignedLong(got[1]);
            ChangeStream.Fingerprint wantToast = stream.expectedFilled(t);
            String ids = targets.get(t) + "_toast_ids";
            http().exec("DROP TABLE IF EXISTS " + q(ids) + " SYNC");
            http().exec("CREATE TABLE " + q(ids) + " (`id` Int64) ENGINE = MergeTree ORDER BY `id`");
            StringBuilder body = new StringBuilder("INSERT INTO " + q(ids) + " FORMAT TabSeparated\n");
            stream.state.get(t).filled.keySet().forEach(id -> body.append(id).append('\n'));
            http().exec(body.toString());
            String[] toast = http().scalar("SELECT count(), sum(reinterpretAsUInt64(MD5(concat(toString(`id`), '|',"
                    + " `body`)))) FROM " + target + " FINAL WHERE " + deleted + " = 0 AND `id` IN (SELECT `id` FROM "
                    + q(ids) + ")").split("\t");
            http().exec("DROP TABLE " + q(ids) + " SYNC");
            long gotFilled = Long.parseLong(toast[0]);
            long gotFilledHash = Long.parseUnsignedLong(toast[1]);
            long ph = Long.parseLong(http().scalar("SELECT count() FROM " + target + " WHERE `body` = '"
                    + DebeziumEvents.PLACEHOLDER + "'"));
            ok &= gotRows == want.rows() && gotHash == want.hash() && gotFilled == wantToast.rows()
                    && gotFilledHash == wantToast.hash() && ph == 0;
            rows += gotRows;
            wantRows += want.rows();
            hash += gotHash;
            wantHash += want.hash();
            filled += gotFilled;
            wantFilled += wantToast.rows();
            filledHash += gotFilledHash;
            wantFilledHash += wantToast.hash();
            placeholders += ph;
        }
        String line = "FINAL rows=" + rows + " hash=" + Long.toUnsignedString(hash, 16) + " toastFilled=" + filled
                + " hash=" + Long.toUnsignedString(filledHash, 16) + " placeholders=" + placeholders;
        String expected = "FINAL rows=" + wantRows + " hash=" + Long.toUnsignedString(wantHash, 16) + " toastFilled="
                + wantFilled + " hash=" + Long.toUnsignedString(wantFilledHash, 16) + " placeholders=0";
        return new SinkBenchReport.Check(String.join(",", targets), rows, line, expected, ok);
    }

    /**
     * Per table, read {@code FINAL} without deleted rows against the generator's final rows, row by row: the live
     * rows holding the TOAST placeholder, the rows that differ (a live row whose canonical text is not the source's,
     * a live row the source does not have, a source row missing); and the generator's live rows whose last update
     * carried the placeholder. {@code deletedColumn}: quoted.
     */
    private long[] liveDiff(ChangeStream stream, List<String> targets, String deletedColumn) {
        long placeholders = 0;
        long differing = 0;
        long toastLast = 0;
        for (int t = 0; t < targets.size(); t++) {
            String target = q(targets.get(t));
            String want = targets.get(t) + "_want";
            http().exec("DROP TABLE IF EXISTS " + q(want) + " SYNC");
            http().exec("CREATE TABLE " + q(want) + " (`id` Int64, `h` UInt64) ENGINE = MergeTree ORDER BY `id`");
            StringBuilder body = new StringBuilder("INSERT INTO " + q(want) + " FORMAT TabSeparated\n");
            stream.state.get(t).rows.values().forEach(r -> body.append(r.id()).append('\t')
                    .append(Long.toUnsignedString(ChangeStream.md5Prefix(ChangeStream.rowLine(r)))).append('\n'));
            http().exec(body.toString());
            differing += Long.parseLong(http().scalar("SELECT count() FROM (SELECT `id`, reinterpretAsUInt64(MD5("
                    + ChangeStream.ROW_LINE_SQL + ")) AS `h` FROM " + target + " FINAL WHERE " + deletedColumn
                    + " = 0) AS g FULL OUTER JOIN " + q(want) + " AS w ON g.`id` = w.`id` WHERE g.`h` != w.`h`"
                    + " SETTINGS join_use_nulls = 0").trim());
            http().exec("DROP TABLE " + q(want) + " SYNC");
            placeholders += Long.parseLong(http().scalar("SELECT count() FROM " + target + " FINAL WHERE "
                    + deletedColumn + " = 0 AND `body` = '" + DebeziumEvents.PLACEHOLDER + "'").trim());
            toastLast += stream.expectedFilled(t).rows();
        }
        return new long[] {placeholders, differing, toastLast};
    }

    /**
     * The official connector's tables against the generator's final rows, as {@link #checkCdc} reads ours ({@code
     * FINAL} without deleted rows, count and hash) and row by row ({@link #liveDiff}); once, its rows being all in.
     * Printed; ok only when equal, but its path's check does not fail the run: the official connector writes the
     * TOAST placeholder as the value, so with placeholders in the stream it is expected to differ.
     */
    private OfficialCheck checkOfficial(ChangeStream stream, List<String> targets) {
        long rows = 0;
        long hash = 0;
        long wantRows = 0;
        long wantHash = 0;
        for (int t = 0; t < targets.size(); t++) {
            String[] got = http().scalar("SELECT count(), sum(reinterpretAsUInt64(MD5(" + ChangeStream.ROW_LINE_SQL
                    + "))) FROM " + q(targets.get(t)) + " FINAL WHERE " + OFFICIAL_DELETED + " = 0").split("\t");
            rows += Long.parseLong(got[0].trim());
            hash += Long.parseUnsignedLong(got[1].trim());
            ChangeStream.Fingerprint want = stream.expectedRows(t);
            wantRows += want.rows();
            wantHash += want.hash();
        }
        long[] officialLive = liveDiff(stream, targets, OFFICIAL_DELETED);
        boolean ok = rows == wantRows && hash == wantHash && officialLive[0] == 0 && officialLive[1] == 0;
        String line = "FINAL rows=" + rows + " hash=" + Long.toUnsignedString(hash, 16) + " livePlaceholders="
                + officialLive[0] + " differing=" + officialLive[1];
        String expected = "FINAL rows=" + wantRows + " hash=" + Long.toUnsignedString(wantHash, 16)
                + " livePlaceholders=0 differing=0";
        SinkBenchReport.Check c = new SinkBenchReport.Check(String.join(",", targets), rows, line, expected, ok);
        System.out.printf("    official check: %s %s%n", line, ok ? "= expected" : "!= expected " + expected
                + " (not failing the run)");
        System.out.printf("    official: %,d live rows hold the placeholder, %,d rows differ from the source (the"
                + " source has %,d live rows whose last update carried the placeholder)%n", officialLive[0],
                officialLive[1], officialLive[2]);
        return new OfficialCheck(c, officialLive);
    }

    /** {@link #checkOfficial}'s check, and its {@link #liveDiff} figures. */
    private record OfficialCheck(SinkBenchReport.Check check, long[] live) {
    }

    /** Each append table holds exactly one row per record of its topic. */
    private SinkBenchReport.Check checkRows(List<String> targets, long[] recordsByTable) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            long total = 0;
            long want = 0;
            boolean ok = true;
            for (int t = 0; t < targets.size(); t++) {
                long n = Long.parseLong(http().scalar("SELECT count() FROM " + q(targets.get(t))));
                ok &= n == recordsByTable[t];
                total += n;
                want += recordsByTable[t];
            }
            if (ok || System.nanoTime() > deadline || total > want) {
                SinkBenchReport.Check c = new SinkBenchReport.Check(String.join(",", targets), total,
                        "count()=" + total, "count()=" + want, ok);
                System.out.printf("    append check: %s %s%n", c.line(), ok ? "= the records" : "!= " + c.expected());
                return c;
            }
            sleep(1000);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
