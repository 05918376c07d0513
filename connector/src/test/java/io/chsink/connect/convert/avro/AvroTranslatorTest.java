package io.chsink.connect.convert.avro;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.convert.avro.AvroTranslator.Translated;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

/**
 * The translation table (each Avro type and logical type → the Connect schema Confluent's AvroData makes of it, with
 * its parameters, names, docs and defaults) and the decoder (Avro binary written by Apache Avro's own
 * GenericDatumWriter → the Connect values AvroData would produce).
 */
class AvroTranslatorTest {
    static org.apache.avro.Schema avro(String json) {
        return new org.apache.avro.Schema.Parser().parse(json);
    }

    static byte[] write(org.apache.avro.Schema schema, Object datum) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<Object>(schema, GenericData.get()).write(datum, enc);
            enc.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    static Translated translate(org.apache.avro.Schema schema) {
        return new AvroTranslator(true, false).translate(schema);
    }

    static Object read(Translated t, byte[] bytes) {
        AvroInput in = new AvroInput(bytes, 0, bytes.length);
        Object v = t.reader.read(in);
        assertEquals(0, in.remaining(), "bytes left after the value");
        return v;
    }

    /** Translates {@code json}, checks the schema, writes {@code datum} with Apache Avro and checks what is read. */
    static void check(String json, Schema expectedSchema, Object datum, Object expectedValue) {
        org.apache.avro.Schema s = avro(json);
        Translated t = translate(s);
        assertEquals(expectedSchema, t.schema, json);
        assertEquals(expectedValue, read(t, write(s, datum)), json);
    }

    @Test
    void primitivesBecomeTheirConnectTypes() {
        check("\"boolean\"", Schema.BOOLEAN_SCHEMA, true, true);
        check("\"int\"", Schema.INT32_SCHEMA, Integer.MIN_VALUE, Integer.MIN_VALUE);
        check("\"long\"", Schema.INT64_SCHEMA, Long.MAX_VALUE, Long.MAX_VALUE);
        check("\"long\"", Schema.INT64_SCHEMA, -1L, -1L);
        check("\"float\"", Schema.FLOAT32_SCHEMA, 1.5f, 1.5f);
        check("\"float\"", Schema.FLOAT32_SCHEMA, Float.NaN, Float.NaN);
        check("\"double\"", Schema.FLOAT64_SCHEMA, -0.1, -0.1);
        check("\"double\"", Schema.FLOAT64_SCHEMA, Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY);
        check("\"string\"", Schema.STRING_SCHEMA, "héllo, 世界 \uD83D\uDE00", "héllo, 世界 \uD83D\uDE00");
        check("\"string\"", Schema.STRING_SCHEMA, "", "");
        check("\"bytes\"", Schema.BYTES_SCHEMA, ByteBuffer.wrap(new byte[] {0, -1, 7}), ByteBuffer.wrap(new byte[] {0, -1, 7}));
        // connect.type annotations (what Confluent's converter writes for Connect int8/int16)
        check("{\"type\":\"int\",\"connect.type\":\"int8\"}", Schema.INT8_SCHEMA, -128, (byte) -128);
        check("{\"type\":\"int\",\"connect.type\":\"int16\"}", Schema.INT16_SCHEMA, 32767, (short) 32767);
    }

