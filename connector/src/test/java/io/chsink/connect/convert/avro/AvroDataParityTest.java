package io.chsink.connect.convert.avro;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.NameValidator;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Parity with Confluent's AvroData (issue 22): for each Avro construct and AvroData setting, the Connect schema and
 * value AvroConverter gives equal what {@code io.confluent.connect.avro.AvroData} gives. The expectations are written
 * out by hand from Confluent's source, confluentinc/schema-registry at commit 794611bd86d1 (branch master, 8.x):
 * {@code avro-data/src/main/java/io/confluent/connect/avro/AvroData.java}, cited below as "AvroData" with the method
 * and line. Each datum is written with Apache Avro's GenericDatumWriter (from Avro's JSON encoding of it), framed
 * with a schema id, and read through AvroConverter, whose writer schema comes from a scripted registry endpoint.
 * Where this converter deliberately differs (AvroData fails the record, or cannot be matched without wrong data),
 * the test says so and asserts this converter's result; docs/avro.md lists the differences.
 */
class AvroDataParityTest {
    private static final String NS = "io.confluent.connect.avro.";
    private static final String FIELD_DEFAULT = NS + "field.default";
    private static final AtomicInteger IDS = new AtomicInteger();
    private static ScriptedRegistry registry;

    @BeforeAll
    static void start() throws IOException {
        registry = new ScriptedRegistry();
    }

    @AfterAll
    static void stop() {
        registry.close();
    }

    /** The Connect data AvroConverter (settings {@code extra}) gives for a datum (Avro JSON) of writer schema {@code schema}. */
    static SchemaAndValue read(Map<String, Object> extra, String schema, String datumJson) {
        int id = IDS.incrementAndGet();
        registry.bodies.put("/schemas/ids/" + id + "?subject=parity-value", ScriptedRegistry.answer(schema));
        Map<String, Object> config = registry.config();
        config.putAll(extra);
        AvroConverter converter = new AvroConverter();
        converter.configure(config, false);
        try {
            return converter.toConnectData("parity", framed(id, schema, datumJson));
        } finally {
            converter.close();
        }
    }

    static SchemaAndValue read(String schema, String datumJson) {
        return read(Map.of(), schema, datumJson);
    }

    static byte[] framed(int id, String schema, String datumJson) {
        try {
            org.apache.avro.Schema s = new org.apache.avro.Schema.Parser(NameValidator.NO_VALIDATION)
                    .setValidateDefaults(false).parse(schema);
            Object datum = new GenericDatumReader<>(s).read(null,
                    org.apache.avro.io.DecoderFactory.get().jsonDecoder(s, datumJson));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(0);
            out.write(new byte[] {(byte) (id >>> 24), (byte) (id >>> 16), (byte) (id >>> 8), (byte) id});
            BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<Object>(s).write(datum, enc);
            enc.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    static void check(String schema, String datumJson, Schema expectedSchema, Object expectedValue) {
        SchemaAndValue sv = read(schema, datumJson);
        assertEquals(expectedSchema, sv.schema(), schema);
        assertEquals(expectedValue, sv.value(), schema);
    }

    static ByteBuffer bytes(int... b) {
        byte[] out = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = (byte) b[i];
        }
        return ByteBuffer.wrap(out);
    }

    static Schema optional(Schema s) {
        SchemaBuilder b = new SchemaBuilder(s.type()).optional();
        if (s.name() != null) {
            b.name(s.name());
        }
        if (s.parameters() != null) {
            b.parameters(s.parameters());
        }
        return b.build();
    }

    // ---- primitives -------------------------------------------------------------------------------------------

    @Test
    void primitives() {
        // AvroData.toConnectSchema (l. 1888-1955: case BOOLEAN, BYTES, DOUBLE, FLOAT, INT, LONG, STRING) makes the
        // plain Connect type; toConnectData (l. 1637-1697) passes the value through, bytes as ByteBuffer.wrap.
        check("\"boolean\"", "true", Schema.BOOLEAN_SCHEMA, true);
        check("\"int\"", "-7", Schema.INT32_SCHEMA, -7);
        check("\"long\"", "9007199254740993", Schema.INT64_SCHEMA, 9007199254740993L);
        check("\"float\"", "1.5", Schema.FLOAT32_SCHEMA, 1.5f);
        check("\"double\"", "-2.25", Schema.FLOAT64_SCHEMA, -2.25d);
        check("\"string\"", "\"héllo\"", Schema.STRING_SCHEMA, "héllo");
        check("\"bytes\"", "\"\\u0000\\u00ff\"", Schema.BYTES_SCHEMA, bytes(0, 255));
    }

    @Test
    void connectTypeInt8AndInt16() {
        // AvroData.toConnectSchema case INT (l. 1925): connect.type int8/int16 (NON_AVRO_TYPES_BY_TYPE_CODE);
        // toConnectData case INT8/INT16 (l. 1663): Integer.byteValue/shortValue.
        check("{\"type\":\"int\",\"connect.type\":\"int8\"}", "-3", Schema.INT8_SCHEMA, (byte) -3);
        check("{\"type\":\"int\",\"connect.type\":\"int16\"}", "300", Schema.INT16_SCHEMA, (short) 300);
    }

    @Test
    void avroPropertiesBecomeParameters() {
        // AvroData.toConnectSchema (l. 2163): every property whose name starts with "avro" is a parameter.
        check("{\"type\":\"string\",\"avro.java.string\":\"String\"}", "\"x\"",
                SchemaBuilder.string().parameter("avro.java.string", "String").build(), "x");
    }

    // ---- logical types ----------------------------------------------------------------------------------------

    @Test
    void decimalOnBytes() {
        // AvroData.toConnectSchema case BYTES (l. 1891): Decimal.builder(scale), connect.decimal.precision unless 64;
        // toConnectData: TO_CONNECT_LOGICAL_CONVERTERS Decimal (l. 1805) → Decimal.toLogical.
        check("{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":10,\"scale\":2}", "\"\\u0004\\u00d2\"",
                Decimal.builder(2).parameter("connect.decimal.precision", "10").build(), new BigDecimal("12.34"));
        check("{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":64,\"scale\":1}", "\"\\u00ff\"",
                Decimal.builder(1).build(), new BigDecimal("-0.1"));
        check("{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":5}", "\"\\u0005\"",
                Decimal.builder(0).parameter("connect.decimal.precision", "5").build(), new BigDecimal("5"));
    }

