package io.chsink.connect.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

/**
 * replace.null.with.default not set: a Debezium change event (a struct named *.Envelope with before, after and op)
 * reads its nulls as nulls, every other record reads a null field's schema default as JsonConverter does; set, the
 * key applies to every record. On the fast path (new schema, then the topic's last schema) and on the fallback
 * ("payload" before "schema" goes to the inner JsonConverter).
 */
class JsonEnvelopeConverterNullDefaultsTest {
    private static final String ROW = "\"fields\":[{\"field\":\"id\",\"type\":\"int32\",\"optional\":false},"
            + "{\"field\":\"status\",\"type\":\"string\",\"optional\":true,\"default\":\"new\"},"
            + "{\"field\":\"amount\",\"type\":\"int64\",\"optional\":true,\"default\":0}]";
    private static final String ENVELOPE_SCHEMA = "{\"type\":\"struct\",\"optional\":false,"
            + "\"name\":\"srv.public.t.Envelope\",\"fields\":["
            + "{\"field\":\"before\",\"type\":\"struct\",\"optional\":true,\"name\":\"srv.public.t.Value\"," + ROW + "},"
            + "{\"field\":\"after\",\"type\":\"struct\",\"optional\":true,\"name\":\"srv.public.t.Value\"," + ROW + "},"
            + "{\"field\":\"op\",\"type\":\"string\",\"optional\":false}]}";
    /** The same row, flattened (not an envelope). */
    private static final String ROW_SCHEMA = "{\"type\":\"struct\",\"optional\":false,\"name\":\"srv.public.t.Value\","
            + ROW + "}";
    private static final String ROW_NULLS = "{\"id\":1,\"status\":null,\"amount\":null}";

    private static byte[] envelope(boolean payloadFirst, int id) {
        String payload = "{\"before\":null,\"after\":{\"id\":" + id + ",\"status\":null},\"op\":\"u\"}"; // amount absent
        String s = payloadFirst ? "{\"payload\":" + payload + ",\"schema\":" + ENVELOPE_SCHEMA + "}"
                : "{\"schema\":" + ENVELOPE_SCHEMA + ",\"payload\":" + payload + "}";
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] row(boolean payloadFirst) {
        String s = payloadFirst ? "{\"payload\":" + ROW_NULLS + ",\"schema\":" + ROW_SCHEMA + "}"
                : "{\"schema\":" + ROW_SCHEMA + ",\"payload\":" + ROW_NULLS + "}";
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static JsonEnvelopeConverter converter(String replace) {
        Map<String, Object> c = new HashMap<>();
        c.put("schemas.enable", "true");
        if (replace != null) {
            c.put("replace.null.with.default", replace);
        }
        JsonEnvelopeConverter conv = new JsonEnvelopeConverter();
        conv.configure(c, false);
        return conv;
    }

    private static Struct after(JsonEnvelopeConverter c, String topic, byte[] record) {
        return (Struct) ((Struct) c.toConnectData(topic, record).value()).getWithoutDefault("after");
    }

    private static Struct plain(JsonEnvelopeConverter c, String topic, byte[] record) {
        return (Struct) c.toConnectData(topic, record).value();
    }

    @Test
    void aChangeEventKeepsItsNullsWhenTheKeyIsNotSet() {
        JsonEnvelopeConverter c = converter(null);
        for (int i = 0; i < 3; i++) { // a new schema, then the topic's last schema (not parsed again)
            Struct a = after(c, "t", envelope(false, i));
            assertNull(a.getWithoutDefault("status"), "an explicit null stays null");
            assertNull(a.getWithoutDefault("amount"), "an absent field stays null");
        }
        assertEquals(0, c.fallbacks());
        Struct f = after(c, "t", envelope(true, 9));
        assertEquals(1, c.fallbacks(), "payload before schema: JsonConverter's");
        assertNull(f.getWithoutDefault("status"));
        assertNull(f.getWithoutDefault("amount"));
    }

    @Test
    void anExplicitTrueReadsTheDefaultsInChangeEventsToo() {
        JsonEnvelopeConverter c = converter("true");
        for (boolean payloadFirst : new boolean[] {false, false, true}) {
            Struct a = after(c, "t", envelope(payloadFirst, 1));
            assertEquals("new", a.getWithoutDefault("status"));
            assertEquals(0L, a.getWithoutDefault("amount"));
        }
        assertEquals(1, c.fallbacks());
    }

    @Test
    void anExplicitFalseKeepsNullsEverywhere() {
        JsonEnvelopeConverter c = converter("false");
        for (boolean payloadFirst : new boolean[] {false, true}) {
            assertNull(after(c, "t", envelope(payloadFirst, 1)).getWithoutDefault("status"));
            assertNull(plain(c, "r", row(payloadFirst)).getWithoutDefault("status"));
        }
    }

    @Test
    void aRecordThatIsNoChangeEventReadsTheDefaultAsJsonConverterDoes() {
        JsonEnvelopeConverter c = converter(null);
        for (boolean payloadFirst : new boolean[] {false, false, true}) {
            Struct r = plain(c, "r", row(payloadFirst));
            assertEquals("new", r.getWithoutDefault("status"), "payload first: " + payloadFirst);
            assertEquals(0L, r.getWithoutDefault("amount"));
        }
    }

    /** The fallback reads with the converter the topic's last record needed, and again when the schema differs. */
    @Test
    void theFallbackFollowsEachRecordsSchemaOnOneTopic() {
        JsonEnvelopeConverter c = converter(null);
        for (int i = 0; i < 2; i++) {
            assertEquals("new", plain(c, "mixed", row(true)).getWithoutDefault("status"));
            assertNull(after(c, "mixed", envelope(true, i)).getWithoutDefault("status"));
            assertNull(after(c, "mixed", envelope(true, i)).getWithoutDefault("status"));
            assertEquals("new", plain(c, "mixed", row(true)).getWithoutDefault("status"));
        }
        assertEquals(8, c.fallbacks());
    }

    @Test
    void aStructNamedEnvelopeWithoutBeforeAfterAndOpIsNoChangeEvent() {
        String schema = "{\"type\":\"struct\",\"optional\":false,\"name\":\"x.Envelope\"," + ROW + "}";
        JsonEnvelopeConverter c = converter(null);
        Struct r = plain(c, "t", ("{\"schema\":" + schema + ",\"payload\":" + ROW_NULLS + "}")
                .getBytes(StandardCharsets.UTF_8));
        assertEquals("new", r.getWithoutDefault("status"));
    }

    @Test
    void theKeysDocumentationSaysSo() {
        String doc = new JsonEnvelopeConverter().config().configKeys().get("replace.null.with.default").documentation;
        assertTrue(doc.contains("*.Envelope") && doc.contains("nulls as nulls"), doc);
        assertEquals(new org.apache.kafka.connect.json.JsonConverter().config().names(),
                new JsonEnvelopeConverter().config().names(), "JsonConverter's keys");
    }
}
