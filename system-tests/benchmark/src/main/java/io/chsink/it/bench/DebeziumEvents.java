package io.chsink.it.bench;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.ConnectHeaders;

/**
 * The Connect schemas and values Debezium 3.6.1's PostgreSQL connector (pgoutput, its defaults:
 * {@code decimal.handling.mode=precise}, {@code time.precision.mode=adaptive}, {@code tombstones.on.delete=true},
 * {@code provide.transaction.metadata=false}, {@code extended.headers.enabled=true}) makes for one table of
 * {@link ChangeStream}, built here as Debezium builds them, so that Kafka's JsonConverter and the Avro rules of
 * {@link ConnectAvro} serialize them into what such a source writes. The facts, from Debezium's source at tag
 * v3.6.1.Final:
 * <ul>
 *   <li>key: struct {@code <server>.public.<table>.Key} (required, no version) with the primary-key columns
 *       (relational.TableSchemaBuilder);</li>
 *   <li>value: struct {@code <server>.public.<table>.Envelope}, version 2 (data.Envelope.SCHEMA_VERSION), fields in
 *       the order {@code before}, {@code after} (both the optional struct {@code <server>.public.<table>.Value}, one
 *       field per column, NOT NULL columns required), {@code source}, {@code transaction} (optional struct
 *       {@code event.block} version 1: id, total_order, data_collection_order; null without transaction metadata),
 *       {@code op} (required string), {@code ts_ms}, {@code ts_us}, {@code ts_ns} (optional int64: the time Debezium
 *       processed the change) (SchemaFactory.datatypeEnvelopeSchema);</li>
 *   <li>source: struct {@code io.debezium.connector.postgresql.Source} version 1: version, connector, name, ts_ms
 *       (required), snapshot (optional string {@code io.debezium.data.Enum} version 1 with parameter
 *       {@code allowed=true,first,first_in_data_collection,last_in_data_collection,last,false,incremental} and
 *       default {@code "false"}; set only for snapshot records), db (required), sequence (optional string, the JSON
 *       array {@code [lastCommitLsn, lsn]}), ts_us, ts_ns, schema, table (required strings), txId, lsn, xmin
 *       (optional int64; xmin null unless xmin.fetch.interval.ms), origin (optional string), origin_lsn (optional
 *       int64) (SchemaFactory.sourceInfoSchemaBuilder, PostgresSourceInfoStructMaker, SourceInfo.sequence);</li>
 *   <li>columns: bigint and int as int64 and int32; numeric(12,2) as {@code org.apache.kafka.connect.data.Decimal}
 *       version 1 with parameters {@code scale=2, connect.decimal.precision=12} (SpecialValueDecimal.builder, precise
 *       mode); timestamp(6) as {@code io.debezium.time.MicroTimestamp} int64 version 1; timestamptz as
 *       {@code io.debezium.time.ZonedTimestamp} string version 1, in UTC with the column's 6 fraction digits
 *       (ZonedTimestamp.toIsoString); text as string; boolean as boolean;</li>
 *   <li>a delete under REPLICA IDENTITY DEFAULT: {@code before} holds the key columns, the other required columns
 *       their converters' fallbacks (0, "", false, 0.00, epoch 0, {@code 1970-01-01T00:00:00Z}) and optional ones
 *       null (PostgresChangeRecordEmitter.columnValues, JdbcValueConverters.convertValue); an update's
 *       {@code before} is null; an unchanged TOASTed text value is {@code __debezium_unavailable_value};</li>
 *   <li>headers: a primary-key update is a delete of the old key carrying header {@code __debezium.newkey} (the new
 *       key Struct), its tombstone with the same headers, and a create of the new key carrying
 *       {@code __debezium.oldkey} (RelationalChangeRecordEmitter.emitUpdateAsPrimaryKeyChangeRecord,
 *       EventDispatcher); every record, snapshot reads and tombstones too, also carries the context headers
 *       {@code __debezium.context.connectorLogicalName}, {@code .taskId} ("0"), {@code .connectorName}
 *       ("postgresql"), {@code .runId} (a UUID) (DebeziumHeaderProducer, extended.headers.enabled=true).</li>
 * </ul>
 * Checked against the real thing once (2026-12-02): Debezium 3.6.1's PostgreSQL connector on PostgreSQL 15 in
 * the stack's worker, a table of these columns, a snapshot of two rows, then an update leaving a 6 KB body alone,
 * an update, a delete, a primary-key update and an insert: the key and envelope schemas JsonConverter wrote were
 * byte for byte the ones written from these Connect schemas, and the payloads and headers had these shapes
 * (placeholder, key-only before with fallbacks, tombstones with their delete's headers, newkey/oldkey,
 * sequence, snapshot markers first/last, context headers on every record).
 */
