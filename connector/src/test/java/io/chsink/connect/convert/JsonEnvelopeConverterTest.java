package io.chsink.connect.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.junit.jupiter.api.Test;

/**
 * JsonEnvelopeConverter reads JSON with schemas exactly as JsonConverter does: hand-written envelopes over every
 * Connect type and edge of the conversion, under replace.null.with.default true and false and decimal.format BASE64
 * and NUMERIC. Envelopes written by JsonConverter itself are in JsonEnvelopeConverterRoundTripTest, bad input in
 * JsonEnvelopeConverterBadInputTest.
 */
class JsonEnvelopeConverterTest {
    /** The events envelope of system-tests' io.chsink.it.events.EventJson.withSchema (EventProducer's format). */
    static final String EVENT_SCHEMA = "{\"type\":\"struct\",\"name\":\"io.chsink.demo.Event\",\"optional\":false,"
            + "\"fields\":["
            + "{\"field\":\"event_time\",\"type\":\"int64\",\"name\":\"org.apache.kafka.connect.data.Timestamp\","
            + "\"version\":1,\"optional\":false},"
            + "{\"field\":\"user_id\",\"type\":\"int64\",\"optional\":false},"
            + "{\"field\":\"event_type\",\"type\":\"string\",\"optional\":false},"
            + "{\"field\":\"url\",\"type\":\"string\",\"optional\":false},"
            + "{\"field\":\"duration_ms\",\"type\":\"int64\",\"optional\":false},"
            + "{\"field\":\"country\",\"type\":\"string\",\"optional\":false},"
            + "{\"field\":\"revenue\",\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\","
            + "\"version\":1,\"parameters\":{\"scale\":\"2\",\"connect.decimal.precision\":\"10\"},\"optional\":false}"
            + "]}";

    static String event(long i) {
        return "{\"schema\":" + EVENT_SCHEMA + ",\"payload\":{\"event_time\":" + (1_700_000_000_000L + i * 1000)
                + ",\"user_id\":" + (i * 7919 % 100_000) + ",\"event_type\":\"" + (i % 3 == 0 ? "click" : "view")
                + "\",\"url\":\"https://example.com/p/" + i + "?ref=a&x=%20\",\"duration_ms\":" + (i * 13 % 60_000)
                + ",\"country\":\"DE\",\"revenue\":\""
                + Base64.getEncoder().encodeToString(BigInteger.valueOf(i * 37 - 500).toByteArray()) + "\"}}";
    }

    static String env(String schema, String payload) {
        return "{\"schema\":" + schema + ",\"payload\":" + payload + "}";
    }

    static String prim(String type, boolean optional) {
        return "{\"type\":\"" + type + "\",\"optional\":" + optional + "}";
    }

    static final String DECIMAL = "{\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\",\"version\":1,"
            + "\"parameters\":{\"scale\":\"2\"},\"optional\":false}";
    static final String DATE = "{\"type\":\"int32\",\"name\":\"org.apache.kafka.connect.data.Date\",\"optional\":true}";
    static final String TIME = "{\"type\":\"int32\",\"name\":\"org.apache.kafka.connect.data.Time\",\"optional\":false}";
    static final String TS = "{\"type\":\"int64\",\"name\":\"org.apache.kafka.connect.data.Timestamp\",\"optional\":false}";
    static final String WITH_DEFAULTS = "{\"type\":\"struct\",\"optional\":false,\"fields\":["
            + "{\"field\":\"a\",\"type\":\"int32\",\"optional\":true,\"default\":7},"
            + "{\"field\":\"b\",\"type\":\"string\",\"optional\":false,\"default\":\"dflt\"},"
            + "{\"field\":\"c\",\"type\":\"float\",\"optional\":true,\"default\":1.1},"
            + "{\"field\":\"d\",\"type\":\"int64\",\"optional\":true},"
            + "{\"field\":\"e\",\"type\":\"bytes\",\"optional\":true,\"default\":\"AQI=\"},"
            + "{\"field\":\"f\",\"type\":\"boolean\",\"optional\":false}]}";
    static final String NESTED = "{\"type\":\"struct\",\"name\":\"outer\",\"optional\":false,\"fields\":["
            + "{\"field\":\"inner\",\"type\":\"struct\",\"optional\":true,\"fields\":["
            + "{\"field\":\"x\",\"type\":\"double\",\"optional\":false},"
            + "{\"field\":\"tags\",\"type\":\"array\",\"items\":{\"type\":\"string\",\"optional\":true},\"optional\":false}]},"
            + "{\"field\":\"byName\",\"type\":\"map\",\"keys\":{\"type\":\"string\",\"optional\":false},"
            + "\"values\":{\"type\":\"int64\",\"optional\":true},\"optional\":true},"
            + "{\"field\":\"byId\",\"type\":\"map\",\"keys\":{\"type\":\"int32\",\"optional\":false},"
            + "\"values\":{\"type\":\"array\",\"items\":" + DECIMAL + ",\"optional\":false},\"optional\":true},"
            + "{\"field\":\"when\",\"type\":\"int64\",\"name\":\"org.apache.kafka.connect.data.Timestamp\",\"optional\":true}]}";

