package io.chsink.connect.cdc;

import static io.chsink.connect.cdc.DebeziumEvents.item;
import static io.chsink.connect.cdc.DebeziumEvents.mysql;
import static io.chsink.connect.cdc.DebeziumEvents.payloadOnly;
import static io.chsink.connect.cdc.DebeziumEvents.postgres;
import static io.chsink.connect.cdc.DebeziumEvents.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.config.TableRouter;
import io.chsink.connect.encoder.NativeBlock;
import io.chsink.connect.mapping.RecordMappingException;
import io.chsink.connect.mapping.TableMapping;
import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.TableColumn;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/** Envelope and flattened change events to rows: images, deleted flag, versions, skips and malformed events. */
class DebeziumRowsTest {
    private final List<TableId> checked = new ArrayList<>();
    private final DebeziumRows rows = rows(false);

    private DebeziumRows rows(boolean failOnTruncate) {
        Map<String, String> p = new HashMap<>();
        p.put("clickhouse.url", "http://localhost:8123");
        p.put("topic.to.table.map", DebeziumEvents.TOPIC + ":items");
        return new DebeziumRows("_version", "_is_deleted", failOnTruncate, new TableRouter(new SinkConfig(p)),
                checked::add);
    }

    private static Struct value(SinkRecord r) {
        return (Struct) r.value();
    }

    @Test
    void createUpdateAndDeleteWriteTheirImageWithVersionAndDeletedFlag() {
        Struct c = value(rows.toRow(record(postgres("c", "null", item(1, "a", 5L), "false", 1000L), true, 0)));
        assertEquals(1, c.get("id"));
        assertEquals("a", c.get("name"));
        assertEquals(5L, c.get("qty"));
        assertEquals(1000L, c.get("_version"));
        assertEquals((byte) 0, c.get("_is_deleted"));

        Struct u = value(rows.toRow(record(postgres("u", item(1, "a", 5L), item(1, "b", 6L), "false", 1200L), true, 1)));
        assertEquals("b", u.get("name"));
        assertEquals(1200L, u.get("_version"));
        assertEquals((byte) 0, u.get("_is_deleted"));

        Struct d = value(rows.toRow(record(postgres("d", item(1, "b", 6L), "null", "false", 1300L), true, 2)));
        assertEquals(1, d.get("id"));
        assertEquals("b", d.get("name"), "a delete of a record without a key writes its whole before image");
        assertEquals(1300L, d.get("_version"));
        assertEquals((byte) 1, d.get("_is_deleted"));

        assertNull(rows.toRow(record(null, true, 3)), "the tombstone after a delete writes no row");
    }

    @Test
    void aRowKeepsTopicPartitionOffsetKeyAndTimestamp() {
        Struct key = new Struct(SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build()).put("id", 7);
        SinkRecord in = record(DebeziumEvents.TOPIC, key, postgres("c", "null", item(7, "x", 1L), "false", 9L), true, 42);
        SinkRecord out = rows.toRow(in);
        assertEquals(in.topic(), out.topic());
        assertEquals(in.kafkaPartition(), out.kafkaPartition());
        assertEquals(42, out.kafkaOffset());
        assertEquals(in.timestamp(), out.timestamp());
        assertSame(key, out.key());
    }

    @Test
    void snapshotRowsLoseToEveryLaterStreamedChangeWhateverTheOrderTheyArriveIn() {
        long snapshotLsn = 23_000_000L;
        SinkRecord snap = record(postgres("r", "null", item(1, "snap", 1L), "last", snapshotLsn), true, 0);
        SinkRecord upd = record(postgres("u", item(1, "snap", 1L), item(1, "upd", 2L), "false", snapshotLsn + 56), true, 1);
        SinkRecord del = record(postgres("d", item(1, "upd", 2L), "null", "false", snapshotLsn + 400), true, 2);
        SinkRecord back = record(postgres("c", "null", item(1, "back", 3L), "false", snapshotLsn + 9000), true, 3);
        List<Struct> applied = new ArrayList<>();
        // Replayed and reordered, as at-least-once redelivery and parallel inserts may have them.
        for (SinkRecord r : List.of(back, snap, del, upd, snap, back, upd)) {
            applied.add(value(rows.toRow(r)));
        }
        Struct winner = applied.stream().max((a, b) -> Long.compare((Long) a.get("_version"), (Long) b.get("_version")))
                .orElseThrow();
        assertEquals("back", winner.get("name"), "the re-insert after the delete is the latest change");
        assertEquals((byte) 0, winner.get("_is_deleted"));
        long vs = (Long) value(rows.toRow(snap)).get("_version");
        long vu = (Long) value(rows.toRow(upd)).get("_version");
        long vd = (Long) value(rows.toRow(del)).get("_version");
        long vb = (Long) value(rows.toRow(back)).get("_version");
        assertTrue(vs < vu && vu < vd && vd < vb, vs + " " + vu + " " + vd + " " + vb);
    }

