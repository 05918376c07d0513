package io.chsink.connect.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

/**
 * Bad and unusual input, with and without schemas: JsonEnvelopeConverter gives JsonConverter's result or throws
 * JsonConverter's exception (class, message, cause class), because every such record is handed to JsonConverter.
 */
class JsonEnvelopeConverterBadInputTest {
    static final String INT32 = "{\"type\":\"int32\",\"optional\":false}";
    static final String STRUCT = "{\"type\":\"struct\",\"optional\":false,\"fields\":["
            + "{\"field\":\"a\",\"type\":\"int32\",\"optional\":false},{\"field\":\"b\",\"type\":\"string\",\"optional\":true}]}";

    static final List<String> ENVELOPES = List.of(
            "", " ", "null", "5", "\"x\"", "[]", "{}", "{\"schema\":", "{\"schema\":{}", "not json", "{\"schema\":{\"type\":\"int32\"},\"payload\":5",
            "{\"payload\":5,\"schema\":" + INT32 + "}",
            "{\"schema\":" + INT32 + "}",
            "{\"payload\":5}",
            "{\"schema\":null,\"payload\":{\"a\":1}}",
            "{\"schema\":null,\"payload\":null}",
            "{\"schema\":" + INT32 + ",\"payload\":5,\"extra\":1}",
            "{\"extra\":1,\"schema\":" + INT32 + ",\"payload\":5}",
            "{\"schema\":" + INT32 + ",\"payload\":5,\"payload\":6}",
            "{\"schema\":" + INT32 + ",\"schema\":" + INT32 + ",\"payload\":5}",
            "{\"schema\":" + INT32 + ",\"payload\":5} {\"x\":1}",
            "{\"schema\":" + INT32 + ",\"payload\":5} garbage",
            "{\"schema\":" + INT32 + ",\"payload\":5}}",
            "{\"schema\":" + INT32 + ",\"payload\":5,}",
            "{\"schema\":" + INT32 + ",\"payload\":05}",
            "{\"schema\":" + INT32 + ",\"payload\":NaN}",
            "{\"schema\":" + INT32 + ",\"payload\":'5'}",
            "{\"schema\":" + INT32 + ",\"payload\":\"5\"}",
            "{\"schema\":" + INT32 + ",\"payload\":null}",
            "{\"schema\":\"int32\",\"payload\":5}",
            "{\"schema\":{\"type\":\"unknown\"},\"payload\":5}",
            "{\"schema\":{\"optional\":true},\"payload\":5}",
            "{\"schema\":{\"type\":\"array\"},\"payload\":[]}",
            "{\"schema\":{\"type\":\"map\",\"keys\":{\"type\":\"string\"}},\"payload\":{}}",
            "{\"schema\":{\"type\":\"struct\",\"fields\":{}},\"payload\":{}}",
            "{\"schema\":{\"type\":\"int32\",\"parameters\":{\"p\":1}},\"payload\":5}",
            "{\"schema\":{\"type\":\"int32\",\"default\":\"x\"},\"payload\":5}",
            "{\"schema\":[],\"payload\":5}",
            "{\"schema\":" + STRUCT + ",\"payload\":{\"b\":\"x\"}}",
            "{\"schema\":" + STRUCT + ",\"payload\":{\"a\":null}}",
            "{\"schema\":" + STRUCT + ",\"payload\":{\"a\":\"1\"}}",
            "{\"schema\":" + STRUCT + ",\"payload\":{\"a\":1,\"b\":2}}",
            "{\"schema\":" + STRUCT + ",\"payload\":{\"a\":1,\"b\":[\"x\"]}}",
            "{\"schema\":" + STRUCT + ",\"payload\":[1,\"x\"]}",
            "{\"schema\":" + STRUCT + ",\"payload\":{\"a\":1,\"b\":\"x\"",
            "{\"schema\":" + STRUCT + ",\"payload\":{\"a\":1,\"b\":\"\\x\"}}",
            "{\"schema\":" + STRUCT + ",\"payload\":{\"a\":1,\"b\":\"\u0001\"}}",
            "\ufeff{\"schema\":" + INT32 + ",\"payload\":5}",
            "{\"schema\":" + INT32 + ",\"payload\":" + "[".repeat(1200) + "]".repeat(1200) + "}");

