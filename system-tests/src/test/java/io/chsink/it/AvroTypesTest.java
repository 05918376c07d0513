package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.chsink.it.avro.AvroWire;
import io.chsink.it.avro.TestRegistry;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.StringJoiner;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Confluent-framed Avro through the worker with the plugin's AvroConverter (config/clickhouse-sink-avro.json, the
 * writer schemas in the stand-in registry): every Avro type and logical type lands in its ClickHouse column equal to
 * a reference table ClickHouse filled from SQL literals, the key read by AvroConverter as key.converter too; and
 * three writer schemas of one topic (a field added with a default, a field removed), interleaved, land in one table.
 */
class AvroTypesTest {
    static final String EXAMPLE = "clickhouse-sink-avro.json";
    private static final int ROWS = 3;
    private static TestRegistry registry;
    private final SinkHarness h = new SinkHarness();

    @BeforeAll
    static void startRegistry() {
        registry = new TestRegistry();
    }

    @AfterAll
    static void stopRegistry() {
        registry.close();
    }

    /** One column: its ClickHouse type, the Avro type of its field, per row the Avro datum and the SQL literal. */
    private static final class Col {
        final String name;
        final String type;
        final String avro;
        final Object[] values;
        final String[] sql;

        Col(String name, String type, String avro, Object[] values, String... sql) {
            this.name = name;
            this.type = type;
            this.avro = avro;
            this.values = values;
            this.sql = sql;
        }
    }

    private static Object[] v(Object... values) {
        return values;
    }

