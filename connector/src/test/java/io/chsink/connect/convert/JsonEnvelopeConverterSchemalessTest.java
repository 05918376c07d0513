package io.chsink.connect.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * schemas.enable=false: plain JSON read straight into the maps, lists, Longs, Doubles, Strings and Booleans
 * JsonConverter makes of it, without falling back.
 */
class JsonEnvelopeConverterSchemalessTest {
    static final List<String> PLAIN = List.of(
            "{\"event_time\":\"2023-11-14T22:13:20Z\",\"user_id\":4711,\"event_type\":\"click\",\"url\":\"https://e.com/p/1\","
                    + "\"duration_ms\":1200,\"country\":\"DE\",\"revenue\":12.34}",
            "{\"a\":1,\"b\":[1,2.5,\"x\",null,true,false,{\"c\":{}}],\"d\":{\"e\":{\"f\":[[],[{}]]}}}",
            "{\"a\":1,\"a\":2}", "{}", "[]", "[1,[2,[3]]]", "5", "-0", "-0.0", "1.00", "1e400", "-1e400", "0.1",
            "2147483648", "9223372036854775807", "9223372036854775808", "123456789012345678901234567890", "007",
            "1.5e-7", "4.9e-324", "\"str\"", "\"\\u00e9\\n\\ud83d\\ude00\"", "null", "true", "false",
            "  {\"ws\" : [ 1 , 2 ] }\n", "{\"\":\"\",\"k\\\"q\":\"v\"}");

    @Test
    void readsPlainJsonAsJsonConverterDoes() {
        for (boolean replace : new boolean[] {true, false}) {
            ConverterPair pair = ConverterPair.of(false, replace, "NUMERIC");
            for (String json : PLAIN) {
                pair.assertSameResult(json);
            }
            assertEquals(0, pair.fast.fallbacks());
        }
    }

    @Test
    void envelopesWithoutSchemasEnabledAreJustMaps() {
        ConverterPair pair = ConverterPair.of(false, true, "BASE64");
        pair.assertSameResult(JsonEnvelopeConverterTest.event(3));
        assertEquals(0, pair.fast.fallbacks());
    }
}
