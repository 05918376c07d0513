package io.chsink.it.bench;

import static java.lang.invoke.MethodType.methodType;

import com.clickhouse.client.api.Client;
import io.chsink.it.events.Event;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The connector's own encoding path, outside Kafka Connect. Events become SinkRecords with a Struct value, as
 * JsonConverter with {@code schemas.enable=true} makes them (event_time a Connect Timestamp, revenue a Connect
 * Decimal of scale 2); the connector's {@code TableMapping} appends them to {@code NativeBlock}s that are cut where
 * the task cuts them with default settings (flush.max.rows rows or flush.max.bytes of encoded columns, checked after
 * every record; {@link ConnectorDefaults} reads both, and a new block's first capacity, from the connector's classes);
 * the blocks are written back to back as one Native body.
 * <p>
 * The benchmark never compiles against the connector's classes ({@link ConnectorClasses} finds them). They are reached
 * through method handles held in static finals, which the JIT inlines like direct calls, so the timing is the
 * connector's, not the reflection's.
 */
final class ConnectorEncoder {
    static final Schema VALUE_SCHEMA = SchemaBuilder.struct().name("io.chsink.demo.Event")
            .field("event_time", Timestamp.SCHEMA)
            .field("user_id", Schema.INT64_SCHEMA)
            .field("event_type", Schema.STRING_SCHEMA)
            .field("url", Schema.STRING_SCHEMA)
            .field("duration_ms", Schema.INT64_SCHEMA)
            .field("country", Schema.STRING_SCHEMA)
            .field("revenue", Decimal.builder(2).parameter("connect.decimal.precision", "10").build())
            .build();

    /** One encoding pass: the Native body, its block count, and the time spent appending and writing out. */
    record Encoded(byte[] body, int blocks, long appendNanos, long writeNanos) {
    }

    private final Object mapping;

    /** Reads the table's columns from the server with the connector's loader and builds its mapping, as a task does. */
    ConnectorEncoder(Client client, String database, String table) {
        try {
            Object schema = Api.LOAD.invoke(Api.NEW_LOADER.invoke(client), Api.NEW_TABLE_ID.invoke(database, table));
            if (schema == null) {
                throw new IllegalStateException("table " + database + "." + table + " not found");
            }
            mapping = Api.NEW_MAPPING.invoke(schema);
        } catch (Throwable e) {
            throw unchecked(e);
        }
    }

    /** The first {@code count} events of {@code seed} as records of one partition, offsets 0 .. count-1. */
    static List<SinkRecord> records(String topic, long seed, int count) {
        return records(topic, seed, count, 1);
    }

    /**
     * The first {@code count} events of {@code seed}, spread round-robin over {@code partitions} partitions as the
     * benchmark's producer spreads them: event i is in partition i % partitions at offset i / partitions.
     */
    static List<SinkRecord> records(String topic, long seed, int count, int partitions) {
        List<SinkRecord> records = new ArrayList<>(count);
        EventGenerator generator = new EventGenerator(seed);
        for (int i = 0; i < count; i++) {
            records.add(record(topic, i % partitions, i / partitions, generator.next()));
        }
        return records;
    }

    /**
     * The first {@code count} events of {@code seed} as a Connect worker's polls hand them to a task: runs of
     * {@code run} records of one partition, the partitions taking turns (event i is in partition (i / run) %
     * partitions, offsets counting up per partition from 0). The same rows as {@link #records(String, long, int, int)}.
     */
    static List<SinkRecord> polledRecords(String topic, long seed, int count, int partitions, int run) {
        List<SinkRecord> records = new ArrayList<>(count);
        EventGenerator generator = new EventGenerator(seed);
        long[] next = new long[partitions];
        for (int i = 0; i < count; i++) {
            int p = (i / run) % partitions;
            records.add(record(topic, p, next[p]++, generator.next()));
        }
        return records;
    }

    /** One event as JsonConverter with schemas.enable=true makes it. */
    static SinkRecord record(String topic, int partition, long offset, Event e) {
        Struct value = new Struct(VALUE_SCHEMA)
                .put("event_time", new Date(e.eventTime() * 1000))
                .put("user_id", e.userId())
                .put("event_type", e.eventType())
                .put("url", e.url())
                .put("duration_ms", e.durationMs())
                .put("country", e.country())
                .put("revenue", BigDecimal.valueOf(e.revenueCents(), 2));
        return new SinkRecord(topic, partition, null, null, VALUE_SCHEMA, value, offset);
    }