    static List<String> cases() {
        List<String> c = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            c.add(event(i));
        }
        String[] numbers = {"0", "-0", "5", "-5", "127", "128", "300", "-129", "70000", "2147483647", "2147483648",
            "-2147483649", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
            "99999999999999999999999999", "1.9", "-1.9", "1e2", "1E+2", "2.5e-3", "0.1", "1.1", "-0.0", "16777217",
            "3.4e39", "1e-50", "1e400", "-1e400", "2.2250738585072014E-308", "4.9e-324", "123456789012345678901234567890",
            "0.30000000000000004", "1.00", "007", "true", "\"5\"", "null", "[]", "{}"};
        for (String type : new String[] {"int8", "int16", "int32", "int64", "float", "double", "boolean"}) {
            for (String n : numbers) {
                if ((type.equals("float") || type.equals("double")) && List.of("true", "\"5\"", "[]", "{}").contains(n)) {
                    continue; // JsonConverter reads 0.0; an error here (JsonEnvelopeConverterNonFiniteTest)
                }
                c.add(env(prim(type, false), n));
                c.add(env(prim(type, true), n));
            }
        }
        for (String s : new String[] {"\"\"", "\"plain\"", "\"a\\u00e9\\n\\t\\\"q\\\" \\\\ \\ud83d\\ude00 \u65e5\u672c \u00fc\"",
            "\"\\u0000\"", "5", "true", "null", "[\"a\"]", "{}"}) {
            c.add(env(prim("string", false), s));
            c.add(env(prim("string", true), s));
        }
        for (String b : new String[] {"\"AQID\"", "\"\"", "\" AQID \"", "\"AQI=\"", "\"AQI\"", "\"!!!\"", "\"AQ\\nID\"",
            "\"/+8=\"", "\"-_8=\"", "5", "null", "[1]"}) {
            c.add(env(prim("bytes", false), b));
            c.add(env(prim("bytes", true), b));
            c.add(env(DECIMAL, b));
        }
        for (String d : new String[] {"12.345", "100", "-0.5", "1e3", "1.50", "99999999999999999999999", "true"}) {
            c.add(env(DECIMAL, d));
        }
        for (String v : new String[] {"19000", "-1", "0", "1000", "86399999", "86400000", "19000.0", "3000000000",
            "1700000000000", "1.5", "\"2024-01-01\"", "null", "99999999999999999999"}) {
            c.add(env(DATE, v));
            c.add(env(TIME, v));
            c.add(env(TS, v));
        }
        for (String p : new String[] {"{\"f\":true}", "{\"f\":false,\"a\":null,\"b\":null,\"c\":null,\"d\":null,\"e\":null}",
            "{\"f\":true,\"a\":1,\"b\":\"x\",\"c\":2.5,\"d\":3,\"e\":\"AQID\"}", "{}", "{\"f\":null}",
            "{\"f\":true,\"zzz\":{\"deep\":[1,2,{\"x\":null}]},\"yy\":[]}", "{\"f\":true,\"f\":false}",
            "{\"f\":true,\"zzz\":1,\"zzz\":2}", "null", "[]"}) {
            c.add(env(WITH_DEFAULTS, p));
        }
        for (String p : new String[] {
            "{\"inner\":{\"x\":1,\"tags\":[\"a\",null,\"b\"]},\"byName\":{\"k\":1,\"l\":null},\"byId\":[[1,[\"AQID\",12.5]],[2,[]]],\"when\":5}",
            "{\"inner\":null,\"byName\":null,\"byId\":null,\"when\":null}", "{}",
            "{\"byName\":{\"k\":1,\"k\":2}}", "{\"byName\":[[\"k\",1]]}", "{\"byId\":{\"1\":[]}}", "{\"byId\":[[1]]}",
            "{\"byId\":[[1,[],3]]}", "{\"byId\":[1]}", "{\"byId\":[[1,[]],[1,[\"AQ==\"]]]}", "{\"byId\":[[null,[]]]}",
            "{\"inner\":{\"x\":1,\"tags\":{\"a\":\"b\"}}}", "{\"inner\":{\"x\":1,\"tags\":[5]}}",
            "{\"inner\":[]}"}) { // a string for the double x: JsonEnvelopeConverterNonFiniteTest
            c.add(env(NESTED, p));
        }
        // Root schemas other than structs, optional roots with null payloads.
        c.add(env(prim("int64", true), "null"));
        c.add(env("{\"type\":\"int64\",\"optional\":false,\"default\":42}", "null"));
        c.add(env("{\"type\":\"array\",\"items\":{\"type\":\"int32\",\"optional\":true},\"optional\":false}", "[1,null,3]"));
        c.add(env("{\"type\":\"array\",\"items\":{\"type\":\"int32\",\"optional\":false},\"optional\":false}", "[1,null,3]"));
        c.add(env("{\"type\":\"map\",\"keys\":{\"type\":\"string\",\"optional\":false},\"values\":"
                + "{\"type\":\"boolean\",\"optional\":false},\"optional\":false}", "{\"a\":true,\"b\":false}"));
        // Pretty-printed envelope, schema with doc, version and parameters.
        c.add("{\n  \"schema\" : {\"type\":\"string\", \"optional\":false, \"doc\":\"d\", \"version\":3,"
                + " \"parameters\":{\"p\":\"v\"}, \"name\":\"n\"} ,\n  \"payload\" : \"x\"\n}\n");
        return c;
    }

    @Test
    void readsEveryCaseAsJsonConverterDoes() {
        for (boolean replace : new boolean[] {true, false}) {
            for (String format : new String[] {"BASE64", "NUMERIC"}) {
                ConverterPair pair = ConverterPair.of(true, replace, format);
                for (String json : cases()) {
                    pair.assertSameResult(json);
                }
            }
        }
    }

    @Test
    void eventsTakeTheFastPathWithOneSchemaInstance() {
        ConverterPair pair = ConverterPair.of(true, true, "BASE64");
        SchemaAndValue first = pair.fast.toConnectData("events", event(1).getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < 1000; i++) {
            SchemaAndValue r = pair.fast.toConnectData(i % 2 == 0 ? "events" : "other", event(i).getBytes(StandardCharsets.UTF_8));
            assertSame(first.schema(), r.schema(), "the same schema bytes give the same Schema instance");
            pair.assertSameResult(event(i));
        }
        assertEquals(0, pair.fast.fallbacks(), "no event needed JsonConverter");
        assertEquals(1, pair.fast.cachedSchemas());
        assertEquals(new BigDecimal("-4.63"), ((org.apache.kafka.connect.data.Struct) pair.fast
                .toConnectData("events", event(1).getBytes(StandardCharsets.UTF_8)).value()).get("revenue"));
    }

    @Test
    void fallbacksAreCounted() {
        ConverterPair pair = ConverterPair.of(true, true, "BASE64");
        pair.fast.toConnectData("t", event(1).getBytes(StandardCharsets.UTF_8));
        assertEquals(0, pair.fast.fallbacks());
        // JsonConverter reads these (an int32 field given a string, payload before schema), the fast path does not.
        assertNotNull(pair.fast.toConnectData("t", env(prim("int32", false), "\"5\"").getBytes(StandardCharsets.UTF_8)));
        assertEquals(1, pair.fast.fallbacks());
        pair.fast.toConnectData("t", "{\"payload\":5,\"schema\":{\"type\":\"int32\"}}".getBytes(StandardCharsets.UTF_8));
        assertEquals(2, pair.fast.fallbacks());
        assertEquals(null, pair.fast.toConnectData("t", null).value(), "a tombstone is JsonConverter's, not a fallback");
        assertEquals(2, pair.fast.fallbacks());
    }
}
