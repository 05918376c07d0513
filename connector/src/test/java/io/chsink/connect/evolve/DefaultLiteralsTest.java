package io.chsink.connect.evolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.junit.jupiter.api.Test;

/**
 * DEFAULT literals of schema defaults: the exact text of the value in the column type ConnectTypes picks, which the
 * server casts to that type; a default the type cannot hold exactly has no literal (and a reason).
 */
class DefaultLiteralsTest {
    static final ConnectTypes TYPES = new ConnectTypes(ConnectTypes.StructAs.TUPLE);

    static Schema named(Schema.Type type, String name) {
        return new SchemaBuilder(type).name(name).build();
    }

    static String of(Schema s, Object v) {
        return DefaultLiterals.of(s, v);
    }

    /** No literal, and the reason says so. */
    static void none(Schema s, Object v, String reasonPart) {
        assertNull(of(s, v), s.name() + " " + v);
        String why = DefaultLiterals.whyNot(s, v);
        assertTrue(why != null && why.contains(reasonPart), why);
    }

    @Test
    void scalars() {
        assertEquals("-7", of(Schema.INT16_SCHEMA, (short) -7));
        assertEquals("-9223372036854775808", of(Schema.INT64_SCHEMA, Long.MIN_VALUE));
        assertEquals("1.5", of(Schema.FLOAT64_SCHEMA, 1.5));
        assertEquals("0.1", of(Schema.FLOAT32_SCHEMA, 0.1f), "the float's own shortest text");
        assertEquals("4.9E-324", of(Schema.FLOAT64_SCHEMA, Double.MIN_VALUE));
        assertEquals("nan", of(Schema.FLOAT64_SCHEMA, Double.NaN));
        assertEquals("inf", of(Schema.FLOAT32_SCHEMA, Float.POSITIVE_INFINITY));
        assertEquals("-inf", of(Schema.FLOAT64_SCHEMA, Double.NEGATIVE_INFINITY));
        assertEquals("true", of(Schema.BOOLEAN_SCHEMA, true));
        assertEquals("false", of(Schema.BOOLEAN_SCHEMA, false));
        assertNull(of(Schema.STRING_SCHEMA, null));
        assertNull(DefaultLiterals.whyNot(Schema.STRING_SCHEMA, null));
        none(Schema.INT32_SCHEMA, "5", "Java type String");
    }

    @Test
    void stringsAreEscaped() {
        assertEquals("'it\\'s \\\\ \\x0A'", of(Schema.STRING_SCHEMA, "it's \\ \n"));
        assertEquals("'a\\x0D\\x09\\x00b \u00e9\u65e5 \ud83d\ude00 \"q\"'", of(Schema.STRING_SCHEMA,
                "a\r\t\u0000b \u00e9\u65e5 \ud83d\ude00 \"q\""));
        assertEquals("''", of(Schema.STRING_SCHEMA, ""));
        assertEquals("'\\\\\\''", of(Schema.STRING_SCHEMA, "\\'"), "a backslash then a quote");
    }

    @Test
    void bytesAndBits() {
        assertEquals("'\\x00\\xFF'", of(Schema.BYTES_SCHEMA, new byte[] {0, (byte) 0xff}));
        assertEquals("'\\x01\\x02'", of(Schema.BYTES_SCHEMA, ByteBuffer.wrap(new byte[] {9, 1, 2}).position(1)));
        assertEquals("''", of(Schema.BYTES_SCHEMA, new byte[0]));
        Schema bits = new SchemaBuilder(Schema.Type.BYTES).name("io.debezium.data.Bits").parameter("length", "10").build();
        assertEquals("String", TYPES.baseType(bits));
        assertEquals("'\\x06\\x02'", of(bits, new byte[] {6, 2}));
    }

    @Test
    void connectLogicalTypes() {
        assertEquals("'12345678901234567890.25'", of(Decimal.schema(2), new BigDecimal("12345678901234567890.25")),
                "never through a double");
        assertEquals("'2024-02-29'", of(Date.SCHEMA, new java.util.Date(19782L * 86_400_000L)));
        assertEquals("'1900-01-01'", of(Date.SCHEMA, new java.util.Date(-25567L * 86_400_000L)));
        none(Date.SCHEMA, new java.util.Date(-25568L * 86_400_000L), "Date32's range");
        none(Date.SCHEMA, new java.util.Date(86_400_001L), "time of day");
        assertEquals("'01:02:03.004'", of(Time.SCHEMA, new java.util.Date(3_723_004L)));
        assertEquals("'23:59:59.999'", of(Time.SCHEMA, new java.util.Date(86_399_999L)));
        none(Time.SCHEMA, new java.util.Date(86_400_000L), "time of day");
        assertEquals("'2023-11-14 22:13:20.123'", of(Timestamp.SCHEMA, new java.util.Date(1_700_000_000_123L)));
        assertEquals("'1969-12-31 23:59:59.999'", of(Timestamp.SCHEMA, new java.util.Date(-1L)));
        none(Date.SCHEMA, 5, "Java type Integer");
    }