final class DebeziumEvents {
    static final String VERSION = "3.6.1.Final";
    static final String CONNECTOR = "postgresql";
    static final String DATABASE = "postgres";
    static final String SCHEMA = "public";
    static final String PLACEHOLDER = "__debezium_unavailable_value";
    static final String NEW_KEY_HEADER = "__debezium.newkey";
    static final String OLD_KEY_HEADER = "__debezium.oldkey";
    static final String CONTEXT_HEADER = "__debezium.context.";
    static final String SNAPSHOT_VALUES = "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental";
    static final String MICRO_TIMESTAMP = "io.debezium.time.MicroTimestamp";
    static final String ZONED_TIMESTAMP = "io.debezium.time.ZonedTimestamp";
    private static final DateTimeFormatter ZONED = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX",
            Locale.ROOT).withZone(ZoneOffset.UTC);
    /** Debezium's fallback for a required timestamptz without a value: epoch 0 as ISO_OFFSET_DATE_TIME in UTC. */
    static final String ZONED_FALLBACK = OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC)
            .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);

    /** The source table's columns, in table order: name, PostgreSQL type, ClickHouse type. */
    static final String[][] COLUMNS = {
        {"id", "bigint PRIMARY KEY", "Int64"},
        {"account_id", "int NOT NULL", "Int32"},
        {"quantity", "int NOT NULL", "Int32"},
        {"views", "bigint NOT NULL", "Int64"},
        {"status", "text NOT NULL", "String"},
        {"amount", "numeric(12,2) NOT NULL", "Decimal(12, 2)"},
        {"created", "timestamp(6) NOT NULL", "DateTime64(6, 'UTC')"},
        {"updated", "timestamptz NOT NULL", "DateTime64(6, 'UTC')"},
        {"active", "boolean NOT NULL", "Bool"},
        {"note", "text", "Nullable(String)"},
        {"body", "text NOT NULL", "String"},
    };

    /** One row of the source table. */
    record Row(long id, int accountId, int quantity, long views, String status, BigDecimal amount, long createdMicros,
            long updatedMicros, boolean active, String note, String body) {

        Row withId(long newId) {
            return new Row(newId, accountId, quantity, views, status, amount, createdMicros, updatedMicros, active,
                    note, body);
        }

        Row withBody(String b) {
            return new Row(id, accountId, quantity, views, status, amount, createdMicros, updatedMicros, active, note, b);
        }
    }

    final String server;
    final String table;
    final String topic;
    final Schema keySchema;
    final Schema valueSchema;
    final Schema sourceSchema;
    final Schema envelopeSchema;
    /** The flat row of the append path: the same columns, every one but the key optional (a delete's nulls). */
    final Schema rowSchema;
    private final String runId;

    DebeziumEvents(String server, String table, UUID runId) {
        this.server = server;
        this.table = table;
        this.topic = server + "." + SCHEMA + "." + table;
        this.runId = runId.toString();
        String prefix = server + "." + SCHEMA + "." + table;
        keySchema = SchemaBuilder.struct().name(prefix + ".Key").field("id", Schema.INT64_SCHEMA).build();
        valueSchema = columns(SchemaBuilder.struct().name(prefix + ".Value"), false).optional().build();
        rowSchema = columns(SchemaBuilder.struct().name(server + ".rows." + table + ".Row"), true).build();
        Schema snapshot = SchemaBuilder.string().name("io.debezium.data.Enum").version(1)
                .parameter("allowed", SNAPSHOT_VALUES).defaultValue("false").optional().build();
        sourceSchema = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Source").version(1)
                .field("version", Schema.STRING_SCHEMA)
                .field("connector", Schema.STRING_SCHEMA)
                .field("name", Schema.STRING_SCHEMA)
                .field("ts_ms", Schema.INT64_SCHEMA)
                .field("snapshot", snapshot)
                .field("db", Schema.STRING_SCHEMA)
                .field("sequence", Schema.OPTIONAL_STRING_SCHEMA)
                .field("ts_us", Schema.OPTIONAL_INT64_SCHEMA)
                .field("ts_ns", Schema.OPTIONAL_INT64_SCHEMA)
                .field("schema", Schema.STRING_SCHEMA)
                .field("table", Schema.STRING_SCHEMA)
                .field("txId", Schema.OPTIONAL_INT64_SCHEMA)
                .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
                .field("xmin", Schema.OPTIONAL_INT64_SCHEMA)
                .field("origin", Schema.OPTIONAL_STRING_SCHEMA)
                .field("origin_lsn", Schema.OPTIONAL_INT64_SCHEMA)
                .build();
        Schema block = SchemaBuilder.struct().optional().name("event.block").version(1)
                .field("id", Schema.STRING_SCHEMA)
                .field("total_order", Schema.INT64_SCHEMA)
                .field("data_collection_order", Schema.INT64_SCHEMA)
                .build();
        envelopeSchema = SchemaBuilder.struct().name(prefix + ".Envelope").version(2)
                .field("before", valueSchema)
                .field("after", valueSchema)
                .field("source", sourceSchema)
                .field("transaction", block)
                .field("op", Schema.STRING_SCHEMA)
                .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
                .field("ts_us", Schema.OPTIONAL_INT64_SCHEMA)
                .field("ts_ns", Schema.OPTIONAL_INT64_SCHEMA)
                .build();
    }

    private static SchemaBuilder columns(SchemaBuilder b, boolean allOptional) {
        b.field("id", Schema.INT64_SCHEMA);
        b.field("account_id", allOptional ? Schema.OPTIONAL_INT32_SCHEMA : Schema.INT32_SCHEMA);
        b.field("quantity", allOptional ? Schema.OPTIONAL_INT32_SCHEMA : Schema.INT32_SCHEMA);
        b.field("views", allOptional ? Schema.OPTIONAL_INT64_SCHEMA : Schema.INT64_SCHEMA);
        b.field("status", allOptional ? Schema.OPTIONAL_STRING_SCHEMA : Schema.STRING_SCHEMA);
        SchemaBuilder amount = Decimal.builder(2).parameter("connect.decimal.precision", "12");
        b.field("amount", (allOptional ? amount.optional() : amount).build());
        SchemaBuilder created = SchemaBuilder.int64().name(MICRO_TIMESTAMP).version(1);
        b.field("created", (allOptional ? created.optional() : created).build());
        SchemaBuilder updated = SchemaBuilder.string().name(ZONED_TIMESTAMP).version(1);
        b.field("updated", (allOptional ? updated.optional() : updated).build());
        b.field("active", allOptional ? Schema.OPTIONAL_BOOLEAN_SCHEMA : Schema.BOOLEAN_SCHEMA);
        b.field("note", Schema.OPTIONAL_STRING_SCHEMA);
        b.field("body", allOptional ? Schema.OPTIONAL_STRING_SCHEMA : Schema.STRING_SCHEMA);
        return b;
    }

    static String zoned(long micros) {
        return ZONED.format(Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                Math.floorMod(micros, 1_000_000L) * 1000));
    }

    Struct key(long id) {
        return new Struct(keySchema).put("id", id);
    }

    /** The after image (or a full before image) of a row; {@code toast}: its body as Debezium's placeholder. */
    Struct image(Row r, boolean toast) {
        return fill(new Struct(valueSchema), r, toast);
    }

    private static Struct fill(Struct s, Row r, boolean toast) {
        return s.put("id", r.id()).put("account_id", r.accountId()).put("quantity", r.quantity())
                .put("views", r.views()).put("status", r.status()).put("amount", r.amount())
                .put("created", r.createdMicros()).put("updated", zoned(r.updatedMicros()))
                .put("active", r.active()).put("note", r.note()).put("body", toast ? PLACEHOLDER : r.body());
    }

    /** A delete's before image under REPLICA IDENTITY DEFAULT: the key, the converters' fallbacks, nulls. */
    Struct keyOnlyBefore(long id) {
        return new Struct(valueSchema).put("id", id).put("account_id", 0).put("quantity", 0).put("views", 0L)
                .put("status", "").put("amount", BigDecimal.ZERO.setScale(2)).put("created", 0L)
                .put("updated", ZONED_FALLBACK).put("active", false).put("body", "");
    }

    /** The append path's flat row: the row, or (a delete) the key with every other column null. */
    Struct flatRow(Row r) {
        return fill(new Struct(rowSchema), r, false);
    }

    Struct flatDelete(long id) {
        return new Struct(rowSchema).put("id", id);
    }

    /** The source block of one change. */
    Struct source(ChangeStream.Change c) {
        Struct s = new Struct(sourceSchema)
                .put("version", VERSION)
                .put("connector", CONNECTOR)
                .put("name", server)
                .put("ts_ms", Math.floorDiv(c.sourceMicros(), 1000L))
                .put("db", DATABASE)
                .put("sequence", "[" + (c.lastCommitLsn() < 0 ? "null" : "\"" + c.lastCommitLsn() + "\"") + ",\""
                        + c.lsn() + "\"]")
                .put("ts_us", c.sourceMicros())
                .put("ts_ns", c.sourceMicros() * 1000L)
                .put("schema", SCHEMA)
                .put("table", table)
                .put("txId", c.txId())
                .put("lsn", c.lsn());
        if (c.snapshot() != null) {
            s.put("snapshot", c.snapshot());
        }
        return s;
    }

    /** The envelope of a change event (not a tombstone). */
    Struct envelope(ChangeStream.Change c) {
        Struct e = new Struct(envelopeSchema)
                .put("source", source(c))
                .put("op", Character.toString(c.op()))
                .put("ts_ms", Math.floorDiv(c.processedNanos(), 1_000_000L))
                .put("ts_us", Math.floorDiv(c.processedNanos(), 1000L))
                .put("ts_ns", c.processedNanos());
        switch (c.op()) {
            case 'r', 'c' -> e.put("after", image(c.row(), false));
            case 'u' -> e.put("after", image(c.row(), c.toast()));
            case 'd' -> e.put("before", keyOnlyBefore(c.id()));
            default -> throw new IllegalArgumentException("no envelope for op " + c.op());
        }
        return e;
    }

    /** The Connect headers Debezium puts on a record of this change (tombstones: those of their delete). */
    ConnectHeaders headers(ChangeStream.Change c) {
        ConnectHeaders h = new ConnectHeaders();
        if (c.op() == 'd' && c.otherKey() >= 0) {
            h.add(NEW_KEY_HEADER, key(c.otherKey()), keySchema);
        } else if (c.op() == 'c' && c.otherKey() >= 0) {
            h.add(OLD_KEY_HEADER, key(c.otherKey()), keySchema);
        }
        h.add(CONTEXT_HEADER + "connectorLogicalName", server, Schema.STRING_SCHEMA);
        h.add(CONTEXT_HEADER + "taskId", "0", Schema.STRING_SCHEMA);
        h.add(CONTEXT_HEADER + "connectorName", CONNECTOR, Schema.STRING_SCHEMA);
        h.add(CONTEXT_HEADER + "runId", runId, Schema.STRING_SCHEMA);
        return h;
    }

    /** The source table's DDL (for the javadoc and the report: what the generated events stand for). */
    String postgresDdl() {
        List<String> cols = new ArrayList<>();
        for (String[] c : COLUMNS) {
            cols.add(c[0] + " " + c[1]);
        }
        return "CREATE TABLE " + SCHEMA + "." + table + " (" + String.join(", ", cols) + ")";
    }
}