    @Test
    void theSameRecordGivesTheSameRowAndOneRowSchemaPerEnvelopeSchema() {
        String json = postgres("u", item(3, "p", 1L), item(3, "q", 2L), "false", 777L);
        SinkRecord a = rows.toRow(record(json, true, 5));
        SinkRecord b = rows.toRow(record(json, true, 5));
        assertEquals(a.value(), b.value());
        assertEquals(a.valueSchema(), b.valueSchema());
        SinkRecord c = rows.toRow(record(postgres("c", "null", item(4, "r", 3L), "false", 778L), true, 6));
        Struct before = (Struct) record(json, true, 5).value();
        Schema rowSchema = rows.rowSchemaFor(before.schema().field("after").schema());
        assertSame(rowSchema, c.valueSchema(), "one row schema per image schema: the mapping plans it once");
        assertEquals(List.of("id", "name", "qty", "_version", "_is_deleted"),
                rowSchema.fields().stream().map(org.apache.kafka.connect.data.Field::name).collect(java.util.stream.Collectors.toList()));
    }

    @Test
    void replicaIdentityDefaultDeleteCarriesTheKeyOnly() {
        Struct d = value(rows.toRow(record(postgres("d", item(9, null, null), "null", "false", 5000L), true, 0)));
        assertEquals(9, d.get("id"));
        assertNull(d.get("name"));
        assertNull(d.get("qty"));
        assertEquals((byte) 1, d.get("_is_deleted"));
    }

    @Test
    void aDeleteWithAKeyWritesTheKeyFieldsOnly() {
        Struct key = new Struct(SchemaBuilder.struct().name("srv.public.items.Key").field("id", Schema.INT32_SCHEMA)
                .build()).put("id", 9);
        // REPLICA IDENTITY DEFAULT: Debezium fills the before image's other required fields with placeholders.
        SinkRecord in = record(DebeziumEvents.TOPIC, key, postgres("d", item(9, "", 0L), "null", "false", 5000L), true, 0);
        Struct d = value(rows.toRow(in));
        assertEquals(List.of("id", "_version", "_is_deleted"), d.schema().fields().stream()
                .map(org.apache.kafka.connect.data.Field::name).collect(java.util.stream.Collectors.toList()));
        assertEquals(9, d.get("id"));
        assertEquals((byte) 1, d.get("_is_deleted"));
        assertSame(d.schema(), value(rows.toRow(in)).schema(), "one delete row schema per image and key schema");
    }

    @Test
    void aDeleteWithoutBeforeImageTakesTheRecordKey() {
        Struct key = new Struct(SchemaBuilder.struct().name("srv.public.items.Key").field("id", Schema.INT32_SCHEMA)
                .build()).put("id", 11);
        Struct d = value(rows.toRow(record(DebeziumEvents.TOPIC, key, postgres("d", "null", "null", "false", 5100L),
                true, 0)));
        assertEquals(11, d.get("id"));
        assertEquals(5100L, d.get("_version"));
        assertEquals((byte) 1, d.get("_is_deleted"));
        RecordMappingException e = assertThrows(RecordMappingException.class,
                () -> rows.toRow(record(postgres("d", "null", "null", "false", 5100L), true, 4)));
        assertTrue(e.getMessage().contains("neither a before image nor"), e.getMessage());
    }