    /**
     * The Connect Decimal schema of an Avro decimal, as Confluent's AvroData.toConnectSchema (avro-data module,
     * io.confluent.connect.avro.AvroData, case BYTES/FIXED with logicalType "decimal") makes it: Decimal.builder(scale)
     * with the Avro "scale" (0 when absent), and the parameter connect.decimal.precision set to the Avro "precision"
     * only when there is one and it differs from CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT = 64. So precision 38 is kept,
     * 64 is not, and a decimal without a precision (not valid Avro: Apache Avro ignores such a logical type, AvroData
     * reads the properties anyway) has none. A precision that is not a number is AvroData's DataException.
     */
    @Test
    void decimalPrecisionAsAvroData() {
        ByteBuffer unscaled = ByteBuffer.wrap(new BigInteger("-1234567890123456789012345678901234567890").toByteArray());
        BigDecimal value = new BigDecimal("-12345678901234567890123456789012345678.90");
        check("{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":64,\"scale\":2}", Decimal.schema(2),
                unscaled, value);
        check("{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":38,\"scale\":2}",
                Decimal.builder(2).parameter("connect.decimal.precision", "38").build(), ByteBuffer.wrap(new byte[] {1}),
                new BigDecimal("0.01"));
        check("{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":65,\"scale\":2}",
                Decimal.builder(2).parameter("connect.decimal.precision", "65").build(), unscaled, value);
        check("{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":100,\"scale\":0}",
                Decimal.builder(0).parameter("connect.decimal.precision", "100").build(), ByteBuffer.wrap(new byte[] {7}),
                new BigDecimal("7"));
        check("{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"scale\":3}", Decimal.schema(3),
                ByteBuffer.wrap(new byte[] {-1}), new BigDecimal("-0.001"));
        check("{\"type\":\"bytes\",\"logicalType\":\"decimal\"}", Decimal.schema(0), ByteBuffer.wrap(new byte[] {5}),
                new BigDecimal("5"));
        org.apache.avro.Schema fixed64 = avro("{\"type\":\"fixed\",\"name\":\"F\",\"size\":27,\"logicalType\":"
                + "\"decimal\",\"precision\":64,\"scale\":0}");
        assertEquals(Decimal.builder(0).parameter("connect.fixed.size", "27").build(), translate(fixed64).schema,
                "fixed: the size, no precision at 64");
        DataException notANumber = assertThrows(DataException.class, () -> translate(avro(
                "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":\"9\",\"scale\":2}")));
        assertTrue(notANumber.getMessage().startsWith("precision property must be a JSON Integer"), notANumber.getMessage());
    }

    @Test
    void logicalTypesFollowAvroData() {
        check("{\"type\":\"int\",\"logicalType\":\"date\"}", Date.SCHEMA, -25567, new java.util.Date(-25567L * 86_400_000L));
        check("{\"type\":\"int\",\"logicalType\":\"time-millis\"}", Time.SCHEMA, 45_296_789, new java.util.Date(45_296_789L));
        check("{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}", Timestamp.SCHEMA, -1L, new java.util.Date(-1L));
        // decimal: precision kept as connect.decimal.precision unless it is AvroData's default of 64
        // (decimalPrecisionAsAvroData below)
        Schema dec = Decimal.builder(2).parameter("connect.decimal.precision", "9").build();
        check("{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":9,\"scale\":2}", dec,
                ByteBuffer.wrap(BigInteger.valueOf(-12345).toByteArray()), new BigDecimal("-123.45"));
        check("{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":38,\"scale\":4}",
                Decimal.builder(4).parameter("connect.decimal.precision", "38").build(),
                ByteBuffer.wrap(new BigInteger("12345678901234567890123456789012345678").toByteArray()),
                new BigDecimal("1234567890123456789012345678901234.5678"));
        Schema fixedDec = Decimal.builder(3).parameter("connect.decimal.precision", "20")
                .parameter("connect.fixed.size", "16").build();
        byte[] sixteen = new byte[16];
        Arrays.fill(sixteen, (byte) 0xFF);
        sixteen[15] = (byte) 0xFE; // -2
        org.apache.avro.Schema fd = avro("{\"type\":\"fixed\",\"name\":\"D\",\"size\":16,\"logicalType\":\"decimal\","
                + "\"precision\":20,\"scale\":3}");
        check(fd.toString(), fixedDec, new GenericData.Fixed(fd, sixteen), new BigDecimal("-0.002"));
        // the logical types AvroData leaves as their underlying type
        check("{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}", Schema.INT64_SCHEMA, 1_000_001L, 1_000_001L);
        check("{\"type\":\"long\",\"logicalType\":\"time-micros\"}", Schema.INT64_SCHEMA, 5L, 5L);
        check("{\"type\":\"long\",\"logicalType\":\"local-timestamp-millis\"}", Schema.INT64_SCHEMA, 7L, 7L);
        check("{\"type\":\"string\",\"logicalType\":\"uuid\"}", Schema.STRING_SCHEMA, "0b6c3c1e-0000-4000-8000-000000000001",
                "0b6c3c1e-0000-4000-8000-000000000001");
        org.apache.avro.Schema dur = avro("{\"type\":\"fixed\",\"name\":\"Dur\",\"namespace\":\"n\",\"size\":12,"
                + "\"logicalType\":\"duration\"}");
        byte[] twelve = new byte[12];
        twelve[0] = 1;
        check(dur.toString(), SchemaBuilder.bytes().name("n.Dur").parameter("connect.fixed.size", "12").build(),
                new GenericData.Fixed(dur, twelve), ByteBuffer.wrap(twelve));
    }