    @Test
    void badEnvelopesFailOrReadAsWithJsonConverter() {
        for (boolean replace : new boolean[] {true, false}) {
            ConverterPair pair = ConverterPair.of(true, replace, "BASE64");
            List<String> fast = new java.util.ArrayList<>();
            // Both schemas cached for the topic first, so that the bad envelopes around them meet the shortcut that
            // skips a schema identical to the topic's last one.
            pair.fast.toConnectData("t", ("{\"schema\":" + INT32 + ",\"payload\":1}").getBytes(StandardCharsets.UTF_8));
            pair.fast.toConnectData("t", ("{\"schema\":" + STRUCT + ",\"payload\":{\"a\":1}}").getBytes(StandardCharsets.UTF_8));
            long warm = pair.fast.fallbacks();
            assertEquals(0, warm);
            for (String json : ENVELOPES) {
                long before = pair.fast.fallbacks();
                pair.assertSameResult(json);
                if (pair.fast.fallbacks() == before) {
                    fast.add(json);
                }
            }
            // JsonConverter reads these two without error (leading zeros are allowed; a string default of an int32
            // schema becomes 0), and so does the fast path; the BOM is skipped by Jackson in both.
            assertEquals(List.of("{\"schema\":" + INT32 + ",\"payload\":05}",
                    "{\"schema\":{\"type\":\"int32\",\"default\":\"x\"},\"payload\":5}",
                    "\ufeff{\"schema\":" + INT32 + ",\"payload\":5}"), fast);
        }
    }

    @Test
    void nestingLimitIsJsonConverters() {
        ConverterPair pair = ConverterPair.of(true, true, "BASE64");
        for (int depth = 990; depth <= 1002; depth++) {
            String deep = "[".repeat(depth) + "]".repeat(depth);
            pair.assertSameResult("{\"schema\":" + STRUCT + ",\"payload\":{\"a\":1,\"z\":" + deep + "}}");
        }
        assertThrows(DataException.class, () -> pair.reference.toConnectData("t", ("{\"schema\":" + STRUCT
                + ",\"payload\":{\"a\":1,\"z\":" + "[".repeat(1002) + "]".repeat(1002) + "}}").getBytes(StandardCharsets.UTF_8)),
                "the limit lies inside the range tested");
        assertEquals(4, pair.fast.fallbacks(), "up to 998 levels read on the fast path; 999 to 1002 are JsonConverter's errors");
        ConverterPair plain = ConverterPair.of(false, true, "BASE64");
        for (int depth = 990; depth <= 1002; depth++) {
            plain.assertSameResult("{\"a\":" + "[".repeat(depth) + "]".repeat(depth) + "}");
        }
    }

    @Test
    void errorsAreJsonConvertersOwn() {
        ConverterPair pair = ConverterPair.of(true, true, "BASE64");
        DataException e = assertThrows(DataException.class, () -> pair.fast.toConnectData("t",
                ("{\"schema\":" + STRUCT + ",\"payload\":{\"b\":\"x\"}}").getBytes(StandardCharsets.UTF_8)));
        assertEquals("Invalid null value for required INT32 field", e.getMessage());
        e = assertThrows(DataException.class, () -> pair.fast.toConnectData("t", "{\"payload\":5}".getBytes(StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().startsWith("JsonConverter with schemas.enable requires \"schema\" and \"payload\""),
                e.getMessage());
        e = assertThrows(DataException.class, () -> pair.fast.toConnectData("t", "{\"schema\":".getBytes(StandardCharsets.UTF_8)));
        assertEquals("Converting byte[] to Kafka Connect data failed due to serialization error: ", e.getMessage());
        assertEquals(3, pair.fast.fallbacks());
    }

    @Test
    void badPlainJsonFailsOrReadsAsWithJsonConverter() {
        ConverterPair pair = ConverterPair.of(false, true, "BASE64");
        for (String json : ENVELOPES) {
            pair.assertSameResult(json);
        }
    }
}