    @Test
    void schemalessEnvelopesBecomeMapRows() {
        @SuppressWarnings("unchecked")
        Map<String, Object> c = (Map<String, Object>) rows.toRow(record(payloadOnly(
                postgres("c", "null", item(2, "m", 8L), "false", 4242L)), false, 0)).value();
        assertEquals(2L, c.get("id"));
        assertEquals("m", c.get("name"));
        assertEquals(4242L, c.get("_version"));
        assertEquals(0L, c.get("_is_deleted"));
        @SuppressWarnings("unchecked")
        Map<String, Object> d = (Map<String, Object>) rows.toRow(record(payloadOnly(
                postgres("d", item(2, "m", 8L), "null", "false", 4300L)), false, 1)).value();
        assertEquals(1L, d.get("_is_deleted"));
        assertEquals(4300L, d.get("_version"));
    }

    @Test
    void mysqlVersionsFollowBinlogFilePositionAndRow() {
        long[] v = new long[5];
        String[][] pos = {{"mysql-bin.000003", "100", "0"}, {"mysql-bin.000003", "100", "1"},
                {"mysql-bin.000003", "4000", "0"}, {"mysql-bin.000004", "4", "0"}, {"mysql-bin.000010", "4", "0"}};
        for (int i = 0; i < pos.length; i++) {
            v[i] = (Long) value(rows.toRow(record(mysql("u", item(1, "a", 1L), item(1, "b", 1L), pos[i][0],
                    Long.parseLong(pos[i][1]), Integer.parseInt(pos[i][2])), true, 10 - i))).get("_version");
        }
        for (int i = 1; i < v.length; i++) {
            assertTrue(v[i - 1] < v[i], "binlog order, not Kafka offset order: " + java.util.Arrays.toString(v));
        }
        RecordMappingException e = assertThrows(RecordMappingException.class, () -> rows.toRow(record(
                mysql("c", "null", item(1, "a", 1L), "mysql-bin.000001", 1L << 33, 0), true, 0)));
        assertTrue(e.getMessage().contains("binlog position"), e.getMessage());
    }