    @Test
    void decimals() {
        Schema d38 = Decimal.builder(4).parameter("connect.decimal.precision", "38").build();
        assertEquals("Decimal(38, 4)", TYPES.baseType(d38));
        assertEquals("'-1234567890123456789012345678901234.5678'", of(d38,
                new BigDecimal("-1234567890123456789012345678901234.5678")), "38 digits");
        none(d38, new BigDecimal("12345678901234567890123456789012345.0000"), "more than 38 digits");
        assertEquals("'1.5000'", of(d38, new BigDecimal("1.5")), "scale made the column's without rounding");
        none(d38, new BigDecimal("1.23456"), "more than 4 digits after the point");
        Schema d76 = Decimal.builder(10).parameter("connect.decimal.precision", "76").build();
        String digits = "9".repeat(66) + "." + "9".repeat(10);
        assertEquals("'" + digits + "'", of(d76, new BigDecimal(digits)));
        assertEquals("'0.0000000001'", of(d76, new BigDecimal("1E-10")), "plain text, no exponent");
        Schema noPrecision = Decimal.schema(0);
        assertEquals("Decimal(64, 0)", TYPES.baseType(noPrecision), "AvroData's default precision");
        assertEquals("'-1000'", of(noPrecision, new BigDecimal("-1E+3")));
    }

    @Test
    void debeziumDatesAndTimestamps() {
        Schema date = named(Schema.Type.INT32, "io.debezium.time.Date");
        assertEquals("Date32", TYPES.baseType(date));
        assertEquals("'2020-01-01'", of(date, 18262));
        assertEquals("'1970-01-01'", of(date, 0));
        assertEquals("'1969-12-31'", of(date, -1));
        assertEquals("'1900-01-01'", of(date, -25567));
        assertEquals("'2299-12-31'", of(date, 120529));
        none(date, -25568, "Date32's range");
        none(date, 120530, "Date32's range");
        none(date, Integer.MAX_VALUE, "Date32's range");

        Schema ms = named(Schema.Type.INT64, "io.debezium.time.Timestamp");
        Schema us = named(Schema.Type.INT64, "io.debezium.time.MicroTimestamp");
        Schema ns = named(Schema.Type.INT64, "io.debezium.time.NanoTimestamp");
        assertEquals("DateTime64(6, 'UTC')", TYPES.baseType(us));
        assertEquals("'2020-01-01 00:00:00.000'", of(ms, 1_577_836_800_000L));
        assertEquals("'2020-01-01 00:00:00.000001'", of(us, 1_577_836_800_000_001L));
        assertEquals("'2020-01-01 00:00:00.123456789'", of(ns, 1_577_836_800_123_456_789L));
        assertEquals("'1969-12-31 23:59:59.999999'", of(us, -1L));
        assertEquals("'1900-01-01 00:00:00.000000'", of(us, -2_208_988_800_000_000L));
        assertEquals("'2299-12-31 23:59:59.999999'", of(us, 10_413_791_999_999_999L));
        assertEquals("'2262-04-11 23:47:16.854775807'", of(ns, Long.MAX_VALUE), "DateTime64(9)'s last instant");
        assertEquals("'1970-01-01 00:00:00.000000'", of(us, 0L), "Debezium's placeholder for now() and the like");
        none(us, -2_208_988_800_000_001L, "DateTime64's range");
        none(ms, 10_413_792_000_000L, "DateTime64's range");
        none(us, Long.MAX_VALUE, "DateTime64's range");

        Schema zoned = named(Schema.Type.STRING, "io.debezium.time.ZonedTimestamp");
        assertEquals("DateTime64(9, 'UTC')", TYPES.baseType(zoned));
        assertEquals("'2020-01-01 00:00:00.000000000'", of(zoned, "2020-01-01T00:00:00Z"));
        assertEquals("'2020-01-01 08:15:30.123456000'", of(zoned, "2020-01-01T10:15:30.123456+02:00"));
        assertEquals("'1969-12-31 23:59:59.999999999'", of(zoned, "1969-12-31T23:59:59.999999999Z"));
        none(zoned, "2020-01-01 00:00:00", "with an offset");
        none(zoned, "1899-12-31T23:59:59Z", "range");
    }

