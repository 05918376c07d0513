package io.chsink.connect.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.junit.jupiter.api.Test;

/** Schemas by their raw bytes: identity while cached, several schemas per topic, the bound. */
class JsonEnvelopeConverterSchemaCacheTest {
    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void sameBytesSameInstanceAcrossTopicsAndAlternatingSchemas() {
        JsonEnvelopeConverter c = new JsonEnvelopeConverter();
        c.configure(Map.of("schemas.enable", "true"), false);
        String a = "{\"type\":\"int32\",\"optional\":false}";
        String b = "{\"type\":\"int64\",\"optional\":false}";
        Schema sa = c.toConnectData("t1", bytes("{\"schema\":" + a + ",\"payload\":1}")).schema();
        Schema sb = c.toConnectData("t1", bytes("{\"schema\":" + b + ",\"payload\":1}")).schema();
        for (int i = 0; i < 10; i++) {
            assertSame(sa, c.toConnectData(i % 2 == 0 ? "t1" : "t2", bytes("{\"schema\":" + a + ",\"payload\":" + i + "}")).schema());
            assertSame(sb, c.toConnectData("t1", bytes("{\"schema\":" + b + ",\"payload\":" + i + "}")).schema());
            // Whitespace around the envelope's keys: the whole-envelope path, the same schema bytes.
            assertSame(sa, c.toConnectData("t3", bytes("{ \"schema\" : " + a + " , \"payload\" : 1 }")).schema());
        }
        // Other bytes for the same schema: cached on their own, and JsonConverter's cache (by tree) made them the same
        // instance.
        Schema spaced = c.toConnectData("t1", bytes("{\"schema\":{\"type\": \"int32\",\"optional\":false},\"payload\":1}")).schema();
        assertSame(sa, spaced);
        assertEquals(3, c.cachedSchemas());
        assertEquals(0, c.fallbacks());
    }

    @Test
    void boundedBySchemasCacheSize() {
        SchemaBytesCache cache = new SchemaBytesCache(3);
        Schema[] made = new Schema[10];
        for (int i = 0; i < 10; i++) {
            byte[] key = bytes("{\"v\":" + i + "}");
            assertNull(cache.get("t", key, 0, key.length));
            made[i] = SchemaBuilder.int32().version(i + 1).build();
            assertSame(made[i], cache.put("t" + i, key, 0, key.length, made[i]).schema);
            assertTrue(cache.size() <= 3, "at most schemas.cache.size entries: " + cache.size());
        }
        byte[] recent = bytes("{\"v\":9}");
        assertSame(made[9], cache.get("x", recent, 0, recent.length).schema);
        byte[] old = bytes("{\"v\":0}");
        assertNull(cache.get("x", old, 0, old.length), "the oldest was evicted");
        // The key is the exact byte range, wherever it sits in the record.
        byte[] inside = bytes("xx{\"v\":9}yy");
        assertSame(made[9], cache.get("y", inside, 2, 9).schema);
    }
}
