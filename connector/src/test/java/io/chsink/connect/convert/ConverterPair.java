package io.chsink.connect.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;

/** Kafka's JsonConverter and JsonEnvelopeConverter configured alike, and a strict comparison of what they read. */
final class ConverterPair {
    final JsonConverter reference = new JsonConverter();
    final JsonEnvelopeConverter fast = new JsonEnvelopeConverter();

    ConverterPair(Map<String, ?> configs) {
        reference.configure(configs, false);
        fast.configure(configs, false);
    }

    static ConverterPair of(boolean schemas, boolean replaceNullWithDefault, String decimalFormat) {
        Map<String, Object> c = new HashMap<>();
        c.put("schemas.enable", String.valueOf(schemas));
        c.put("replace.null.with.default", String.valueOf(replaceNullWithDefault));
        c.put("decimal.format", decimalFormat);
        return new ConverterPair(c);
    }

    /** Both read the same value, or both throw the same exception class with the same message (and cause class). */
    void assertSameResult(String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        SchemaAndValue expected;
        try {
            expected = reference.toConnectData("t", bytes);
        } catch (RuntimeException e) {
            try {
                fast.toConnectData("t", bytes);
            } catch (RuntimeException f) {
                assertSame(e.getClass(), f.getClass(), json);
                assertEquals(e.getMessage(), f.getMessage(), json);
                assertEquals(e.getCause() == null ? null : e.getCause().getClass(),
                        f.getCause() == null ? null : f.getCause().getClass(), json);
                return;
            }
            fail("JsonConverter threw " + e + " but JsonEnvelopeConverter did not, for " + json);
            return;
        }
        SchemaAndValue actual = fast.toConnectData("t", bytes);
        assertEquals(expected.schema(), actual.schema(), json);
        assertSameValue(expected.value(), actual.value(), json);
    }

    /** Map entries by their key's class and content (byte[] keys by their bytes). */
    private static Map<String, Map.Entry<?, ?>> byKeyContent(Map<?, ?> map) {
        Map<String, Map.Entry<?, ?>> out = new HashMap<>();
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            Object k = entry.getKey();
            String key = k == null ? "null" : k.getClass().getName() + ":"
                    + (k instanceof byte[] ? java.util.Arrays.toString((byte[]) k) : k.toString());
            assertEquals(null, out.put(key, entry), "distinct keys");
        }
        return out;
    }

    /** Equal values of the same classes all the way down; byte[] compared by content; BigDecimal scale included. */
    static void assertSameValue(Object expected, Object actual, String where) {
        if (expected == null || actual == null) {
            assertSame(expected, actual, where);
            return;
        }
        assertSame(expected.getClass(), actual.getClass(), where);
        if (expected instanceof byte[]) {
            assertArrayEquals((byte[]) expected, (byte[]) actual, where);
        } else if (expected instanceof Struct) {
            Struct e = (Struct) expected;
            Struct a = (Struct) actual;
            assertEquals(e.schema(), a.schema(), where);
            for (Field f : e.schema().fields()) {
                assertSameValue(e.get(f), a.get(f), where + " field " + f.name());
            }
        } else if (expected instanceof List) {
            List<?> e = (List<?>) expected;
            List<?> a = (List<?>) actual;
            assertEquals(e.size(), a.size(), where);
            Iterator<?> ai = a.iterator();
            for (Object o : e) {
                assertSameValue(o, ai.next(), where + " element");
            }
        } else if (expected instanceof Map) {
            Map<String, Map.Entry<?, ?>> e = byKeyContent((Map<?, ?>) expected);
            Map<String, Map.Entry<?, ?>> a = byKeyContent((Map<?, ?>) actual);
            assertEquals(e.keySet(), a.keySet(), where);
            for (Map.Entry<String, Map.Entry<?, ?>> entry : e.entrySet()) {
                Map.Entry<?, ?> other = a.get(entry.getKey());
                assertSameValue(entry.getValue().getKey(), other.getKey(), where + " key");
                assertSameValue(entry.getValue().getValue(), other.getValue(), where + " value of " + entry.getKey());
            }
        } else {
            assertEquals(expected, actual, where);
        }
    }
}