    @Test
    void decimalOnFixed() {
        // AvroData.toConnectSchema case FIXED (l. 1891-1918): Decimal with connect.fixed.size; the fixed's name is
        // ignored for a decimal (l. 2198 "Ignore the fixed name if it is a decimal").
        check("{\"type\":\"fixed\",\"name\":\"Money\",\"namespace\":\"m\",\"size\":4,\"logicalType\":\"decimal\","
                + "\"precision\":9,\"scale\":3}", "\"\\u0000\\u0000\\u0030\\u0039\"",
                Decimal.builder(3).parameter("connect.decimal.precision", "9").parameter("connect.fixed.size", "4")
                        .build(), new BigDecimal("12.345"));
    }

    @Test
    void aDecimalTakesTheScaleOfItsSchemaParameters() {
        // connect.parameters (l. 2144) are set after Decimal.builder(scale), so {"scale": "3"} overwrites the scale,
        // and TO_CONNECT_LOGICAL_CONVERTERS' Decimal.toLogical takes the value's scale from the schema: 3.
        check("{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":9,\"scale\":2,"
                + "\"connect.parameters\":{\"scale\":\"3\"}}", "\"\\u0004\\u00d2\"",
                Decimal.builder(3).parameter("connect.decimal.precision", "9").build(), new BigDecimal("1.234"));
        // Text there fails the value, as Decimal.toLogical's Integer.parseInt does.
        DataException e = assertThrows(DataException.class, () -> read("{\"type\":\"bytes\",\"logicalType\":"
                + "\"decimal\",\"precision\":9,\"scale\":2,\"connect.parameters\":{\"scale\":\"x\"}}", "\"\\u0001\""));
        assertTrue(e.getMessage().contains("the parameter scale of a Decimal or fixed schema is not a number"),
                e.getMessage());
    }

    @Test
    void dateTimeMillisTimestampMillis() {
        // AvroData.toConnectSchema case INT (date → Date, time-millis → Time) and case LONG (timestamp-millis →
        // Timestamp); toConnectData's TO_CONNECT_LOGICAL_CONVERTERS Date/Time/Timestamp.toLogical.
        check("{\"type\":\"int\",\"logicalType\":\"date\"}", "19000", Date.SCHEMA,
                new java.util.Date(19000L * 86_400_000L));
        check("{\"type\":\"int\",\"logicalType\":\"time-millis\"}", "3723004", Time.SCHEMA,
                new java.util.Date(3_723_004L));
        check("{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}", "1700000000123", Timestamp.SCHEMA,
                new java.util.Date(1_700_000_000_123L));
    }

    @Test
    void logicalTypesAvroDataLeavesAsTheirUnderlyingType() {
        // AvroData.toConnectSchema: case INT has only date and time-millis, case LONG only timestamp-millis
        // (l. 1925-1951); logicalType does not start with "avro" (l. 2163), so no parameter either.
        check("{\"type\":\"long\",\"logicalType\":\"time-micros\"}", "3723004005", Schema.INT64_SCHEMA, 3_723_004_005L);
        check("{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}", "1700000000123456", Schema.INT64_SCHEMA,
                1_700_000_000_123_456L);
        check("{\"type\":\"long\",\"logicalType\":\"local-timestamp-millis\"}", "1700000000123", Schema.INT64_SCHEMA,
                1_700_000_000_123L);
        check("{\"type\":\"long\",\"logicalType\":\"local-timestamp-micros\"}", "1700000000123456",
                Schema.INT64_SCHEMA, 1_700_000_000_123_456L);
        check("{\"type\":\"string\",\"logicalType\":\"uuid\"}", "\"6f1c2a7e-1b2d-4c3e-9f00-0123456789ab\"",
                Schema.STRING_SCHEMA, "6f1c2a7e-1b2d-4c3e-9f00-0123456789ab");
        // duration is a fixed(12): bytes named by the fixed, with connect.fixed.size (case FIXED, l. 1916; name l. 2197).
        check("{\"type\":\"fixed\",\"name\":\"Duration\",\"namespace\":\"d\",\"size\":12,\"logicalType\":\"duration\"}",
                "\"\\u0001\\u0000\\u0000\\u0000\\u0002\\u0000\\u0000\\u0000\\u0003\\u0000\\u0000\\u0000\"",
                SchemaBuilder.bytes().name("d.Duration").parameter("connect.fixed.size", "12").build(),
                bytes(1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0));
    }