    @Test
    void debeziumTimes() {
        Schema ms = named(Schema.Type.INT32, "io.debezium.time.Time");
        Schema us = named(Schema.Type.INT64, "io.debezium.time.MicroTime");
        Schema ns = named(Schema.Type.INT64, "io.debezium.time.NanoTime");
        assertEquals("Time64(3)", TYPES.baseType(ms));
        assertEquals("Time64(6)", TYPES.baseType(us));
        assertEquals("Time64(9)", TYPES.baseType(ns));
        assertEquals("'12:34:56.789'", of(ms, 45_296_789));
        assertEquals("'00:00:00.000000'", of(us, 0L));
        assertEquals("'24:00:00.000000'", of(us, 86_400_000_000L), "PostgreSQL's 24:00");
        assertEquals("'23:59:59.999999'", of(us, 86_399_999_999L));
        assertEquals("'01:00:00.000000001'", of(ns, 3_600_000_000_001L));
        assertEquals("'-00:00:01.500000'", of(us, -1_500_000L));
        assertEquals("'999:59:59.999999'", of(us, 3_599_999_999_999L));
        none(us, 3_600_000_000_000L, "Time64's range");
        none(ns, Long.MIN_VALUE, "Time64's range");
        Schema zonedTime = named(Schema.Type.STRING, "io.debezium.time.ZonedTime");
        assertEquals("String", TYPES.baseType(zonedTime));
        assertEquals("'10:15:30.123456Z'", of(zonedTime, "10:15:30.123456Z"));
        Schema year = named(Schema.Type.INT32, "io.debezium.time.Year");
        assertEquals("Int32", TYPES.baseType(year));
        assertEquals("2024", of(year, 2024));
        Schema duration = named(Schema.Type.INT64, "io.debezium.time.MicroDuration");
        assertEquals("-3600000000", of(duration, -3_600_000_000L));
    }

    @Test
    void debeziumDataTypes() {
        Schema uuid = named(Schema.Type.STRING, "io.debezium.data.Uuid");
        assertEquals("UUID", TYPES.baseType(uuid));
        assertEquals("'76019d1a-ad2e-4b22-96e9-1a6d6543c818'", of(uuid, "76019d1a-ad2e-4b22-96e9-1a6d6543c818"));
        assertEquals("'00000000-0000-0000-0000-000000000000'", of(uuid, "00000000-0000-0000-0000-000000000000"));
        none(uuid, "76019d1a", "not a UUID");
        Schema json = named(Schema.Type.STRING, "io.debezium.data.Json");
        assertEquals("'{\"a\": \"it\\'s\", \"b\": [1]}'", of(json, "{\"a\": \"it's\", \"b\": [1]}"));
        Schema en = new SchemaBuilder(Schema.Type.STRING).name("io.debezium.data.Enum").parameter("allowed", "a,b'c").build();
        assertEquals("'b\\'c'", of(en, "b'c"));
        Schema set = named(Schema.Type.STRING, "io.debezium.data.EnumSet");
        assertEquals("'a,b'", of(set, "a,b"));

        Schema vsd = SchemaBuilder.struct().name("io.debezium.data.VariableScaleDecimal")
                .field("scale", Schema.INT32_SCHEMA).field("value", Schema.BYTES_SCHEMA).build();
        assertEquals("String", TYPES.baseType(vsd));
        assertEquals("'-12.345'", of(vsd, new Struct(vsd).put("scale", 3)
                .put("value", BigInteger.valueOf(-12345).toByteArray())));
        assertEquals("'123456789012345678901234567890'", of(vsd, new Struct(vsd).put("scale", 0)
                .put("value", new BigInteger("123456789012345678901234567890").toByteArray())));
        assertEquals("'1000'", of(vsd, new Struct(vsd).put("scale", -3).put("value", new byte[] {1})),
                "as the row writer writes it: plain text");
    }

    @Test
    void arraysAndMaps() {
        assertEquals("[1, NULL, 3]", of(SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).build(), Arrays.asList(1, null, 3)));
        assertEquals("[]", of(SchemaBuilder.array(Schema.STRING_SCHEMA).build(), List.of()));
        assertEquals("map('a', 1)", of(SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).build(), Map.of("a", 1L)));
        assertEquals("map()", of(SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).build(), Map.of()));
        Schema dates = SchemaBuilder.array(named(Schema.Type.INT32, "io.debezium.time.Date")).build();
        assertEquals("Array(Date32)", TYPES.baseType(dates));
        assertEquals("['2020-01-01', '1960-01-01']", of(dates, List.of(18262, -3653)));
        none(dates, List.of(18262, -30000), "Date32's range");
        Schema texts = SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).build();
        assertEquals("['a\\'b', NULL]", of(texts, Arrays.asList("a'b", null)));
        Schema byTime = SchemaBuilder.map(Schema.STRING_SCHEMA, named(Schema.Type.INT64, "io.debezium.time.MicroTime")).build();
        assertEquals("map('x', '00:00:01.000000')", of(byTime, Map.of("x", 1_000_000L)));
        none(SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build(), List.of(), "Struct");
    }

    @Test
    void unions() {
        Schema union = SchemaBuilder.struct().name("io.confluent.connect.avro.Union")
                .field("int", Schema.OPTIONAL_INT32_SCHEMA).field("string", Schema.OPTIONAL_STRING_SCHEMA).build();
        none(union, new Struct(union).put("int", 1), "union");
    }
}
