package io.chsink.connect.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.Test;

/**
 * NaN, +Infinity and -Infinity in float32 and float64 fields: Kafka's JsonConverter writes them as the JSON strings
 * "NaN", "Infinity", "-Infinity" and reads them back as 0.0; JsonEnvelopeConverter reads them as what they are, on
 * the fast path and on the JsonConverter fallback, everywhere a float can be in a schema. Any other non-number in a
 * float field is an error (JsonConverter reads it as 0.0 too).
 */
class JsonEnvelopeConverterNonFiniteTest {
    static final double[] SPECIAL = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};
    static final Schema INNER = SchemaBuilder.struct().name("inner").optional()
            .field("x", Schema.FLOAT64_SCHEMA)
            .field("y", Schema.OPTIONAL_FLOAT32_SCHEMA)
            .build();
    static final Schema SCHEMA = SchemaBuilder.struct().name("floats")
            .field("f64", Schema.FLOAT64_SCHEMA)
            .field("f32", Schema.FLOAT32_SCHEMA)
            .field("opt64", Schema.OPTIONAL_FLOAT64_SCHEMA)
            .field("opt32", Schema.OPTIONAL_FLOAT32_SCHEMA)
            .field("dflt", SchemaBuilder.float64().optional().defaultValue(1.5).build())
            .field("list", SchemaBuilder.array(Schema.OPTIONAL_FLOAT64_SCHEMA).build())
            .field("byName", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.FLOAT32_SCHEMA).build())
            .field("byId", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.FLOAT64_SCHEMA).optional().build())
            .field("byFloat", SchemaBuilder.map(Schema.FLOAT64_SCHEMA, Schema.STRING_SCHEMA).optional().build())
            .field("inner", INNER)
            .field("inners", SchemaBuilder.array(INNER).optional().build())
            .build();

    static JsonConverter kafka(boolean schemas) {
        JsonConverter c = new JsonConverter();
        c.configure(Map.of("schemas.enable", String.valueOf(schemas)), false);
        return c;
    }

    static JsonEnvelopeConverter ours(boolean schemas) {
        JsonEnvelopeConverter c = new JsonEnvelopeConverter();
        c.configure(Map.of("schemas.enable", String.valueOf(schemas)), false);
        return c;
    }

    static Struct value(double d) {
        float f = (float) d;
        Map<Object, Object> byName = new HashMap<>();
        byName.put("a", f);
        byName.put("b", 2.5f);
        Map<Object, Object> byId = new HashMap<>();
        byId.put(1, d);
        byId.put(2, -0.5);
        Map<Object, Object> byFloat = new HashMap<>();
        byFloat.put(d, "special");
        byFloat.put(0.0, "zero");
        return new Struct(SCHEMA)
                .put("f64", d)
                .put("f32", f)
                .put("opt64", d)
                .put("opt32", null)
                .put("dflt", d)
                .put("list", Arrays.asList(d, null, 1.0, -d))
                .put("byName", byName)
                .put("byId", byId)
                .put("byFloat", byFloat)
                .put("inner", new Struct(INNER).put("x", -d).put("y", f))
                .put("inners", List.of(new Struct(INNER).put("x", d), new Struct(INNER).put("x", 3.0).put("y", -f)));
    }

    static byte[] bytes(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    /** The same envelope with "payload" before "schema": JsonConverter reads it alike, the fast path hands it over. */
    static byte[] payloadFirst(byte[] envelope) {
        String s = new String(envelope, StandardCharsets.UTF_8);
        int at = s.lastIndexOf(",\"payload\":");
        String schema = s.substring("{\"schema\":".length(), at);
        String payload = s.substring(at + ",\"payload\":".length(), s.length() - 1);
        return bytes("{\"payload\":" + payload + ",\"schema\":" + schema + "}");
    }

    @Test
    void kafkaWritesTheStringsAndReadsZeros() {
        JsonConverter kafka = kafka(true);
        byte[] b = kafka.fromConnectData("t", SCHEMA, value(Double.NaN));
        String json = new String(b, StandardCharsets.UTF_8);
        assertTrue(json.contains("\"f64\":\"NaN\",\"f32\":\"NaN\""), json);
        assertTrue(!json.contains(":NaN") && !json.contains("[NaN"), "never the bare token: " + json);
        assertTrue(new String(kafka.fromConnectData("t", SCHEMA, value(Double.POSITIVE_INFINITY)), StandardCharsets.UTF_8)
                .contains("\"f64\":\"Infinity\",\"f32\":\"Infinity\",\"opt64\":\"Infinity\""));
        assertEquals(0.0, ((Struct) kafka.toConnectData("t", b).value()).getFloat64("f64"),
                "JsonConverter loses NaN: what this converter is for");
    }

    @Test
    void readsWhatKafkaWritesOnTheFastPath() {
        JsonConverter kafka = kafka(true);
        JsonEnvelopeConverter fast = ours(true);
        int n = 0;
        for (double d : SPECIAL) {
            Struct written = value(d);
            SchemaAndValue read = fast.toConnectData("t", kafka.fromConnectData("t", SCHEMA, written));
            assertEquals(SCHEMA, read.schema());
            assertEquals(written, read.value(), "value with " + d);
            Struct s = (Struct) read.value();
            assertEquals(Double.class, s.get("f64").getClass());
            assertEquals(Float.class, s.get("f32").getClass());
            assertEquals(d, s.getFloat64("f64"));
            assertEquals((float) d, s.getFloat32("f32"));
            assertEquals(-d, s.getStruct("inner").getFloat64("x"));
            assertEquals("special", s.getMap("byFloat").get(d));
            n++;
            assertEquals(n, fast.records());
            assertEquals(0, fast.fallbacks(), "read by the fast path");
        }
    }

    @Test
    void readsWhatKafkaWritesOnTheFallback() {
        JsonConverter kafka = kafka(true);
        JsonEnvelopeConverter fast = ours(true);
        int n = 0;
        for (double d : SPECIAL) {
            Struct written = value(d);
            SchemaAndValue read = fast.toConnectData("t", payloadFirst(kafka.fromConnectData("t", SCHEMA, written)));
            n++;
            assertEquals(n, fast.fallbacks(), "read by JsonConverter");
            assertEquals(SCHEMA, read.schema());
            assertEquals(written, read.value(), "value with " + d);
            Struct s = (Struct) read.value();
            assertEquals(Float.class, s.get("f32").getClass());
            assertEquals((float) d, s.getFloat32("f32"));
            assertEquals(2, s.getMap("byFloat").size(), "keys JsonConverter merged into 0.0 are apart again");
            assertEquals("zero", s.getMap("byFloat").get(0.0));
        }
    }

    @Test
    void topLevelFloatsAndPrettyPrintedEnvelopes() {
        JsonConverter kafka = kafka(true);
        JsonEnvelopeConverter fast = ours(true);
        for (double d : SPECIAL) {
            assertEquals(d, fast.toConnectData("t", kafka.fromConnectData("t", Schema.FLOAT64_SCHEMA, d)).value());
            assertEquals((float) d, fast.toConnectData("t", kafka.fromConnectData("t", Schema.FLOAT32_SCHEMA, (float) d))
                    .value());
        }
        String pretty = "{ \"schema\" : {\"type\":\"double\",\"optional\":false},\n  \"payload\" : \"-Infinity\" }";
        assertEquals(Double.NEGATIVE_INFINITY, fast.toConnectData("t", bytes(pretty)).value());
        byte[] payloadFirst = bytes("{\"payload\":\"NaN\",\"schema\":{\"type\":\"float\",\"optional\":false}}");
        Object nan = fast.toConnectData("t", payloadFirst).value();
        assertEquals(Float.class, nan.getClass());
        assertTrue(Float.isNaN((Float) nan));
        assertEquals(1, fast.fallbacks(), "only the payload-first envelope fell back");
    }

    @Test
    void otherNonNumbersInFloatFieldsAreErrorsOnBothPaths() {
        JsonConverter kafka = kafka(true);
        String schema = "{\"type\":\"struct\",\"optional\":false,\"fields\":[{\"field\":\"a\",\"type\":\"double\","
                + "\"optional\":true},{\"field\":\"l\",\"type\":\"array\",\"optional\":true,\"items\":{\"type\":\"float\","
                + "\"optional\":false}}]}";
        for (String bad : List.of("\"nan\"", "\"NAN\"", "\"inf\"", "\"+Infinity\"", "\" NaN\"", "\"Infinity \"", "\"\"",
                "\"1.5\"", "\"hello\"", "true", "{}", "[1]")) {
            for (String payload : List.of("{\"a\":" + bad + "}", "{\"l\":[1," + bad + "]}")) {
                String envelope = "{\"schema\":" + schema + ",\"payload\":" + payload + "}";
                Object zero = kafka.toConnectData("t", bytes(envelope)).value();
                assertTrue(zero.toString().contains("0.0"), "JsonConverter reads " + bad + " as 0.0: " + zero);
                JsonEnvelopeConverter fast = ours(true);
                DataException e = assertThrows(DataException.class, () -> fast.toConnectData("t", bytes(envelope)), envelope);
                assertTrue(e.getMessage().contains("not a number or one of the strings \"NaN\""), e.getMessage());
                assertThrows(DataException.class, () -> fast.toConnectData("t",
                        bytes("{\"payload\":" + payload + ",\"schema\":" + schema + "}")), "payload first: " + envelope);
            }
        }
    }

    @Test
    void bareTokensAreNotJsonAndStayErrors() {
        // Jackson's ALLOW_NON_NUMERIC_NUMBERS form (and Python's json.dumps default) is rejected by JsonConverter's
        // parser; so it is here, the same error on every path.
        ConverterPair pair = ConverterPair.of(true, true, "BASE64");
        for (String token : List.of("NaN", "Infinity", "-Infinity")) {
            String envelope = "{\"schema\":{\"type\":\"double\",\"optional\":false},\"payload\":" + token + "}";
            assertThrows(DataException.class, () -> pair.reference.toConnectData("t", bytes(envelope)));
            pair.assertSameResult(envelope);
        }
    }

    @Test
    void writesWhatKafkaWrites() {
        for (boolean schemas : new boolean[] {true, false}) {
            JsonConverter kafka = kafka(schemas);
            JsonEnvelopeConverter fast = ours(schemas);
            for (double d : SPECIAL) {
                Struct v = value(d);
                assertArrayEquals(kafka.fromConnectData("t", SCHEMA, v), fast.fromConnectData("t", SCHEMA, v));
                assertArrayEquals(kafka.fromConnectData("t", Schema.FLOAT32_SCHEMA, (float) d),
                        fast.fromConnectData("t", Schema.FLOAT32_SCHEMA, (float) d));
            }
        }
        assertEquals("\"-Infinity\"", new String(ours(false).fromConnectData("t", Schema.FLOAT64_SCHEMA,
                Double.NEGATIVE_INFINITY), StandardCharsets.UTF_8));
    }

    @Test
    void withoutSchemasTheStringsStayStrings() {
        ConverterPair pair = ConverterPair.of(false, true, "BASE64");
        pair.assertSameResult("{\"a\":\"NaN\",\"b\":[\"Infinity\",1.5]}");
        assertEquals("NaN", ((Map<?, ?>) pair.fast.toConnectData("t", bytes("{\"a\":\"NaN\"}")).value()).get("a"));
    }
}
