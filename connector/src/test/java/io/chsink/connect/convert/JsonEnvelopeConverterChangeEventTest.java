package io.chsink.connect.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.Test;

/**
 * Debezium change events as a transform sees them: every part of the envelope (source block, transaction block, both
 * images) is the value and schema Kafka's JsonConverter makes of the same bytes, whether the payload's fields come in
 * their schema's order (matched without decoding their names), in another order, or with unknown or missing fields.
 */
class JsonEnvelopeConverterChangeEventTest {
    private static final Schema ROW = SchemaBuilder.struct().name("srv.public.orders.Value").optional()
            .field("id", Schema.INT64_SCHEMA)
            .field("status", Schema.OPTIONAL_STRING_SCHEMA)
            .field("amount", Decimal.builder(2).optional().build())
            .field("body", Schema.OPTIONAL_STRING_SCHEMA)
            .build();
    private static final Schema SOURCE = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Source")
            .field("version", Schema.STRING_SCHEMA)
            .field("connector", Schema.STRING_SCHEMA)
            .field("name", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.INT64_SCHEMA)
            .field("snapshot", SchemaBuilder.string().name("io.debezium.data.Enum").version(1)
                    .parameter("allowed", "true,last,false,incremental").defaultValue("false").optional().build())
            .field("db", Schema.STRING_SCHEMA)
            .field("sequence", Schema.OPTIONAL_STRING_SCHEMA)
            .field("schema", Schema.STRING_SCHEMA)
            .field("table", Schema.STRING_SCHEMA)
            .field("txId", Schema.OPTIONAL_INT64_SCHEMA)
            .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
            .field("xmin", Schema.OPTIONAL_INT64_SCHEMA)
            .build();
    private static final Schema TRANSACTION = SchemaBuilder.struct().name("event.block").optional()
            .field("id", Schema.STRING_SCHEMA)
            .field("total_order", Schema.INT64_SCHEMA)
            .field("data_collection_order", Schema.INT64_SCHEMA)
            .build();
    private static final Schema ENVELOPE = SchemaBuilder.struct().name("srv.public.orders.Envelope").version(2)
            .field("before", ROW)
            .field("after", ROW)
            .field("source", SOURCE)
            .field("transaction", TRANSACTION)
            .field("op", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
            .build();

    private static Struct event(int i) {
        Struct after = new Struct(ROW).put("id", (long) i).put("status", i % 3 == 0 ? null : "st" + (i % 4))
                .put("amount", new BigDecimal(i).movePointLeft(2))
                .put("body", i % 2 == 0 ? "a text longer than the strings the converter keeps, number " + i
                        : "short é \"" + (i % 5) + "\"");
        Struct source = new Struct(SOURCE).put("version", "3.6.1.Final").put("connector", "postgresql")
                .put("name", "srv").put("ts_ms", 1_700_000_000_000L + i).put("snapshot", i < 3 ? "true" : null)
                .put("db", "shop").put("sequence", "[\"" + (1000 + i) + "\",\"" + (1001 + i) + "\"]")
                .put("schema", "public").put("table", "orders").put("txId", 700L + i / 2).put("lsn", 90_000L + 16 * i)
                .put("xmin", null);
        Struct tx = i % 2 == 0 ? null : new Struct(TRANSACTION).put("id", (700 + i / 2) + ":" + (90_000 + 16 * i))
                .put("total_order", (long) i).put("data_collection_order", (long) i);
        return new Struct(ENVELOPE).put("before", null).put("after", after).put("source", source)
                .put("transaction", tx).put("op", i < 3 ? "r" : "u").put("ts_ms", 1_700_000_000_100L + i);
    }

    private static final Map<String, String> CONFIG = Map.of("schemas.enable", "true",
            "replace.null.with.default", "false");

    private static byte[] written(Struct value) {
        JsonConverter writer = new JsonConverter();
        writer.configure(CONFIG, false);
        return writer.fromConnectData("srv.public.orders", value.schema(), value);
    }

    @Test
    void everyPartOfTheEnvelopeIsWhatJsonConverterReads() {
        ConverterPair pair = new ConverterPair(CONFIG);
        for (int i = 0; i < 40; i++) {
            byte[] bytes = written(event(i));
            SchemaAndValue expected = pair.reference.toConnectData("srv.public.orders", bytes);
            SchemaAndValue actual = pair.fast.toConnectData("srv.public.orders", bytes);
            String where = "event " + i;
            assertEquals(expected.schema(), actual.schema(), where);
            assertEquals(expected.value(), actual.value(), where + ": Struct.equals, all the way down");
            Struct e = (Struct) expected.value();
            Struct a = (Struct) actual.value();
            a.validate();
            for (String part : new String[] {"source", "transaction", "after", "before", "op", "ts_ms"}) {
                assertEquals(e.schema().field(part).schema(), a.schema().field(part).schema(), where + " " + part);
                ConverterPair.assertSameValue(e.get(part), a.get(part), where + " " + part);
            }
            Struct source = a.getStruct("source");
            for (Field f : SOURCE.fields()) {
                ConverterPair.assertSameValue(e.getStruct("source").get(f), source.get(f), where + " source." + f.name());
                ConverterPair.assertSameValue(e.getStruct("source").getWithoutDefault(f.name()),
                        source.getWithoutDefault(f.name()), where + " source." + f.name() + " without default");
            }
            assertEquals(e.getStruct("source").toString(), source.toString(), where);
            assertEquals(e.hashCode(), a.hashCode(), where);
        }
        assertEquals(0, pair.fast.fallbacks(), "every event on the fast path");
    }

    /** Strings of many contents, escapes and non-ASCII characters: each read as written. */
    @Test
    void stringsReadAsWritten() {
        Schema s = SchemaBuilder.struct().name("x.Value").field("v", Schema.STRING_SCHEMA).build();
        JsonEnvelopeConverter c = new JsonEnvelopeConverter();
        c.configure(CONFIG, false);
        JsonConverter writer = new JsonConverter();
        writer.configure(CONFIG, false);
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 5_000; i++) {
                String v = Integer.toString(i * 7919, 36) + (i % 3 == 0 ? "\u00e9\u4e2d" : "") + (i % 7 == 0 ? "\\\"" : "");
                Struct read = (Struct) c.toConnectData("x", writer.fromConnectData("x", s, new Struct(s).put("v", v)))
                        .value();
                assertEquals(v, read.getString("v"));
            }
        }
    }

    /** The payload's fields reversed, an unknown field and a missing one: what JsonConverter reads, on the fast path. */
    @Test
    void fieldsInAnotherOrderUnknownOrMissingReadAsJsonConverterDoes() {
        ConverterPair pair = new ConverterPair(CONFIG);
        String json = new String(written(event(5)), StandardCharsets.UTF_8);
        int payload = json.indexOf(",\"payload\":");
        String schema = json.substring(0, payload);
        String source = "{\"xmin\":null,\"lsn\":90080,\"txId\":702,\"table\":\"orders\",\"schema\":\"public\","
                + "\"extra\":{\"a\":[1,2,{\"b\":null}]},\"db\":\"shop\",\"snapshot\":null,\"ts_ms\":5,"
                + "\"name\":\"srv\",\"connector\":\"postgresql\",\"version\":\"3.6.1.Final\"}";
        String missing = "{\"version\":\"3.6.1.Final\",\"connector\":\"postgresql\",\"name\":\"srv\",\"ts_ms\":5,"
                + "\"db\":\"shop\",\"schema\":\"public\",\"table\":\"orders\",\"lsn\":7}"; // sequence, txId, xmin, snapshot
        String after = "{\"body\":\"b\",\"amount\":\"AfQ=\",\"id\":5}"; // status missing
        for (String src : new String[] {source, missing}) {
            String record = schema + ",\"payload\":{\"op\":\"u\",\"source\":" + src + ",\"after\":" + after
                    + ",\"before\":null,\"ts_ms\":9}}";
            pair.assertSameResult(record);
            Struct read = (Struct) pair.fast.toConnectData("t", record.getBytes(StandardCharsets.UTF_8)).value();
            assertEquals("postgresql", read.getStruct("source").getString("connector"));
            assertEquals("shop", read.getStruct("source").getString("db"));
        }
        assertEquals(0, pair.fast.fallbacks(), "reordered, unknown and missing fields stay on the fast path");
        String repeated = schema + ",\"payload\":{\"op\":\"u\",\"source\":" + missing + ",\"after\":" + after
                + ",\"after\":null,\"ts_ms\":9}}";
        pair.assertSameResult(repeated);
        assertEquals(1, pair.fast.fallbacks(), "a repeated field is JsonConverter's to read (it keeps the last)");
    }

    /** A struct of more than 64 fields: missing and repeated fields are told apart as with fewer. */
    @Test
    void wideStructsReadAsJsonConverterDoes() {
        SchemaBuilder b = SchemaBuilder.struct().name("wide.Value");
        for (int i = 0; i < 70; i++) {
            b.field("f" + i, i % 2 == 0 ? Schema.OPTIONAL_INT32_SCHEMA : Schema.OPTIONAL_STRING_SCHEMA);
        }
        Schema wide = b.build();
        Struct v = new Struct(wide);
        for (int i = 0; i < 70; i++) {
            v.put("f" + i, i % 2 == 0 ? (Object) i : "s" + i);
        }
        ConverterPair pair = new ConverterPair(CONFIG);
        JsonConverter writer = new JsonConverter();
        writer.configure(CONFIG, false);
        String json = new String(writer.fromConnectData("w", wide, v), StandardCharsets.UTF_8);
        pair.assertSameResult(json);
        String withoutF68 = json.replace(",\"f68\":68", "");
        pair.assertSameResult(withoutF68);
        Struct read = (Struct) pair.fast.toConnectData("w", withoutF68.getBytes(StandardCharsets.UTF_8)).value();
        assertEquals(null, read.get("f68"));
        assertEquals("s69", read.get("f69"));
        assertEquals(0, pair.fast.fallbacks());
        pair.assertSameResult(json.replace(",\"f69\":\"s69\"", ",\"f69\":\"s69\",\"f66\":1"));
        assertEquals(1, pair.fast.fallbacks(), "f66 twice");
        List<String> shuffled = new ArrayList<>();
        for (int i = 0; i < 70; i++) {
            shuffled.add("\"f" + i + "\":" + (i % 2 == 0 ? Integer.toString(i) : "\"s" + i + "\""));
        }
        Collections.shuffle(shuffled, new java.util.Random(7));
        int payload = json.indexOf(",\"payload\":");
        pair.assertSameResult(json.substring(0, payload) + ",\"payload\":{" + String.join(",", shuffled) + "}}");
        assertEquals(1, pair.fast.fallbacks(), "shuffled: still the fast path");
    }
}