    @Test
    void enumsFixedArraysAndMaps() {
        org.apache.avro.Schema e = avro("{\"type\":\"enum\",\"name\":\"Color\",\"namespace\":\"a.b\",\"doc\":\"colours\","
                + "\"symbols\":[\"RED\",\"GREEN\"],\"default\":\"RED\"}");
        Schema enumSchema = SchemaBuilder.string().name("a.b.Color")
                .parameter("io.confluent.connect.avro.enum.doc.Color", "colours")
                .parameter("io.confluent.connect.avro.enum.default.Color", "RED")
                .parameter("io.confluent.connect.avro.Enum", "a.b.Color")
                .parameter("io.confluent.connect.avro.Enum.RED", "RED")
                .parameter("io.confluent.connect.avro.Enum.GREEN", "GREEN").build();
        check(e.toString(), enumSchema, new GenericData.EnumSymbol(e, "GREEN"), "GREEN");

        org.apache.avro.Schema f = avro("{\"type\":\"fixed\",\"name\":\"Hash\",\"size\":4}");
        check(f.toString(), SchemaBuilder.bytes().name("Hash").parameter("connect.fixed.size", "4").build(),
                new GenericData.Fixed(f, new byte[] {1, 2, 3, 4}), ByteBuffer.wrap(new byte[] {1, 2, 3, 4}));

        check("{\"type\":\"array\",\"items\":\"long\"}", SchemaBuilder.array(Schema.INT64_SCHEMA).build(),
                List.of(1L, -2L, 3L), List.of(1L, -2L, 3L));
        check("{\"type\":\"array\",\"items\":\"string\"}", SchemaBuilder.array(Schema.STRING_SCHEMA).build(), List.of(), List.of());
        check("{\"type\":\"array\",\"items\":[\"null\",\"int\"]}", SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).build(),
                Arrays.asList(1, null, 3), Arrays.asList(1, null, 3));
        Map<String, Object> m = new HashMap<>();
        m.put("a", 1.5);
        m.put("", -0.0);
        check("{\"type\":\"map\",\"values\":\"double\"}", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.FLOAT64_SCHEMA).build(),
                m, m);
        check("{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":\"int\"}}",
                SchemaBuilder.array(SchemaBuilder.array(Schema.INT32_SCHEMA).build()).build(),
                List.of(List.of(1), List.of()), List.of(List.of(1), List.of()));
    }

    @Test
    void anArrayOfMapEntriesIsAMapWithKeysOfAnyType() {
        org.apache.avro.Schema s = avro("{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"MapEntry\","
                + "\"namespace\":\"io.confluent.connect.avro\",\"fields\":[{\"name\":\"key\",\"type\":\"int\"},"
                + "{\"name\":\"value\",\"type\":\"string\"}]}}");
        GenericRecord e1 = new GenericData.Record(s.getElementType());
        e1.put("key", 7);
        e1.put("value", "seven");
        Translated t = translate(s);
        assertEquals(SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build(), t.schema);
        assertEquals(Map.of(7, "seven"), read(t, write(s, List.of(e1))));
    }

    @Test
    void unionsAreOptionalValuesOrUnionStructsWithBranchNamedFields() {
        check("[\"null\",\"string\"]", Schema.OPTIONAL_STRING_SCHEMA, "x", "x");
        check("[\"null\",\"string\"]", Schema.OPTIONAL_STRING_SCHEMA, null, null);
        check("[\"long\",\"null\"]", Schema.OPTIONAL_INT64_SCHEMA, 5L, 5L);
        check("[\"int\"]", Schema.INT32_SCHEMA, 5, 5); // a singleton union is flattened

        org.apache.avro.Schema u = avro("[\"null\",\"int\",\"string\",{\"type\":\"record\",\"name\":\"P\",\"namespace\":\"q\","
                + "\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}]");
        Schema p = SchemaBuilder.struct().name("q.P").optional().field("x", Schema.INT32_SCHEMA).build();
        Schema union = SchemaBuilder.struct().name("io.confluent.connect.avro.Union").optional()
                .field("int", Schema.OPTIONAL_INT32_SCHEMA).field("string", Schema.OPTIONAL_STRING_SCHEMA)
                .field("P", p).build();
        check(u.toString(), union, "s", new Struct(union).put("string", "s"));
        check(u.toString(), union, 42, new Struct(union).put("int", 42));
        check(u.toString(), union, null, null);
        GenericRecord pr = new GenericData.Record(u.getTypes().get(3));
        pr.put("x", 9);
        check(u.toString(), union, pr, new Struct(union).put("P", new Struct(p).put("x", 9)));
        // no null branch: a required union struct
        Schema required = SchemaBuilder.struct().name("io.confluent.connect.avro.Union")
                .field("int", Schema.OPTIONAL_INT32_SCHEMA).field("boolean", Schema.OPTIONAL_BOOLEAN_SCHEMA).build();
        check("[\"int\",\"boolean\"]", required, true, new Struct(required).put("boolean", true));
        // enhanced.avro.schema.support names record branches by their full names
        Translated enhanced = new AvroTranslator(true, true).translate(u);
        assertTrue(enhanced.schema.field("q.P") != null, enhanced.schema.fields().toString());
    }

    @Test
    void recordsKeepNamesDocsAndDefaultsAsAvroDataDoes() {
        String json = "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"shop\",\"doc\":\"an order\",\"fields\":["
                + "{\"name\":\"id\",\"type\":\"long\",\"doc\":\"the id\"},"
                + "{\"name\":\"qty\",\"type\":\"int\",\"default\":1},"
                + "{\"name\":\"note\",\"type\":[\"null\",\"string\"],\"default\":null},"
                + "{\"name\":\"tag\",\"type\":\"string\",\"default\":\"none\"},"
                + "{\"name\":\"price\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":10,\"scale\":2},"
                + "\"default\":\"\\u0001\"},"
                + "{\"name\":\"day\",\"type\":{\"type\":\"int\",\"logicalType\":\"date\"},\"default\":1},"
                + "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[\"a\"]}]}";
        Schema order = SchemaBuilder.struct().name("shop.Order")
                .parameter("io.confluent.connect.avro.record.doc", "an order")
                .parameter("io.confluent.connect.avro.field.doc.id", "the id")
                .field("id", Schema.INT64_SCHEMA)
                .field("qty", SchemaBuilder.int32().parameter("io.confluent.connect.avro.field.default", "true").defaultValue(1).build())
                .field("note", Schema.OPTIONAL_STRING_SCHEMA)
                .field("tag", SchemaBuilder.string().parameter("io.confluent.connect.avro.field.default", "true")
                        .defaultValue("none").build())
                .field("price", Decimal.builder(2).parameter("connect.decimal.precision", "10")
                        .parameter("io.confluent.connect.avro.field.default", "true").defaultValue(new BigDecimal("0.01")).build())
                .field("day", Date.builder().parameter("io.confluent.connect.avro.field.default", "true")
                        .defaultValue(new java.util.Date(86_400_000L)).build())
                .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA)
                        .parameter("io.confluent.connect.avro.field.default", "true").defaultValue(List.of("a")).build())
                .build();
        org.apache.avro.Schema s = avro(json);
        GenericRecord r = new GenericData.Record(s);
        r.put("id", 10L);
        r.put("qty", 3);
        r.put("note", null);
        r.put("tag", "t");
        r.put("price", ByteBuffer.wrap(BigInteger.valueOf(999).toByteArray()));
        r.put("day", 2);
        r.put("tags", List.of());
        Struct expected = new Struct(order).put("id", 10L).put("qty", 3).put("note", null).put("tag", "t")
                .put("price", new BigDecimal("9.99")).put("day", new java.util.Date(2 * 86_400_000L)).put("tags", List.of());
        check(json, order, r, expected);
    }

    @Test
    void connectPropertiesNameVersionDocAndParameters() {
        String json = "{\"type\":\"record\",\"name\":\"ConnectDefault\",\"namespace\":\"io.confluent.connect.avro\","
                + "\"connect.version\":3,\"connect.doc\":\"from connect\",\"connect.parameters\":{\"k\":\"v\"},"
                + "\"fields\":[{\"name\":\"s\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}]}";
        Schema expected = SchemaBuilder.struct().version(3).doc("from connect").parameter("k", "v")
                .field("s", SchemaBuilder.string().parameter("avro.java.string", "String").build()).build();
        Translated t = translate(avro(json));
        assertEquals(expected, t.schema);
        assertNull(t.schema.name(), "ConnectDefault names are not kept");
        assertEquals("my.Name", translate(avro("{\"type\":\"string\",\"connect.name\":\"my.Name\"}")).schema.name());
    }

    @Test
    void recursiveAndNullSchemasAreClearErrors() {
        DataException e = assertThrows(DataException.class, () -> translate(avro("{\"type\":\"record\",\"name\":\"Node\","
                + "\"namespace\":\"t\",\"fields\":[{\"name\":\"next\",\"type\":[\"null\",\"Node\"]}]}")));
        assertTrue(e.getMessage().contains("recursive") && e.getMessage().contains("t.Node"), e.getMessage());
        assertThrows(DataException.class, () -> translate(avro("\"null\"")));
        // the same named type twice, not inside itself, is no recursion
        Translated twice = translate(avro("{\"type\":\"record\",\"name\":\"Two\",\"fields\":[{\"name\":\"a\",\"type\":"
                + "{\"type\":\"record\",\"name\":\"In\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}},"
                + "{\"name\":\"b\",\"type\":\"In\"}]}"));
        assertEquals(twice.schema.field("a").schema(), twice.schema.field("b").schema());
    }

    @Test
    void badBytesAreBadAvroNeverAnIndexError() {
        Translated rec = translate(avro("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"s\",\"type\":\"string\"},"
                + "{\"name\":\"u\",\"type\":[\"null\",\"int\"]},{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\","
                + "\"symbols\":[\"A\"]}},{\"name\":\"a\",\"type\":{\"type\":\"array\",\"items\":\"long\"}},"
                + "{\"name\":\"b\",\"type\":\"boolean\"}]}"));
        byte[][] bad = {
            {}, // nothing
            {10, 'a'}, // a string of 5 bytes with 1 left
            {1}, // a string of -1 bytes
            {0, 4}, // union branch 2 of 2
            {0, 0, 2}, // enum symbol 1 of 1
            {0, 0, 0, (byte) 0xFE, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F}, // an array of 2^31 items
            {0, 0, 0, 0, 5}, // boolean byte 5
            {0, 0, 0, 0}, // ends before the boolean
            {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80,
                (byte) 0x80, (byte) 0x80, 1}, // an 11-byte varint
        };
        for (byte[] b : bad) {
            assertThrows(AvroInput.BadAvro.class, () -> rec.reader.read(new AvroInput(b, 0, b.length)), Arrays.toString(b));
        }
        Translated time = translate(avro("{\"type\":\"int\",\"logicalType\":\"time-millis\"}"));
        byte[] minus = write(avro("\"int\""), -1);
        assertThrows(AvroInput.BadAvro.class, () -> time.reader.read(new AvroInput(minus, 0, minus.length)));
        Translated dec = translate(avro("{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":4,\"scale\":1}"));
        byte[] empty = {0};
        assertThrows(AvroInput.BadAvro.class, () -> dec.reader.read(new AvroInput(empty, 0, 1)));
    }

    @Test
    void blockedArraysWithByteSizesAreRead() {
        // count -2 with a byte size, then 1 more item, then the end: what block-writing encoders produce
        byte[] b = {3, 4, 2, 4, 2, 6, 0};
        Translated t = translate(avro("{\"type\":\"array\",\"items\":\"int\"}"));
        assertEquals(List.of(1, 2, 3), read(t, b));
    }
}