    private static ByteBuffer bytes(int... b) {
        byte[] out = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = (byte) b[i];
        }
        return ByteBuffer.wrap(out);
    }

    private static ByteBuffer unscaled(String decimal, int scale) {
        return ByteBuffer.wrap(new BigDecimal(decimal).setScale(scale).unscaledValue().toByteArray());
    }

    private static String dec(String decimal, int scale) {
        return "toDecimal128('" + decimal + "', " + scale + ")";
    }

    private static final String S_UNICODE = ScalarTypesTest.S_UNICODE;
    private static final String S_ESCAPES = ScalarTypesTest.S_ESCAPES;
    private static final String ENUM = "{\"type\":\"enum\",\"name\":\"Color\",\"namespace\":\"t\",\"symbols\":[\"RED\",\"GREEN\"]}";
    private static final String FIXED4 = "{\"type\":\"fixed\",\"name\":\"Four\",\"namespace\":\"t\",\"size\":4}";
    private static final String FIXED_DEC = "{\"type\":\"fixed\",\"name\":\"Dec16\",\"namespace\":\"t\",\"size\":16,"
            + "\"logicalType\":\"decimal\",\"precision\":38,\"scale\":3}";
    private static final String POINT = "{\"type\":\"record\",\"name\":\"Point\",\"namespace\":\"t\",\"fields\":["
            + "{\"name\":\"x\",\"type\":\"int\"},{\"name\":\"y\",\"type\":\"string\"}]}";

    private static List<Col> columns() {
        List<Col> c = new ArrayList<>();
        c.add(new Col("id", "UInt32", "\"int\"", v(1, 2, 3), "1", "2", "3"));
        c.add(new Col("b", "Bool", "\"boolean\"", v(true, false, true), "true", "false", "true"));
        c.add(new Col("i32", "Int32", "\"int\"", v(Integer.MIN_VALUE, Integer.MAX_VALUE, 0),
                "-2147483648", "2147483647", "0"));
        c.add(new Col("i64", "Int64", "\"long\"", v(Long.MIN_VALUE, Long.MAX_VALUE, -1L),
                "-9223372036854775808", "9223372036854775807", "-1"));
        c.add(new Col("u32", "UInt32", "\"long\"", v(0L, 4294967295L, 7L), "0", "4294967295", "7"));
        c.add(new Col("f32", "Float32", "\"float\"", v(1.5f, -3.4028235e38f, 0.1f), "1.5", "-3.4028235e38", "0.1"));
        c.add(new Col("f64", "Float64", "\"double\"", v(-0.1, 1e308, Double.NaN), "-0.1", "1e308", "nan"));
        c.add(new Col("s", "String", "\"string\"", v("", S_UNICODE, S_ESCAPES),
                "''", ScalarTypesTest.sqlString(S_UNICODE), ScalarTypesTest.sqlString(S_ESCAPES)));
        c.add(new Col("by", "String", "\"bytes\"", v(bytes(0, 255, 'a'), bytes(), bytes('a', 'b', 'c')),
                "unhex('00FF61')", "''", "'abc'"));
        c.add(new Col("fx", "FixedString(4)", FIXED4, v(bytes(1, 2, 3, 4), bytes(0, 0, 0, 0), bytes('a', 'b', 'c', 'd')),
                "unhex('01020304')", "unhex('00000000')", "'abcd'"));
        c.add(new Col("e", "Enum8('RED' = 1, 'GREEN' = 2)", ENUM, v("RED", "GREEN", "RED"), "'RED'", "'GREEN'", "'RED'"));
        c.add(new Col("es", "LowCardinality(String)", "\"t.Color\"", v("GREEN", "GREEN", "RED"), "'GREEN'", "'GREEN'", "'RED'"));
        c.add(new Col("d", "Date", "{\"type\":\"int\",\"logicalType\":\"date\"}", v(0, 65535, 20454),
                "'1970-01-01'", "'2149-06-06'", "'2026-01-01'"));
        c.add(new Col("d32", "Date32", "{\"type\":\"int\",\"logicalType\":\"date\"}", v(-25567, 120529, -1),
                "'1900-01-01'", "'2299-12-31'", "'1969-12-31'"));
        c.add(new Col("tm", "Time64(3)", "{\"type\":\"int\",\"logicalType\":\"time-millis\"}", v(0, 86399999, 45296789),
                "'00:00:00'", "'23:59:59.999'", "'12:34:56.789'"));
        c.add(new Col("ts", "DateTime64(3, 'UTC')", "{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}",
                v(-2208988800000L, 1767225600123L, -1L), "'1900-01-01 00:00:00.000'", "'2026-01-01 00:00:00.123'",
                "'1969-12-31 23:59:59.999'"));
        c.add(new Col("tsu", "DateTime64(6, 'UTC')", "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}",
                v(1767225600123456L, 0L, -1L), "'2026-01-01 00:00:00.123456'", "'1970-01-01 00:00:00.000000'",
                "'1969-12-31 23:59:59.999999'"));
        c.add(new Col("ltm", "Int64", "{\"type\":\"long\",\"logicalType\":\"local-timestamp-millis\"}", v(5L, 0L, -5L),
                "5", "0", "-5"));
        c.add(new Col("tmu", "Int64", "{\"type\":\"long\",\"logicalType\":\"time-micros\"}", v(86399999999L, 0L, 1L),
                "86399999999", "0", "1"));
        c.add(new Col("dec", "Decimal(10, 2)", "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":10,\"scale\":2}",
                v(unscaled("-12345678.90", 2), unscaled("99999999.99", 2), unscaled("0.01", 2)),
                dec("-12345678.90", 2), dec("99999999.99", 2), dec("0.01", 2)));
        c.add(new Col("fdec", "Decimal(38, 3)", FIXED_DEC, v("99999999999999999999999999999999999.999", "-0.001", "0"),
                dec("99999999999999999999999999999999999.999", 3), dec("-0.001", 3), dec("0", 3)));
        c.add(new Col("uid", "UUID", "{\"type\":\"string\",\"logicalType\":\"uuid\"}",
                v("0b6c3c1e-0000-4000-8000-000000000001", "FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF", "00000000-0000-0000-0000-000000000000"),
                "'0b6c3c1e-0000-4000-8000-000000000001'", "'ffffffff-ffff-4fff-bfff-ffffffffffff'",
                "'00000000-0000-0000-0000-000000000000'"));
        c.add(new Col("opt", "Nullable(Int64)", "[\"null\",\"long\"]", v(null, 5L, null), "NULL", "5", "NULL"));
        c.add(new Col("ostr", "Nullable(String)", "[\"string\",\"null\"]", v("x", null, ""), "'x'", "NULL", "''"));
        c.add(new Col("u", "Nullable(Int64)", "[\"null\",\"int\",\"string\"]", v(42, "-7", null), "42", "-7", "NULL"));
        c.add(new Col("arr", "Array(Int32)", "{\"type\":\"array\",\"items\":\"int\"}",
                v(List.of(), List.of(1, -2), List.of(Integer.MAX_VALUE)), "[]", "[1, -2]", "[2147483647]"));
        c.add(new Col("m", "Map(String, Float64)", "{\"type\":\"map\",\"values\":\"double\"}",
                v(Map.of(), Map.of("a", 1.5), Map.of("", -1.0)), "map()", "map('a', 1.5)", "map('', -1)"));
        c.add(new Col("rec", "Tuple(x Int32, y String)", POINT, v(new int[] {1}, new int[] {-2}, new int[] {0}),
                "tuple(1, 'a1')", "tuple(-2, 'a-2')", "tuple(0, 'a0')"));
        return c;
    }

    /** The values of a column as Avro datums for its schema (fixed, records and fixed decimals need it). */
    private static Object datum(Schema fieldSchema, Object v) {
        if (v == null) {
            return null;
        }
        switch (fieldSchema.getType()) {
            case FIXED:
                if (v instanceof String) { // a decimal: the unscaled value sign-extended to the fixed size
                    byte[] u = new BigDecimal((String) v).setScale(3).unscaledValue().toByteArray();
                    byte[] f = new byte[fieldSchema.getFixedSize()];
                    Arrays.fill(f, 0, f.length - u.length, (byte) (u[0] < 0 ? 0xFF : 0));
                    System.arraycopy(u, 0, f, f.length - u.length, u.length);
                    return new GenericData.Fixed(fieldSchema, f);
                }
                return new GenericData.Fixed(fieldSchema, ((ByteBuffer) v).array());
            case ENUM:
                return new GenericData.EnumSymbol(fieldSchema, (String) v);
            case RECORD: {
                int x = ((int[]) v)[0];
                GenericRecord r = new GenericData.Record(fieldSchema);
                r.put("x", x);
                r.put("y", "a" + x);
                return r;
            }
            default:
                return v;
        }
    }

    private static Schema rowSchema(List<Col> cols) {
        StringJoiner f = new StringJoiner(",");
        for (Col c : cols) {
            f.add("{\"name\":\"" + c.name + "\",\"type\":" + c.avro + "}");
        }
        return new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Row\",\"namespace\":\"t\",\"fields\":[" + f + "]}");
    }

    private static String select(List<Col> cols, String table) {
        StringJoiner j = new StringJoiner(", ");
        for (Col c : cols) {
            j.add("`" + c.name + "`");
        }
        return "SELECT " + j + " FROM `" + table + "` ORDER BY id FORMAT TSV";
    }

    @Test
    void everyAvroTypeLandsInItsColumnEqualToSqlLiterals() throws Exception {
        List<Col> cols = columns();
        StringJoiner ddl = new StringJoiner(", ");
        StringJoiner names = new StringJoiner(", ");
        for (Col c : cols) {
            ddl.add("`" + c.name + "` " + c.type);
            names.add("`" + c.name + "`");
        }
        String ref = SinkHarness.unique("avro_ref");
        h.stack.clickhouse().exec("CREATE TABLE `" + ref + "` (" + ddl + ") ENGINE = MergeTree ORDER BY id");
        String rows = SqlRows.values(cols.stream().map(c -> c.sql).toList(), ROWS);
        h.stack.clickhouse().exec("INSERT INTO `" + ref + "` (" + names + ") VALUES " + rows);
        String expected = h.ch().query(select(cols, ref));
        assertEquals(ROWS, expected.split("\n").length, expected);

        String table = SinkHarness.unique("avro_types");
        h.stack.clickhouse().exec("CREATE TABLE `" + table + "` (" + ddl + ", _key String, _offset UInt64) "
                + "ENGINE = MergeTree ORDER BY id");
        h.stack.kafka().createTopic(table, 1);
        Schema schema = rowSchema(cols);
        AvroWire values = new AvroWire(schema, registry.register(table + "-value", schema.toString()));
        AvroWire keys = new AvroWire(Schema.create(Schema.Type.STRING), registry.register(table + "-key", "\"string\""));
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, h.stack.kafka().bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int r = 0; r < ROWS; r++) {
                GenericRecord rec = new GenericData.Record(schema);
                for (Col c : cols) {
                    rec.put(c.name, datum(schema.getField(c.name).schema(), c.values[r]));
                }
                producer.send(new ProducerRecord<>(table, 0, keys.write("key-" + (r + 1) + " ☃"), values.write(rec)));
            }
            producer.flush();
        }
        String connector = SinkHarness.unique("sink_avro");
        Map<String, String> o = SinkHarness.overrides(table, 1);
        o.put("value.converter.schema.registry.url", registry.url());
        o.put("key.converter", "io.chsink.connect.convert.avro.AvroConverter");
        o.put("key.converter.schema.registry.url", registry.url());
        try {
            h.createConnector(connector, EXAMPLE, o);
            h.awaitRows(table, ROWS, connector);
            assertEquals(expected, h.ch().query(select(cols, table)));
            assertEquals("1\tkey-1 ☃\t0\n2\tkey-2 ☃\t1\n3\tkey-3 ☃\t2\n",
                    h.ch().query("SELECT id, _key, _offset FROM `" + table + "` ORDER BY id FORMAT TSV"));
        } finally {
            h.deleteQuietly(connector);
        }
        // the reference holds what the literals say (spot checks of edges that a wrong literal would lose)
        assertEquals("1900-01-01\t1900-01-01 00:00:00.000\t-9223372036854775808\t" + "9".repeat(35) + ".999",
                h.ch().query("SELECT d32, ts, i64, fdec FROM `" + ref + "` WHERE id = 1 FORMAT TSV").trim());
    }

    @Test
    void interleavedWriterSchemasOfOneTopicLandInOneTable() throws Exception {
        String table = SinkHarness.unique("avro_versions");
        h.stack.clickhouse().exec("CREATE TABLE `" + table + "` (id UInt32, name Nullable(String), "
                + "added String DEFAULT 'none') ENGINE = MergeTree ORDER BY id");
        h.stack.kafka().createTopic(table, 1);
        String v1 = "{\"type\":\"record\",\"name\":\"User\",\"fields\":[{\"name\":\"id\",\"type\":\"int\"},"
                + "{\"name\":\"name\",\"type\":\"string\"}]}";
        String v2 = "{\"type\":\"record\",\"name\":\"User\",\"fields\":[{\"name\":\"id\",\"type\":\"int\"},"
                + "{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"added\",\"type\":\"string\",\"default\":\"d\"}]}";
        String v3 = "{\"type\":\"record\",\"name\":\"User\",\"fields\":[{\"name\":\"id\",\"type\":\"int\"},"
                + "{\"name\":\"added\",\"type\":\"string\",\"default\":\"d\"}]}";
        String subject = table + "-value";
        AvroWire[] writers = {wire(subject, v1), wire(subject, v2), wire(subject, v3)};
        assertEquals(3, Arrays.stream(writers).mapToInt(AvroWire::id).distinct().count(), "three ids");
        List<byte[]> records = new ArrayList<>();
        StringBuilder expected = new StringBuilder();
        for (int id = 1; id <= 30; id++) {
            AvroWire w = writers[id % 3];
            GenericRecord r = new GenericData.Record(w.schema());
            r.put("id", id);
            if (w.schema().getField("name") != null) {
                r.put("name", "n" + id);
            }
            if (w.schema().getField("added") != null) {
                r.put("added", "a" + id);
            }
            records.add(w.write(r));
            expected.append(id).append('\t').append(id % 3 == 2 ? "\\N" : "n" + id).append('\t')
                    .append(id % 3 == 0 ? "none" : "a" + id).append('\n');
        }
        new io.chsink.it.kafka.EventProducer(h.stack.kafka().bootstrapServers()).produceBytes(table, 0, records);
        String connector = SinkHarness.unique("sink_avro");
        Map<String, String> o = SinkHarness.overrides(table, 1);
        o.put("value.converter.schema.registry.url", registry.url());
        try {
            h.createConnector(connector, EXAMPLE, o);
            h.awaitRows(table, 30, connector);
            assertEquals(expected.toString(), h.ch().query("SELECT id, name, added FROM `" + table + "` ORDER BY id FORMAT TSV"));
        } finally {
            h.deleteQuietly(connector);
        }
    }

    private static AvroWire wire(String subject, String schema) {
        return new AvroWire(new Schema.Parser().parse(schema), registry.register(subject, schema));
    }
}
