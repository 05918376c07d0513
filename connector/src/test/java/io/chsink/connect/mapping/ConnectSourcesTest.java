package io.chsink.connect.mapping;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.encoder.NativeBlock;
import io.chsink.connect.encoder.NativeColumn;
import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.TableColumn;
import io.chsink.connect.schema.TableColumn.DefaultKind;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** Connect schemas as the Avro, Protobuf and Debezium converters build them, record metadata, unknown fields. */
class ConnectSourcesTest {
    private static TableMapping mapping(boolean rejectUnknown, String... nameTypes) {
        TableColumn[] cols = new TableColumn[nameTypes.length / 2];
        for (int i = 0; i < cols.length; i++) {
            cols[i] = new TableColumn(nameTypes[2 * i], ClickHouseType.parse(nameTypes[2 * i + 1]), DefaultKind.NONE);
        }
        return new TableMapping(new TableSchema(new TableId("db", "t"), Arrays.asList(cols)), rejectUnknown);
    }

    private static long column(NativeBlock b, int i) throws IOException {
        NativeColumn c = b.column(i);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        c.writeData(out);
        byte[] x = Arrays.copyOf(out.toByteArray(), 8);
        return ByteBuffer.wrap(x).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    @Test
    void avroUnionsEnumsAndDecimalsWithPrecision() throws IOException {
        Schema union = SchemaBuilder.struct().name("io.confluent.connect.avro.Union").optional()
                .field("int", Schema.OPTIONAL_INT32_SCHEMA).field("string", Schema.OPTIONAL_STRING_SCHEMA).build();
        Schema color = SchemaBuilder.string().name("Color").parameter("io.confluent.connect.avro.Enum", "Color")
                .parameter("io.confluent.connect.avro.Enum.RED", "RED").build();
        Schema amount = Decimal.builder(2).parameter("connect.decimal.precision", "40").build();
        Schema s = SchemaBuilder.struct().field("u", union).field("s", union).field("c", color).field("a", amount)
                .field("o", Schema.OPTIONAL_INT64_SCHEMA).build();
        TableMapping m = mapping(false, "u", "Int64", "s", "String", "c", "Enum8('RED' = 1, 'BLUE' = 2)",
                "a", "Decimal(40, 2)", "o", "Nullable(Int64)");
        NativeBlock b = m.newBlock(1);
        Struct v = new Struct(s).put("u", new Struct(union).put("int", 42))
                .put("s", new Struct(union).put("string", "x")).put("c", "RED")
                .put("a", new BigDecimal("12345678901234567890123456789012345678.91"));
        m.append(new SinkRecord("t", 0, null, null, s, v, 0), b);
        assertEquals(42, column(b, 0));
        assertEquals(1, column(b, 2));
        Struct wrongBranch = new Struct(s).put("u", new Struct(union).put("string", "forty-two")).put("c", "GREEN")
                .put("a", BigDecimal.ONE).put("s", new Struct(union).put("int", 1));
        RecordMappingException e = assertThrows(RecordMappingException.class,
                () -> m.append(new SinkRecord("t", 0, null, null, s, wrongBranch, 1), b));
        assertTrue(e.getMessage().contains("field 'u' -> column 'u' (ClickHouse type Int64): value is string of "
                + "length 9: string is not a number"), e.getMessage());
    }

    @Test
    void protobufOneofsWriteTheirSetBranch() throws IOException {
        Schema oneof = SchemaBuilder.struct().name("io.confluent.connect.protobuf.Union.id").optional()
                .field("num", Schema.OPTIONAL_INT64_SCHEMA).field("text", Schema.OPTIONAL_STRING_SCHEMA).build();
        Schema s = SchemaBuilder.struct().field("id_0", oneof).build();
        TableMapping m = mapping(false, "id_0", "Nullable(String)");
        NativeBlock b = m.newBlock(2);
        m.append(new SinkRecord("t", 0, null, null, s, new Struct(s).put("id_0", new Struct(oneof).put("text", "x")), 0), b);
        m.append(new SinkRecord("t", 0, null, null, s, new Struct(s).put("id_0", new Struct(oneof).put("num", 12L)), 1), b);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        b.column(0).writeData(out);
        assertArrayEquals(new byte[] {0, 0, 1, 'x', 2, '1', '2'}, out.toByteArray());
    }

    @Test
    void debeziumTemporalTypesAndVariableScaleDecimal() throws IOException {
        Schema vsd = SchemaBuilder.struct().name("io.debezium.data.VariableScaleDecimal")
                .field("scale", Schema.INT32_SCHEMA).field("value", Schema.BYTES_SCHEMA).build();
        Schema s = SchemaBuilder.struct()
                .field("d", SchemaBuilder.int32().name("io.debezium.time.Date").build())
                .field("ts", SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").build())
                .field("tn", SchemaBuilder.int64().name("io.debezium.time.NanoTimestamp").build())
                .field("tm", SchemaBuilder.int64().name("io.debezium.time.Timestamp").build())
                .field("t", SchemaBuilder.int64().name("io.debezium.time.MicroTime").build())
                .field("z", SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp").build())
                .field("n", vsd).build();
        TableMapping m = mapping(false, "d", "Date32", "ts", "DateTime64(3)", "tn", "DateTime64(9)",
                "tm", "DateTime", "t", "Time64(6)", "z", "DateTime64(6)", "n", "Decimal(10, 3)");
        NativeBlock b = m.newBlock(1);
        Struct v = new Struct(s).put("d", -1).put("ts", 1_500_000L).put("tn", -1L).put("tm", 2_000L)
                .put("t", 3_723_000_001L).put("z", "2026-01-01T00:00:00.000001Z")
                .put("n", new Struct(vsd).put("scale", 2).put("value", new byte[] {(byte) 0xFF, 0x38})); // -2.00
        m.append(new SinkRecord("t", 0, null, null, s, v, 0), b);
        assertEquals(-1, (int) column(b, 0));
        assertEquals(1500, column(b, 1));
        assertEquals(-1, column(b, 2));
        assertEquals(2, (int) column(b, 3));
        assertEquals(3_723_000_001L, column(b, 4));
        assertEquals(1_767_225_600_000_001L, column(b, 5));
        assertEquals(-2000, column(b, 6));
        Struct tooPrecise = new Struct(s).put("d", 0).put("ts", 1_500_001L).put("tn", 0L).put("tm", 0L)
                .put("t", 0L).put("z", "2026-01-01T00:00:00Z").put("n", new Struct(vsd).put("scale", 0)
                        .put("value", new byte[] {1}));
        RecordMappingException e = assertThrows(RecordMappingException.class,
                () -> m.append(new SinkRecord("t", 0, null, null, s, tooPrecise, 1), b));
        assertTrue(e.getMessage().contains("field 'ts' -> column 'ts' (ClickHouse type DateTime64(3)): value is "
                + "Instant: timestamp has more precision than DateTime64(3)"), e.getMessage());
    }

    @Test
    void recordMetadataGoesToReservedColumns() throws IOException {
        TableMapping m = mapping(true, "_topic", "LowCardinality(String)", "_partition", "Int32", "_offset", "UInt64",
                "_timestamp", "DateTime64(3)", "_key", "String", "_header_trace", "Nullable(String)", "x", "Int8");
        NativeBlock b = m.newBlock(1);
        Map<String, Object> v = new HashMap<>();
        v.put("x", 1);
        ConnectHeaders h = new ConnectHeaders();
        h.addString("trace", "first").addString("trace", "last");
        m.append(new SinkRecord("orders", 5, Schema.STRING_SCHEMA, "k1", null, v, 77, 1_767_225_600_123L,
                TimestampType.CREATE_TIME, h), b);
        assertEquals(5, (int) column(b, 1));
        assertEquals(77, column(b, 2));
        assertEquals(1_767_225_600_123L, column(b, 3));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        b.column(5).writeData(out);
        assertArrayEquals(new byte[] {0, 4, 'l', 'a', 's', 't'}, out.toByteArray());
        Map<String, Object> withField = new HashMap<>(v);
        withField.put("_offset", 3);
        RecordMappingException e = assertThrows(RecordMappingException.class,
                () -> m.append(new SinkRecord("orders", 5, null, "k", null, withField, 78), b));
        assertTrue(e.getMessage().contains("field '_offset' -> column '_offset' takes record metadata"), e.getMessage());
    }

    @Test
    void unknownFieldsAreIgnoredOrRefusedByConfiguration() {
        TableSchema t = new TableSchema(new TableId("db", "t"), Arrays.asList(
                new TableColumn("a", ClickHouseType.parse("Int32"), DefaultKind.NONE),
                new TableColumn("m", ClickHouseType.parse("Int32"), DefaultKind.MATERIALIZED)));
        Schema s = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).field("extra", Schema.STRING_SCHEMA).build();
        Struct v = new Struct(s).put("a", 1).put("extra", "e");
        new TableMapping(t, false).append(new SinkRecord("t", 0, null, null, s, v, 0), new TableMapping(t).newBlock(1));
        TableMapping strict = new TableMapping(t, true);
        RecordMappingException e = assertThrows(RecordMappingException.class,
                () -> strict.append(new SinkRecord("t", 1, null, null, s, v, 9), strict.newBlock(1)));
        assertTrue(e.getMessage().contains("topic=t partition=1 offset=9 into table db.t: field 'extra' -> the table "
                + "has no column 'extra' (unknown.fields.behavior=error)"), e.getMessage());
        Map<String, Object> mat = new HashMap<>();
        mat.put("a", 1);
        mat.put("m", 2);
        e = assertThrows(RecordMappingException.class,
                () -> strict.append(new SinkRecord("t", 1, null, null, null, mat, 10), strict.newBlock(1)));
        assertTrue(e.getMessage().contains("column 'm' (ClickHouse type Int32) is MATERIALIZED"), e.getMessage());
        // A record a transform renamed (RegexRouter: pg.public.t -> t) is named where the consumer read it.
        SinkRecord routed = new SinkRecord("t", 1, null, null, s, v, 9, null, TimestampType.NO_TIMESTAMP_TYPE, null,
                "pg.public.t", 3, 41);
        e = assertThrows(RecordMappingException.class, () -> strict.append(routed, strict.newBlock(1)));
        assertTrue(e.getMessage().startsWith("Cannot write record topic=pg.public.t partition=3 offset=41 into table "
                + "db.t: field 'extra'"), e.getMessage());
    }

    @Test
    void aMissingFieldAndATypeChangeNameTheirField() {
        TableMapping m = mapping(false, "a", "Int32", "b", "UInt8");
        Map<String, Object> v = new HashMap<>();
        v.put("a", 1);
        RecordMappingException e = assertThrows(RecordMappingException.class,
                () -> m.append(new SinkRecord("t", 0, null, null, null, v, 3), m.newBlock(1)));
        assertTrue(e.getMessage().contains("field 'b' -> column 'b' (ClickHouse type UInt8): value is missing: null "
                + "for a non-Nullable column without a default"), e.getMessage());
        Schema s = SchemaBuilder.struct().field("a", Schema.STRING_SCHEMA).field("b", Schema.INT8_SCHEMA).build();
        e = assertThrows(RecordMappingException.class, () -> m.append(new SinkRecord("t", 0, null, null, s,
                new Struct(s).put("a", "one").put("b", (byte) 1), 4), m.newBlock(1)));
        assertTrue(e.getMessage().contains("field 'a' -> column 'a' (ClickHouse type Int32): value is string of "
                + "length 3: string is not a number"), e.getMessage());
    }
}