    /**
     * Appends every record, cutting blocks like the task with default settings, and returns each block as its own
     * Native body (uncompressed), in order.
     */
    List<byte[]> encodeBlocks(List<SinkRecord> records) {
        try {
            List<byte[]> bodies = new ArrayList<>();
            appendAll(records, block -> bodies.add(body(block)));
            return bodies;
        } catch (Throwable e) {
            throw unchecked(e);
        }
    }

    /** Receives each block once it is cut. */
    private interface BlockSink {
        void accept(Object block) throws Throwable;
    }

    /**
     * Appends every record to new blocks (first sized as the task sizes them), cutting each where the task cuts
     * under the defaults: once flush.max.rows rows or flush.max.bytes bytes are reached, checked after every record.
     */
    private void appendAll(List<SinkRecord> records, BlockSink cut) throws Throwable {
        Object block = null;
        for (SinkRecord record : records) {
            if (block == null) {
                block = (Object) Api.NEW_BLOCK.invokeExact(mapping, ConnectorDefaults.INITIAL_ROWS);
            }
            Api.APPEND.invokeExact(mapping, record, block);
            if ((int) Api.ROWS.invokeExact(block) >= ConnectorDefaults.FLUSH_MAX_ROWS
                    || (long) Api.SIZE.invokeExact(block) >= ConnectorDefaults.FLUSH_MAX_BYTES) {
                cut.accept(block);
                block = null;
            }
        }
        if (block != null) {
            cut.accept(block);
        }
    }