    // ---- enums, fixed, arrays, maps ----------------------------------------------------------------------------

    @Test
    void enums() {
        // AvroData.toConnectSchema case ENUM (l. 2020): a string named by the enum's full name (l. 2193), parameters
        // io.confluent.connect.avro.Enum = full name and .Enum.SYMBOL = SYMBOL (AVRO_TYPE_ENUM), and with
        // connect.meta.data the doc (AVRO_ENUM_DOC_PREFIX_PROP + short name) and default (AVRO_ENUM_DEFAULT_PREFIX_PROP).
        check("{\"type\":\"enum\",\"name\":\"Suit\",\"namespace\":\"c\",\"doc\":\"card suit\",\"default\":\"SPADES\","
                + "\"symbols\":[\"SPADES\",\"HEARTS\"]}", "\"HEARTS\"",
                SchemaBuilder.string().name("c.Suit").parameter(NS + "enum.doc.Suit", "card suit")
                        .parameter(NS + "enum.default.Suit", "SPADES").parameter(NS + "Enum", "c.Suit")
                        .parameter(NS + "Enum.SPADES", "SPADES").parameter(NS + "Enum.HEARTS", "HEARTS").build(),
                "HEARTS");
    }

    @Test
    void fixedArraysMapsAndMapEntries() {
        // AvroData.toConnectSchema case FIXED: bytes named by the full name with connect.fixed.size.
        check("{\"type\":\"fixed\",\"name\":\"F\",\"namespace\":\"x\",\"size\":2}", "\"\\u0001\\u0002\"",
                SchemaBuilder.bytes().name("x.F").parameter("connect.fixed.size", "2").build(), bytes(1, 2));
        // case ARRAY (l. 1956): array of the element schema; case MAP (l. 1978): map of string keys.
        check("{\"type\":\"array\",\"items\":\"int\"}", "[1,2]", SchemaBuilder.array(Schema.INT32_SCHEMA).build(),
                List.of(1, 2));
        check("{\"type\":\"map\",\"values\":\"long\"}", "{\"a\":1}",
                SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).build(), Map.of("a", 1L));
        // An array of io.confluent.connect.avro.MapEntry records is a map with that key type (isMapEntry, l. 1477;
        // case ARRAY l. 1959); toConnectData case MAP, arbitrary keys (l. 1726).
        check("{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"MapEntry\",\"namespace\":"
                + "\"io.confluent.connect.avro\",\"fields\":[{\"name\":\"key\",\"type\":\"int\"},"
                + "{\"name\":\"value\",\"type\":\"string\"}]}}", "[{\"key\":1,\"value\":\"one\"}]",
                SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build(), Map.of(1, "one"));
    }

    @Test
    void aMapEntryArrayWithStringKeysIsReadWhereAvroDataFails() {
        // Deliberate difference: an array of MapEntry records with non-optional string keys is a Connect map of
        // string keys (case ARRAY, l. 1959), and toConnectData case MAP (l. 1715) then casts the value, an Avro
        // array, to a Map: the record fails ("Invalid type for MAP"). This converter reads it as the map.
        check("{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"MapEntry\",\"namespace\":"
                + "\"io.confluent.connect.avro\",\"fields\":[{\"name\":\"key\",\"type\":\"string\"},"
                + "{\"name\":\"value\",\"type\":\"int\"}]}}", "[{\"key\":\"a\",\"value\":1}]",
                SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(), Map.of("a", 1));
    }

    // ---- unions ------------------------------------------------------------------------------------------------

    @Test
    void unionsWithNullAreOptional() {
        // AvroData.toConnectSchema case UNION (l. 2048): two branches, one of them null: the other, optional.
        check("[\"null\",\"string\"]", "{\"string\":\"s\"}", Schema.OPTIONAL_STRING_SCHEMA, "s");
        check("[\"long\",\"null\"]", "null", Schema.OPTIONAL_INT64_SCHEMA, null);
    }

    @Test
    void aTopLevelNullIsAnOptionalSchemaAndNull() {
        // Deliberate difference: for a record whose whole value is null (a top-level ["null", T] union), AvroData's
        // toConnectData(org.apache.avro.Schema, Object, Integer) (l. 1511) returns null, no SchemaAndValue, and
        // Confluent's AvroConverter.toConnectData returns that null to Connect. This converter gives the optional
        // schema and a null value.
        SchemaAndValue sv = read("[\"null\",\"string\"]", "null");
        assertEquals(Schema.OPTIONAL_STRING_SCHEMA, sv.schema());
        assertNull(sv.value());
    }

    @Test
    void unionsOfPrimitivesAreUnionStructs() {
        // AvroData.toConnectSchema case UNION: a struct named io.confluent.connect.avro.Union (AVRO_TYPE_UNION), one
        // optional field per non-null branch named by unionMemberFieldName (l. 2387: the Avro type name), optional if
        // a branch is null; toConnectData case STRUCT, union (l. 1742): the value in its branch's field.
        Schema union = SchemaBuilder.struct().name(NS + "Union").optional()
                .field("int", Schema.OPTIONAL_INT32_SCHEMA).field("string", Schema.OPTIONAL_STRING_SCHEMA).build();
        check("[\"null\",\"int\",\"string\"]", "{\"string\":\"s\"}", union, new Struct(union).put("string", "s"));
        check("[\"null\",\"int\",\"string\"]", "null", union, null);
        Schema notNull = SchemaBuilder.struct().name(NS + "Union")
                .field("int", Schema.OPTIONAL_INT32_SCHEMA).field("string", Schema.OPTIONAL_STRING_SCHEMA).build();
        check("[\"int\",\"string\"]", "{\"int\":4}", notNull, new Struct(notNull).put("int", 4));
    }

    @Test
    void unionsOfRecordsNameFieldsByShortOrFullName() {
        String schema = "[{\"type\":\"record\",\"name\":\"A\",\"namespace\":\"n\",\"fields\":[{\"name\":\"a\",\"type\":"
                + "\"int\"}]},{\"type\":\"record\",\"name\":\"B\",\"namespace\":\"n\",\"fields\":[{\"name\":\"b\","
                + "\"type\":\"string\"}]}]";
        Schema a = SchemaBuilder.struct().name("n.A").optional().field("a", Schema.INT32_SCHEMA).build();
        Schema b = SchemaBuilder.struct().name("n.B").optional().field("b", Schema.STRING_SCHEMA).build();
        // unionMemberFieldName (l. 2387): a record, enum or fixed branch by its short name...
        Schema union = SchemaBuilder.struct().name(NS + "Union").field("A", a).field("B", b).build();
        check(schema, "{\"n.B\":{\"b\":\"x\"}}", union, new Struct(union).put("B", new Struct(b).put("b", "x")));
        // ...and by its full name with enhanced.avro.schema.support=true.
        Schema enhanced = SchemaBuilder.struct().name(NS + "Union").field("n.A", a).field("n.B", b).build();
        SchemaAndValue sv = read(Map.of("enhanced.avro.schema.support", "true"), schema, "{\"n.A\":{\"a\":1}}");
        assertEquals(enhanced, sv.schema());
        assertEquals(new Struct(enhanced).put("n.A", new Struct(a).put("a", 1)), sv.value());
    }

    @Test
    void unionFieldNamesAreScrubbedWithScrubInvalidNames() {
        // unionMemberFieldName (l. 2396): splitName(schema.getName())[1], each part scrubbed (doScrubName, l. 1173:
        // URL-encoded, then every character but [A-Za-z0-9_] replaced by '_') with scrub.invalid.names=true.
        String schema = "[\"null\",\"int\",{\"type\":\"enum\",\"name\":\"Café\",\"symbols\":[\"A\"]}]";
        SchemaAndValue sv = read(Map.of("scrub.invalid.names", "true"), schema, "{\"Café\":\"A\"}");
        assertEquals(List.of("int", "Caf_C3_A9"), sv.schema().fields().stream().map(f -> f.name()).collect(java.util.stream.Collectors.toList()));
        assertEquals("A", ((Struct) sv.value()).get("Caf_C3_A9"));
        // Without it the name is kept.
        SchemaAndValue plain = read(schema, "{\"Café\":\"A\"}");
        assertEquals("A", ((Struct) plain.value()).get("Café"));
    }

    @Test
    void singletonUnionsAreFlattenedUnlessFlattenSingletonUnionsIsFalse() {
        // AvroData.toConnectSchema case UNION: one branch and flatten.singleton.unions (AvroDataConfig, default true):
        // the branch itself; false: a union struct of one field.
        check("[\"int\"]", "{\"int\":3}", Schema.INT32_SCHEMA, 3);
        Schema union = SchemaBuilder.struct().name(NS + "Union").field("int", Schema.OPTIONAL_INT32_SCHEMA).build();
        SchemaAndValue sv = read(Map.of("flatten.singleton.unions", "false"), "[\"int\"]", "{\"int\":3}");
        assertEquals(union, sv.schema());
        assertEquals(new Struct(union).put("int", 3), sv.value());
    }

    @Test
    void aFixedValueGoesToAnEarlierBytesBranchAsInAvroData() {
        // toConnectData's union case (l. 1742) takes the first field whose Java class the value is
        // (isInstanceOfAvroSchemaTypeForSimpleSchema, l. 2458; SIMPLE_AVRO_SCHEMA_TYPES, l. 136: BYTES takes
        // ByteBuffer, byte[] and GenericFixed): a fixed value lands in an earlier plain bytes branch...
        SchemaAndValue sv = read("[\"bytes\",{\"type\":\"fixed\",\"name\":\"F\",\"size\":2}]",
                "{\"F\":\"\\u0001\\u0002\"}");
        Struct s = (Struct) sv.value();
        assertEquals(bytes(1, 2), s.get("bytes"));
        assertNull(s.get("F"));
        // ...and a bytes value in an earlier fixed branch of its size (fixedValueSizeMatch).
        sv = read("[{\"type\":\"fixed\",\"name\":\"F\",\"size\":2},\"bytes\"]", "{\"bytes\":\"\\u0003\\u0004\"}");
        assertEquals(bytes(3, 4), ((Struct) sv.value()).get("F"));
        sv = read("[{\"type\":\"fixed\",\"name\":\"F\",\"size\":2},\"bytes\"]", "{\"bytes\":\"\\u0003\"}");
        assertEquals(bytes(3), ((Struct) sv.value()).get("bytes"));
    }

    @Test
    void fixedBranchesOfOneSizeAreMatchedByName() {
        // fixedValueSizeMatch (l. 2493): a fixed value goes to the fixed field of its own name, even beside another
        // of its size. Evidence: AvroDataTest.testToConnectFixedUnion (fixed sample(4), other(6), sameOther(6)).
        String schema = "[{\"type\":\"fixed\",\"name\":\"sample\",\"size\":4},{\"type\":\"fixed\",\"name\":"
                + "\"other\",\"size\":6},{\"type\":\"fixed\",\"name\":\"sameOther\",\"size\":6}]";
        Schema union = SchemaBuilder.struct().name(NS + "Union")
                .field("sample", SchemaBuilder.bytes().name("sample").parameter("connect.fixed.size", "4").optional()
                        .build())
                .field("other", SchemaBuilder.bytes().name("other").parameter("connect.fixed.size", "6").optional()
                        .build())
                .field("sameOther", SchemaBuilder.bytes().name("sameOther").parameter("connect.fixed.size", "6")
                        .optional().build())
                .build();
        check(schema, "{\"sameOther\":\"foobar\"}", union,
                new Struct(union).put("sameOther", bytes(102, 111, 111, 98, 97, 114)));
        check(schema, "{\"other\":\"foobar\"}", union,
                new Struct(union).put("other", bytes(102, 111, 111, 98, 97, 114)));
    }

    @Test
    void anEnumValueBesideAStringBranchStaysAnEnum() {
        // isInstanceOfAvroSchemaTypeForSimpleSchema (l. 2461): an enum value (GenericData.EnumSymbol, not a
        // CharSequence) skips the string field and lands in the enum's. Evidence: AvroDataTest.testEnumStringUnion
        // (EnumStringUnion.avsc, [null, string, UserType], written back with union index 2).
        String schema = "[\"null\",\"string\",{\"type\":\"enum\",\"name\":\"UserType\",\"namespace\":"
                + "\"com.connect.avro\",\"symbols\":[\"ANONYMOUS\",\"REGISTERED\"]}]";
        SchemaAndValue sv = read(schema, "{\"com.connect.avro.UserType\":\"ANONYMOUS\"}");
        Struct s = (Struct) sv.value();
        assertNull(s.get("string"));
        assertEquals("ANONYMOUS", s.get("UserType"));
        assertEquals("com.connect.avro.UserType", sv.schema().field("UserType").schema().name());
    }

    @Test
    void aFixedDecimalInAUnionIsReadWhereAvroDataFails() {
        // Deliberate difference: the field of a fixed decimal branch is a Decimal, whose name never matches the
        // value's fixed name (fixedValueSizeMatch, l. 2502), so AvroData throws "Did not find matching union field
        // for data". This converter puts the value in its own field.
        SchemaAndValue sv = read("[\"null\",\"string\",{\"type\":\"fixed\",\"name\":\"M\",\"size\":2,"
                + "\"logicalType\":\"decimal\",\"precision\":4,\"scale\":1}]", "{\"M\":\"\\u0000\\u000c\"}");
        assertEquals(new BigDecimal("1.2"), ((Struct) sv.value()).get("M"));
    }

    // ---- records -----------------------------------------------------------------------------------------------

    @Test
    void nestedRecordsWithDocs() {
        // AvroData.toConnectSchema case RECORD (l. 1986): a struct named by the full name, the record's doc as
        // io.confluent.connect.avro.record.doc, each field's doc as io.confluent.connect.avro.field.doc.NAME.
        Schema inner = SchemaBuilder.struct().name("r.Inner").parameter(NS + "record.doc", "inner doc")
                .field("x", Schema.INT64_SCHEMA).build();
        Schema outer = SchemaBuilder.struct().name("r.Outer").parameter(NS + "field.doc.in", "the inner")
                .field("in", inner).field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build()).build();
        check("{\"type\":\"record\",\"name\":\"Outer\",\"namespace\":\"r\",\"fields\":[{\"name\":\"in\",\"doc\":"
                + "\"the inner\",\"type\":{\"type\":\"record\",\"name\":\"Inner\",\"doc\":\"inner doc\",\"fields\":"
                + "[{\"name\":\"x\",\"type\":\"long\"}]}},{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":"
                + "\"string\"}}]}", "{\"in\":{\"x\":5},\"tags\":[\"a\"]}", outer,
                new Struct(outer).put("in", new Struct(inner).put("x", 5L)).put("tags", List.of("a")));
    }

    @Test
    void variantRecordsAreConnectVariants() {
        // AvroData.toConnectSchema case RECORD (l. 1987): a record of logical type "variant" (Confluent's
        // VariantLogicalType: exactly the bytes fields metadata and value) is ConnectVariant.builder(), the struct
        // org.apache.kafka.connect.data.Variant (metadata, value: bytes), without the record's doc or name (l. 2194);
        // toConnectData case STRUCT takes each field by name.
        Schema variant = SchemaBuilder.struct().name("org.apache.kafka.connect.data.Variant")
                .field("metadata", Schema.BYTES_SCHEMA).field("value", Schema.BYTES_SCHEMA).build();
        check("{\"type\":\"record\",\"name\":\"V\",\"doc\":\"a variant\",\"logicalType\":\"variant\",\"fields\":["
                + "{\"name\":\"value\",\"type\":\"bytes\"},{\"name\":\"metadata\",\"type\":\"bytes\"}]}",
                "{\"value\":\"\\u000c\",\"metadata\":\"\\u0001\\u0000\"}", variant,
                new Struct(variant).put("metadata", bytes(1, 0)).put("value", bytes(12)));
        // Any other record with that logicalType is a plain record (Avro drops a logical type validate() refuses).
        assertEquals("W", read("{\"type\":\"record\",\"name\":\"W\",\"logicalType\":\"variant\",\"fields\":["
                + "{\"name\":\"value\",\"type\":\"string\"}]}", "{\"value\":\"x\"}").schema().name());
    }

    @Test
    void recursiveRecordsAreRefused() {
        // Deliberate difference: AvroData builds a cyclic Connect schema (toConnectSchemaWithCycles, l. 2228); this
        // converter refuses it with a message naming the record.
        DataException e = assertThrows(DataException.class, () -> read("{\"type\":\"record\",\"name\":\"Node\","
                + "\"fields\":[{\"name\":\"next\",\"type\":[\"null\",\"Node\"]}]}", "{\"next\":null}"));
        assertTrue(e.getMessage().contains("record Node contains itself"), e.getMessage());
    }

    @Test
    void fieldDefaultsOfPrimitivesAndLogicalTypes() {
        // AvroData.toConnectSchema (l. 2169): a field's default (Avro's Field.defaultVal()) is the field schema's
        // default, with io.confluent.connect.avro.field.default=true when there is no connect.default; it is made by
        // defaultValueFromAvro (l. 2251: toConnectData without, then with the logical conversion).
        String schema = "{\"type\":\"record\",\"name\":\"D\",\"fields\":["
                + "{\"name\":\"i\",\"type\":\"int\",\"default\":5},"
                + "{\"name\":\"s\",\"type\":{\"type\":\"int\",\"connect.type\":\"int16\"},\"default\":7},"
                + "{\"name\":\"b\",\"type\":\"bytes\",\"default\":\"\\u0001\"},"
                + "{\"name\":\"d\",\"type\":{\"type\":\"int\",\"logicalType\":\"date\"},\"default\":2},"
                + "{\"name\":\"m\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":4,"
                + "\"scale\":2},\"default\":\"\\u0001\"},"
                + "{\"name\":\"a\",\"type\":{\"type\":\"array\",\"items\":\"long\"},\"default\":[1,2]},"
                + "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"X\",\"Y\"]},\"default\":\"Y\"},"
                + "{\"name\":\"o\",\"type\":[\"null\",\"int\"],\"default\":null}]}";
        Schema s = read(schema, "{\"i\":1,\"s\":1,\"b\":\"\",\"d\":1,\"m\":\"\\u0001\",\"a\":[],\"e\":\"X\","
                + "\"o\":null}").schema();
        assertEquals(SchemaBuilder.int32().defaultValue(5).parameter(FIELD_DEFAULT, "true").build(),
                s.field("i").schema());
        assertEquals(SchemaBuilder.int16().defaultValue((short) 7).parameter(FIELD_DEFAULT, "true").build(),
                s.field("s").schema());
        assertEquals(ByteBuffer.wrap(new byte[] {1}), s.field("b").schema().defaultValue());
        assertEquals(new java.util.Date(2L * 86_400_000L), s.field("d").schema().defaultValue());
        assertEquals(new BigDecimal("0.01"), s.field("m").schema().defaultValue());
        assertEquals(List.of(1L, 2L), s.field("a").schema().defaultValue());
        assertEquals("Y", s.field("e").schema().defaultValue());
        // ["null", T] is made from T alone (case UNION, l. 2055): no default, no flag.
        assertEquals(Schema.OPTIONAL_INT32_SCHEMA, s.field("o").schema());
    }

    @Test
    void recordDefaultsTakeNestedDefaultsOnlyIfAvroDataCanConvertThemAgain() {
        // toConnectData case STRUCT, a Map (l. 1767): a missing field takes its schema's Connect default, which goes
        // through toConnectData again: an Integer does, a java.util.Date (a date's Connect default) does not (case
        // INT32 casts to Integer), and the whole default is then ignored (l. 2178, "Ignoring invalid default").
        String ok = "{\"type\":\"record\",\"name\":\"O\",\"fields\":[{\"name\":\"r\",\"type\":{\"type\":\"record\","
                + "\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\",\"default\":3},"
                + "{\"name\":\"b\",\"type\":\"string\"}]},\"default\":{\"b\":\"x\"}}]}";
        Struct d = (Struct) read(ok, "{\"r\":{\"a\":1,\"b\":\"y\"}}").schema().field("r").schema().defaultValue();
        assertEquals(3, d.get("a"));
        assertEquals("x", d.get("b"));
        String dropped = ok.replace("{\"name\":\"a\",\"type\":\"int\",\"default\":3}",
                "{\"name\":\"a\",\"type\":{\"type\":\"int\",\"logicalType\":\"date\"},\"default\":3}");
        Schema r = read(dropped, "{\"r\":{\"a\":1,\"b\":\"y\"}}").schema().field("r").schema();
        assertNull(r.defaultValue());
        assertEquals("true", r.parameters().get(FIELD_DEFAULT));
    }

    @Test
    void unionDefaultsGoToTheFirstFieldOfTheirJavaClass() {
        // A union field's default (Avro: a value of the first branch) goes through toConnectData's union case
        // (l. 1742): the first field whose Java class it is. An enum default is a String (Avro's
        // JacksonUtils.toObject), which isInstanceOfAvroSchemaTypeForSimpleSchema (l. 2461) does not take for an
        // enum field: it lands in a later string field, and without one the default is ignored.
        String schema = "{\"type\":\"record\",\"name\":\"U\",\"fields\":["
                + "{\"name\":\"n\",\"type\":[\"int\",\"string\"],\"default\":5},"
                + "{\"name\":\"e\",\"type\":[{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\"]},\"string\"],"
                + "\"default\":\"A\"},"
                + "{\"name\":\"x\",\"type\":[{\"type\":\"enum\",\"name\":\"X\",\"symbols\":[\"A\"]},\"int\"],"
                + "\"default\":\"A\"},"
                + "{\"name\":\"r\",\"type\":[{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\","
                + "\"type\":\"int\"}]},\"int\"],\"default\":{\"a\":1}}]}";
        Schema s = read(schema, "{\"n\":{\"int\":1},\"e\":{\"string\":\"z\"},\"x\":{\"int\":1},\"r\":{\"int\":1}}")
                .schema();
        Struct n = (Struct) s.field("n").schema().defaultValue();
        assertEquals(5, n.get("int"));
        assertEquals("true", s.field("n").schema().parameters().get(FIELD_DEFAULT));
        Struct e = (Struct) s.field("e").schema().defaultValue();
        assertNull(e.get("E"));
        assertEquals("A", e.get("string"));
        assertNull(s.field("x").schema().defaultValue());
        // A record default is a Map, not an IndexedRecord: no union field takes it (l. 1745-1765).
        assertNull(s.field("r").schema().defaultValue());
    }

    // ---- connect.* properties ----------------------------------------------------------------------------------

    @Test
    void connectNameDocVersionParametersAndDefault() {
        // AvroData.toConnectSchema after the switch: connect.doc → doc (l. 2112, with connect.meta.data),
        // connect.version → version (l. 2119), connect.parameters → parameters (l. 2144), connect.default → default
        // without the field.default flag (l. 2169), connect.name → name (l. 2184).
        check("{\"type\":\"int\",\"connect.name\":\"my.Int\",\"connect.doc\":\"an int\",\"connect.version\":3,"
                + "\"connect.parameters\":{\"k\":\"v\"},\"connect.default\":9}", "1",
                SchemaBuilder.int32().name("my.Int").doc("an int").version(3).parameter("k", "v").defaultValue(9)
                        .build(), 1);
        // connect.name wins over the record's name; names starting io.confluent.connect.avro.ConnectDefault are
        // dropped (l. 2203).
        assertEquals("other.Name", read("{\"type\":\"record\",\"name\":\"R\",\"connect.name\":\"other.Name\","
                + "\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}", "{\"a\":1}").schema().name());
        assertNull(read("{\"type\":\"record\",\"name\":\"ConnectDefault\",\"namespace\":\"io.confluent.connect.avro\","
                + "\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}", "{\"a\":1}").schema().name());
    }

    @Test
    void connectDefaultFollowsAvroDataJsonRules() {
        // defaultValueFromAvroWithoutLogical on a JsonNode (l. 2260): case RECORD puts each Avro field's JSON,
        // null when missing (not the field's default): a required missing field fails and the default is ignored;
        // case INT takes JsonNode.intValue(), 0 for a value that is not a number.
        String schema = "{\"type\":\"record\",\"name\":\"C\",\"connect.default\":{\"a\":1},\"fields\":["
                + "{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":[\"null\",\"int\"],\"default\":null}]}";
        Struct d = (Struct) read(schema, "{\"a\":1,\"b\":null}").schema().defaultValue();
        assertEquals(1, d.get("a"));
        assertNull(d.get("b"));
        String missingRequired = "{\"type\":\"record\",\"name\":\"C\",\"connect.default\":{\"b\":1},\"fields\":["
                + "{\"name\":\"a\",\"type\":\"int\",\"default\":4},{\"name\":\"b\",\"type\":\"int\"}]}";
        assertNull(read(missingRequired, "{\"a\":1,\"b\":2}").schema().defaultValue());
        check("{\"type\":\"int\",\"connect.default\":\"seven\"}", "1", SchemaBuilder.int32().defaultValue(0).build(), 1);
        check("{\"type\":\"int\",\"logicalType\":\"date\",\"connect.default\":1}", "1",
                Date.builder().defaultValue(new java.util.Date(86_400_000L)).build(), new java.util.Date(86_400_000L));
    }

    @Test
    void fieldLevelConnectParametersAreAdded() {
        // AvroData.toConnectSchema case RECORD (l. 2009): with connect.meta.data, a field's connect.parameters are
        // added to its schema (applyFieldLevelParams, l. 1304).
        String schema = "{\"type\":\"record\",\"name\":\"P\",\"fields\":[{\"name\":\"a\",\"type\":"
                + "{\"type\":\"string\",\"connect.parameters\":{\"k\":\"type\"}},\"connect.parameters\":{\"k\":\"field\","
                + "\"j\":\"1\"}}]}";
        SchemaAndValue sv = read(schema, "{\"a\":\"v\"}");
        assertEquals(SchemaBuilder.string().parameter("k", "field").parameter("j", "1").build(),
                sv.schema().field("a").schema());
        assertEquals("v", ((Struct) sv.value()).get("a"));
        // A record field's Structs take the rebuilt schema, as AvroData's (its toConnectData makes them with it).
        String nested = "{\"type\":\"record\",\"name\":\"P\",\"fields\":[{\"name\":\"r\",\"type\":{\"type\":\"record\","
                + "\"name\":\"Q\",\"fields\":[{\"name\":\"q\",\"type\":\"int\"}]},\"connect.parameters\":{\"k\":\"v\"}}]}";
        sv = read(nested, "{\"r\":{\"q\":1}}");
        Schema q = sv.schema().field("r").schema();
        assertEquals("v", q.parameters().get("k"));
        assertEquals(q, ((Struct) ((Struct) sv.value()).get("r")).schema());
        // Without connect.meta.data, none.
        sv = read(Map.of("connect.meta.data", "false"), schema, "{\"a\":\"v\"}");
        assertEquals(Schema.STRING_SCHEMA, sv.schema().field("a").schema());
    }

    // ---- settings ----------------------------------------------------------------------------------------------

    @Test
    void connectMetaDataFalseDropsDocsParametersAndFlags() {
        // connect.meta.data=false (AvroDataConfig): no record/field/enum docs, no connect.doc, no connect.parameters,
        // no field.default flag (l. 1994, 1998, 2023, 2113, 2145, 2172); the enum's own parameters, connect.version
        // and the defaults stay.
        String schema = "{\"type\":\"record\",\"name\":\"M\",\"doc\":\"d\",\"fields\":[{\"name\":\"a\",\"doc\":\"fd\","
                + "\"type\":{\"type\":\"int\",\"connect.doc\":\"cd\",\"connect.version\":2,\"connect.parameters\":"
                + "{\"k\":\"v\"}},\"default\":1},{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"doc\":"
                + "\"ed\",\"symbols\":[\"A\"]}}]}";
        Schema s = read(Map.of("connect.meta.data", "false"), schema, "{\"a\":1,\"e\":\"A\"}").schema();
        Schema expected = SchemaBuilder.struct().name("M")
                .field("a", SchemaBuilder.int32().version(2).defaultValue(1).build())
                .field("e", SchemaBuilder.string().name("E").parameter(NS + "Enum", "E").parameter(NS + "Enum.A", "A")
                        .build()).build();
        assertEquals(expected, s);
    }

    @Test
    void avroUseLogicalTypeConvertersDoesNotChangeTheResult() {
        // Deliberate difference: avro.use.logical.type.converters=true makes Confluent's deserializer
        // (AbstractKafkaAvroDeserializer.getDatumReader, AvroSchemaUtils.addLogicalTypeConversion) hand AvroData
        // BigDecimal, LocalDate, Instant, UUID... which its toConnectData refuses ("Invalid type for INT32", "Invalid
        // class for bytes type"): every record with such a value fails. This converter reads them as with false.
        SchemaAndValue sv = read(Map.of("avro.use.logical.type.converters", "true"),
                "{\"type\":\"int\",\"logicalType\":\"date\"}", "3");
        assertEquals(Date.SCHEMA, sv.schema());
        assertEquals(new java.util.Date(3L * 86_400_000L), sv.value());
    }

    @Test
    void namespacesAreNotValidatedNamesAre() {
        // Confluent's AvroSchema parses a registered schema with NameValidator.NO_VALIDATION and then checks the
        // names (not namespaces) of the schema itself with UTF_VALIDATOR (AvroSchema.getParser,
        // AvroSchemaUtils.validateNames in the client module).
        assertEquals("my-company.R", read("{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"my-company\","
                + "\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}", "{\"a\":1}").schema().name());
        DataException e = assertThrows(DataException.class, () -> read("{\"type\":\"record\",\"name\":\"R\","
                + "\"fields\":[{\"name\":\"a-b\",\"type\":\"int\"}]}", "{\"a-b\":1}"));
        assertTrue(e.getMessage().contains("cannot be read"), e.getMessage());
    }

    @Test
    void standaloneNullIsRefused() {
        // AvroData.toConnectSchema case NULL (l. 2090).
        DataException e = assertThrows(DataException.class, () -> read("\"null\"", "null"));
        assertTrue(e.getMessage().contains("Standalone null schemas are not supported"), e.getMessage());
    }
}
