package io.chsink.connect.mapping;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.encoder.NativeBlock;
import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.TableColumn;
import io.chsink.connect.schema.TableColumn.DefaultKind;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class TableMappingTest {
    private static TableColumn col(String name, String type) {
        return new TableColumn(name, ClickHouseType.parse(type), DefaultKind.NONE);
    }

    private static TableMapping mapping(TableColumn... cols) {
        return new TableMapping(new TableSchema(new TableId("db", "t"), Arrays.asList(cols)));
    }

    private static SinkRecord record(Schema schema, Object value, long offset) {
        return new SinkRecord("events", 3, null, null, schema, value, offset);
    }

    private static byte[] bytes(NativeBlock b) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        b.writeTo(out);
        return out.toByteArray();
    }

    @Test
    void encodesANativeBlockByteForByte() throws IOException {
        TableMapping m = mapping(col("id", "UInt16"), col("s", "Nullable(String)"));
        NativeBlock b = m.newBlock(4);
        Map<String, Object> v1 = new HashMap<>();
        v1.put("id", 258L);
        v1.put("s", "a");
        Map<String, Object> v2 = new HashMap<>();
        v2.put("id", 1L);
        m.append(record(null, v1, 0), b);
        m.append(record(null, v2, 1), b);
        byte[] expected = {
            2, 2, // columns, rows
            2, 'i', 'd', 6, 'U', 'I', 'n', 't', '1', '6', 2, 1, 1, 0, // id: 258, 1
            1, 's', 16, 'N', 'u', 'l', 'l', 'a', 'b', 'l', 'e', '(', 'S', 't', 'r', 'i', 'n', 'g', ')',
            0, 1, // null map
            1, 'a', 0, // nested strings, "" at the NULL
        };
        assertArrayEquals(expected, bytes(b));
    }

    @Test
    void mapsStructFieldsByNameWithLogicalTypes() throws IOException {
        Schema schema = SchemaBuilder.struct().name("ev")
                .field("ts", Timestamp.SCHEMA)
                .field("amount", Decimal.schema(2))
                .field("unused", Schema.STRING_SCHEMA)
                .build();
        TableMapping m = mapping(col("ts", "DateTime"), col("amount", "Decimal(10, 2)"));
        NativeBlock b = m.newBlock(1);
        Struct s = new Struct(schema).put("ts", new java.util.Date(1_000_000L)).put("amount", new BigDecimal("-1.25"))
                .put("unused", "x");
        m.append(record(schema, s, 7), b);
        byte[] out = bytes(b);
        // ts = 1000 s as UInt32, then the 22-byte header of amount, then -125 as Int64 (Decimal(10, 2) is 8 bytes wide)
        byte[] ts = Arrays.copyOfRange(out, out.length - 8 - 22 - 4, out.length - 8 - 22);
        assertArrayEquals(new byte[] {(byte) 0xE8, 3, 0, 0}, ts);
        byte[] amount = Arrays.copyOfRange(out, out.length - 8, out.length);
        assertArrayEquals(new byte[] {(byte) 0x83, -1, -1, -1, -1, -1, -1, -1}, amount);
        assertEquals(1, b.rows());
    }

    @Test
    void aRejectedValueWithdrawsTheWholeRowAndNamesEverything() throws IOException {
        TableMapping m = mapping(col("name", "String"), col("age", "UInt8"));
        NativeBlock b = m.newBlock(2);
        Map<String, Object> good = new HashMap<>();
        good.put("name", "ok");
        good.put("age", 30L);
        m.append(record(null, good, 1), b);
        byte[] before = bytes(b);
        Map<String, Object> bad = new HashMap<>();
        bad.put("name", "written-then-withdrawn");
        bad.put("age", 300L);
        RecordMappingException e = assertThrows(RecordMappingException.class, () -> m.append(record(null, bad, 2), b));
        String msg = e.getMessage();
        for (String part : new String[] {"topic=events", "partition=3", "offset=2", "field 'age'", "column 'age'",
                "UInt8", "Long", "out of range"}) {
            assertTrue(msg.contains(part), () -> "message lacks '" + part + "': " + msg);
        }
        assertFalse(msg.contains("300"), "the value itself must not appear");
        assertEquals(1, b.rows());
        assertArrayEquals(before, bytes(b));
    }

    @Test
    void nullsGoToNullableColumnsAndDefaultsAndAreRejectedElsewhere() {
        TableMapping m = new TableMapping(new TableSchema(new TableId("db", "t"), Arrays.asList(
                col("req", "Int32"),
                new TableColumn("def", ClickHouseType.parse("UInt32"), DefaultKind.DEFAULT),
                new TableColumn("mat", ClickHouseType.parse("UInt32"), DefaultKind.MATERIALIZED),
                col("opt", "Nullable(Int32)"))));
        assertEquals(Arrays.asList("`req`", "`def`", "`opt`"), m.quotedColumnNames());
        NativeBlock b = m.newBlock(2);
        Map<String, Object> v = new HashMap<>();
        v.put("req", 1L);
        m.append(record(null, v, 0), b);
        assertEquals("Nullable(UInt32)", b.column(1).wireType());
        Map<String, Object> missing = new HashMap<>();
        missing.put("def", 5L);
        RecordMappingException e = assertThrows(RecordMappingException.class, () -> m.append(record(null, missing, 1), b));
        assertTrue(e.getMessage().contains("column 'req'"), e.getMessage());
        assertTrue(e.getMessage().contains("non-Nullable column without a default"), e.getMessage());
    }

    @Test
    void rejectsInexactDecimalsAndBadStrings() {
        TableMapping m = mapping(col("d", "Decimal(5, 2)"), col("u", "UUID"), col("t", "DateTime64(3)"));
        String[][] cases = {
            {"d", "1.234", "digits after the point"},
            {"d", "1234.5", "more than 5 digits"},
            {"d", "abc", "not a decimal"},
            {"u", "not-a-uuid", "not a UUID"},
            {"t", "2026-13-45 10:00:00", "not an ISO-8601 timestamp"},
            {"t", "2026-01-01T00:00:00.0001Z", "more precision"},
        };
        for (String[] c : cases) {
            Map<String, Object> v = new HashMap<>();
            v.put("d", "1.5");
            v.put("u", "61f0c404-5cb3-11e7-907b-a6006ad3dba0");
            v.put("t", "2026-01-01 00:00:00.001");
            v.put(c[0], c[1]);
            NativeBlock b = m.newBlock(1);
            RecordMappingException e = assertThrows(RecordMappingException.class, () -> m.append(record(null, v, 9), b),
                    c[0] + "=" + c[1]);
            assertTrue(e.getMessage().contains(c[2]), e.getMessage());
            assertEquals(0, b.rows());
        }
    }

    @Test
    void rejectsValuesThatAreNeitherStructNorMap() {
        TableMapping m = mapping(col("a", "String"));
        RecordMappingException e = assertThrows(RecordMappingException.class,
                () -> m.append(record(Schema.STRING_SCHEMA, "plain", 4), m.newBlock(1)));
        assertTrue(e.getMessage().contains("expected a Struct or a map"), e.getMessage());
    }

    @Test
    void blockSizeCountsBytesWrittenNotBuffersReserved() {
        TableMapping m = mapping(col("a", "String"), col("b", "LowCardinality(String)"), col("c", "Nullable(Int64)"),
                col("d", "FixedString(8)"));
        NativeBlock b = m.newBlock(8192);
        assertEquals(0, b.sizeInBytes(), "an empty block holds nothing, whatever its buffers reserve");
        Map<String, Object> v = new HashMap<>();
        v.put("a", "xy");
        v.put("b", "k");
        v.put("c", 5L);
        v.put("d", "z");
        m.append(record(null, v, 0), b);
        // a: 1 + 2, b: 1 key byte + 1 char + 4 index + 64 entry overhead, c: 1 + 8, d: 8
        assertEquals(3 + 70 + 9 + 8, b.sizeInBytes());
    }

    @Test
    void aValueForAColumnTypeNotWrittenYetIsAnErrorNotASilentDefault() {
        TableMapping m = mapping(col("id", "UInt32"), col("tags", "AggregateFunction(uniq, String)"));
        assertEquals(Arrays.asList("`id`"), m.quotedColumnNames());
        NativeBlock b = m.newBlock(2);
        Map<String, Object> without = new HashMap<>();
        without.put("id", 1L);
        m.append(record(null, without, 0), b);
        Map<String, Object> with = new HashMap<>(without);
        with.put("tags", Arrays.asList("a", "b"));
        RecordMappingException e = assertThrows(RecordMappingException.class, () -> m.append(record(null, with, 1), b));
        assertTrue(e.getMessage().contains("column 'tags' (ClickHouse type AggregateFunction(uniq, String))"), e.getMessage());
        assertEquals(1, b.rows());
    }
}