    private static byte[] body(Object block) throws Throwable {
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) ((long) Api.SIZE.invokeExact(block) + 4096));
        Api.WRITE_TO.invokeExact(block, (OutputStream) out);
        return out.toByteArray();
    }

    /** A fresh block of the table's columns; for the JMH benchmark. */
    Object newBlock(int expectedRows) {
        try {
            return (Object) Api.NEW_BLOCK.invokeExact(mapping, expectedRows);
        } catch (Throwable e) {
            throw unchecked(e);
        }
    }

    /** Appends one record to a block from {@link #newBlock}; for the JMH benchmark. */
    void append(SinkRecord record, Object block) {
        try {
            Api.APPEND.invokeExact(mapping, record, block);
        } catch (Throwable e) {
            throw unchecked(e);
        }
    }

    /** Empties a block from {@link #newBlock} for reuse, keeping its buffers (NativeBlock.reset); for the JMH benchmark. */
    static boolean reset(Object block) {
        try {
            return (boolean) Api.RESET.invokeExact(block);
        } catch (Throwable e) {
            throw unchecked(e);
        }
    }

    /** Writes a block from {@link #newBlock} as Native; for the JMH benchmark. */
    static void writeTo(Object block, OutputStream out) {
        try {
            Api.WRITE_TO.invokeExact(block, out);
        } catch (Throwable e) {
            throw unchecked(e);
        }
    }

    /**
     * Without a server: the events table's columns ({@link EventsTable#COLUMNS}) as the connector's loader would
     * read them from system.columns (no defaults). For the JMH benchmark.
     */
    static ConnectorEncoder forEventsTable() {
        return new ConnectorEncoder(EventsTable.COLUMNS);
    }

    private ConnectorEncoder(String columns) {
        try {
            List<Object> cols = new ArrayList<>();
            for (String c : columns.split(", ")) {
                int space = c.indexOf(' ');
                Object type = Api.PARSE_TYPE.invoke(c.substring(space + 1));
                cols.add(Api.NEW_COLUMN.invoke(c.substring(0, space), type, Api.NO_DEFAULT));
            }
            Object schema = Api.NEW_SCHEMA.invoke(Api.NEW_TABLE_ID.invoke("default", "events"), cols);
            mapping = Api.NEW_MAPPING.invoke(schema);
        } catch (Throwable e) {
            throw unchecked(e);
        }
    }

    /** Appends every record, cutting blocks like the task, then writes the blocks into one body. */
    Encoded encode(List<SinkRecord> records) {
        try {
            long start = System.nanoTime();
            List<Object> blocks = new ArrayList<>();
            appendAll(records, blocks::add);
            long appended = System.nanoTime();
            long bytes = 0;
            for (Object b : blocks) {
                bytes += (long) Api.SIZE.invokeExact(b);
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(Integer.MAX_VALUE - 16, bytes + 4096L * blocks.size()));
            for (Object b : blocks) {
                Api.WRITE_TO.invokeExact(b, (OutputStream) out);
            }
            long written = System.nanoTime();
            return new Encoded(out.toByteArray(), blocks.size(), appended - start, written - appended);
        } catch (Throwable e) {
            throw unchecked(e);
        }
    }

    static RuntimeException unchecked(Throwable e) {
        if (e instanceof RuntimeException r) {
            return r;
        }
        if (e instanceof Error err) {
            throw err;
        }
        return new IllegalStateException(e);
    }

    /** Handles on the connector's classes, typed with Object in place of the connector's own types. */
    private static final class Api {
        static final MethodHandle NEW_TABLE_ID;
        static final MethodHandle NEW_LOADER;
        static final MethodHandle LOAD;
        static final MethodHandle NEW_MAPPING;
        static final MethodHandle NEW_BLOCK;
        static final MethodHandle APPEND;
        static final MethodHandle ROWS;
        static final MethodHandle SIZE;
        static final MethodHandle WRITE_TO;
        static final MethodHandle RESET;
        static final MethodHandle PARSE_TYPE;
        static final MethodHandle NEW_COLUMN;
        static final MethodHandle NEW_SCHEMA;
        static final Object NO_DEFAULT;

        static {
            try {
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                Class<?> tableId = load("io.chsink.connect.schema.TableId");
                Class<?> tableSchema = load("io.chsink.connect.schema.TableSchema");
                Class<?> loader = load("io.chsink.connect.schema.TableSchemaLoader");
                Class<?> tableMapping = load("io.chsink.connect.mapping.TableMapping");
                Class<?> nativeBlock = load("io.chsink.connect.encoder.NativeBlock");
                NEW_TABLE_ID = lookup.findConstructor(tableId, methodType(void.class, String.class, String.class))
                        .asType(methodType(Object.class, String.class, String.class));
                NEW_LOADER = lookup.findConstructor(loader, methodType(void.class, Client.class))
                        .asType(methodType(Object.class, Client.class));
                LOAD = lookup.findVirtual(loader, "load", methodType(tableSchema, tableId))
                        .asType(methodType(Object.class, Object.class, Object.class));
                NEW_MAPPING = lookup.findConstructor(tableMapping, methodType(void.class, tableSchema))
                        .asType(methodType(Object.class, Object.class));
                NEW_BLOCK = lookup.findVirtual(tableMapping, "newBlock", methodType(nativeBlock, int.class))
                        .asType(methodType(Object.class, Object.class, int.class));
                APPEND = lookup.findVirtual(tableMapping, "append", methodType(void.class, SinkRecord.class, nativeBlock))
                        .asType(methodType(void.class, Object.class, SinkRecord.class, Object.class));
                ROWS = lookup.findVirtual(nativeBlock, "rows", methodType(int.class))
                        .asType(methodType(int.class, Object.class));
                SIZE = lookup.findVirtual(nativeBlock, "sizeInBytes", methodType(long.class))
                        .asType(methodType(long.class, Object.class));
                WRITE_TO = lookup.findVirtual(nativeBlock, "writeTo", methodType(void.class, OutputStream.class))
                        .asType(methodType(void.class, Object.class, OutputStream.class));
                RESET = lookup.findVirtual(nativeBlock, "reset", methodType(boolean.class))
                        .asType(methodType(boolean.class, Object.class));
                Class<?> chType = load("io.chsink.connect.schema.ClickHouseType");
                Class<?> tableColumn = load("io.chsink.connect.schema.TableColumn");
                Class<?> defaultKind = load("io.chsink.connect.schema.TableColumn$DefaultKind");
                PARSE_TYPE = lookup.findStatic(chType, "parse", methodType(chType, String.class))
                        .asType(methodType(Object.class, String.class));
                NEW_COLUMN = lookup.findConstructor(tableColumn, methodType(void.class, String.class, chType, defaultKind))
                        .asType(methodType(Object.class, String.class, Object.class, Object.class));
                NEW_SCHEMA = lookup.findConstructor(tableSchema, methodType(void.class, tableId, List.class))
                        .asType(methodType(Object.class, Object.class, List.class));
                NO_DEFAULT = defaultKind.getField("NONE").get(null);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("the connector's classes cannot be loaded (see ConnectorClasses)", e);
            }
        }

        private static Class<?> load(String name) throws ClassNotFoundException {
            return ConnectorClasses.load(name);
        }
    }
}