    @Test
    void flattenedFormWithDeletedAndOpFieldsAndItsPositionFields() {
        Schema flat = SchemaBuilder.struct().name("srv.public.items.Value").field("id", Schema.INT32_SCHEMA)
                .field("name", Schema.OPTIONAL_STRING_SCHEMA).field("__op", Schema.OPTIONAL_STRING_SCHEMA)
                .field("__lsn", Schema.OPTIONAL_INT64_SCHEMA).field("__deleted", Schema.OPTIONAL_STRING_SCHEMA).build();
        Struct upsert = new Struct(flat).put("id", 1).put("name", "a").put("__op", "u").put("__lsn", 300L)
                .put("__deleted", "false");
        Struct row = value(rows.toRow(new SinkRecord("t", 0, null, null, flat, upsert, 17)));
        assertEquals(List.of("id", "name", "__lsn", "_version", "_is_deleted"),
                row.schema().fields().stream().map(org.apache.kafka.connect.data.Field::name).collect(java.util.stream.Collectors.toList()),
                "__op and __deleted are what the row's deleted flag says; other added fields stay");
        assertEquals(300L, row.get("_version"));
        assertEquals((byte) 0, row.get("_is_deleted"));
        Struct rewritten = new Struct(flat).put("id", 1).put("name", "a").put("__lsn", 400L).put("__deleted", "true");
        assertEquals((byte) 1, value(rows.toRow(new SinkRecord("t", 0, null, null, flat, rewritten, 18)))
                .get("_is_deleted"), "delete.tombstone.handling.mode=rewrite: __deleted=true");
        Struct opOnly = new Struct(flat).put("id", 1).put("__op", "d").put("__lsn", 500L);
        assertEquals((byte) 1, value(rows.toRow(new SinkRecord("t", 0, null, null, flat, opOnly, 19))).get("_is_deleted"));

        // No position fields: the Kafka offset is the version.
        Map<String, Object> plain = new HashMap<>();
        plain.put("id", 5L);
        plain.put("__deleted", "false");
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) rows.toRow(new SinkRecord("t", 0, null, null, null, plain, 123))
                .value();
        assertEquals(123L, m.get("_version"));
        assertEquals(0L, m.get("_is_deleted"));
        assertTrue(!m.containsKey("__deleted"));
    }

    @Test
    void truncatesAreSkippedOrBadRecordsAsConfigured() {
        String t = postgres("t", "null", "null", "false", 800L);
        assertNull(rows.toRow(record(t, true, 0)));
        RecordMappingException e = assertThrows(RecordMappingException.class, () -> rows(true).toRow(record(t, true, 1)));
        assertTrue(e.getMessage().contains("truncate") && e.getMessage().contains("cdc.truncate.behavior=fail"),
                e.getMessage());
    }

    @Test
    void malformedEventsAreBadRecordsNamedAsSuchWithTopicPartitionOffsetAndTable() {
        Map<String, String> bad = new HashMap<>();
        bad.put(postgres("c", "null", "null", "false", 1L), "op 'c' without an after image");
        bad.put(postgres("x", "null", item(1, "a", 1L), "false", 1L), "unknown op 'x'");
        bad.put(postgres("u", "null", item(1, "a", 1L), "false", null), "source.lsn is null");
        bad.put(postgres("m", "null", "null", "false", 1L), "logical decoding message");
        bad.put("{\"op\":\"c\",\"after\":{\"id\":1}}", "no source block");
        bad.put("{\"op\":\"c\",\"after\":{\"id\":1},\"source\":{\"connector\":\"postgresql\",\"lsn\":\"12x\"}}",
                "source.lsn is a string that is not an integer");
        for (Map.Entry<String, String> b : bad.entrySet()) {
            boolean schemas = b.getKey().startsWith("{\"schema\"");
            RecordMappingException e = assertThrows(RecordMappingException.class,
                    () -> rows.toRow(record(b.getKey(), schemas, 31)), b.getValue());
            String m = e.getMessage();
            assertTrue(m.contains("malformed Debezium change event") && m.contains(b.getValue())
                    && m.contains("topic=" + DebeziumEvents.TOPIC) && m.contains("partition=0")
                    && m.contains("offset=31") && m.contains("table default.items"), m);
        }
        RecordMappingException e = assertThrows(RecordMappingException.class, () -> rows.toRow(
                new SinkRecord("t", 0, null, null, Schema.STRING_SCHEMA, "not an event", 3)));
        assertTrue(e.getMessage().contains("a change event is a Struct or a map"), e.getMessage());
    }

    @Test
    void rowsGoThroughTheTableMappingOfAReplacingMergeTree() {
        List<TableColumn> cols = new ArrayList<>();
        cols.add(new TableColumn("id", ClickHouseType.parse("Int32"), TableColumn.DefaultKind.NONE));
        cols.add(new TableColumn("name", ClickHouseType.parse("Nullable(String)"), TableColumn.DefaultKind.NONE));
        cols.add(new TableColumn("qty", ClickHouseType.parse("Nullable(Int64)"), TableColumn.DefaultKind.NONE));
        cols.add(new TableColumn("_version", ClickHouseType.parse("UInt64"), TableColumn.DefaultKind.NONE));
        cols.add(new TableColumn("_is_deleted", ClickHouseType.parse("UInt8"), TableColumn.DefaultKind.NONE));
        cols.add(new TableColumn("ref", ClickHouseType.parse("UUID"), TableColumn.DefaultKind.NONE));
        TableMapping mapping = new TableMapping(new TableSchema(new TableId("default", "items"), cols), false,
                rows.nullsTakeDefaults());
        Struct key = new Struct(SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build()).put("id", 1);
        NativeBlock block = mapping.newBlock(4);
        mapping.append(rows.toRow(record(postgres("c", "null", item(1, "a", 5L), "false", 10L), true, 0)), block);
        mapping.append(rows.toRow(record(DebeziumEvents.TOPIC, key, postgres("d", item(1, "", 0L), "null", "false", 20L),
                true, 1)), block);
        mapping.append(rows.toRow(record(payloadOnly(postgres("c", "null", item(2, "b", 6L), "false", 30L)), false, 2)),
                block);
        assertEquals(3, block.rows(), "a key-only delete row fits a table whose other columns are not Nullable");
    }

    @Test
    void checkTableRunsTheTableCheck() {
        rows.checkTable(new TableId("default", "items"));
        assertEquals(List.of(new TableId("default", "items")), checked);
        assertNotNull(rows.name());
    }
}
