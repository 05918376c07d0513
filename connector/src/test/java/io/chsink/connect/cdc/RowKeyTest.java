package io.chsink.connect.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

/** A record key as the sink compares and looks it up: one-column keys (the common case) as the general form. */
class RowKeyTest {
    private static Struct key(Schema fieldSchema, Object value) {
        Schema s = SchemaBuilder.struct().name("k").field("id", fieldSchema).build();
        return new Struct(s).put("id", value);
    }

    private static Map<String, Object> map(Object value) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", value);
        return m;
    }

    @Test
    void oneColumnKeysMatchTheGeneralForm() {
        // A map key always takes the general path: the Struct's one-column path must give the same key.
        for (Object[] c : new Object[][] {{Schema.INT64_SCHEMA, 42L}, {Schema.INT32_SCHEMA, -7}, {Schema.INT16_SCHEMA,
                (short) 3}, {Schema.INT8_SCHEMA, (byte) 1}, {Schema.BOOLEAN_SCHEMA, true}, {Schema.STRING_SCHEMA,
                "it's"}}) {
            RowKey fromStruct = RowKey.of(key((Schema) c[0], c[1]), null);
            RowKey fromMap = RowKey.of(map(c[1]), null);
            assertEquals(fromMap, fromStruct, "key " + c[1]);
            assertEquals(fromMap.literal(), fromStruct.literal());
            assertEquals(List.of("id"), fromStruct.columns);
        }
        assertEquals("'it\\'s'", RowKey.of(key(Schema.STRING_SCHEMA, "it's"), null).literal());
        assertEquals("42", RowKey.of(key(Schema.INT64_SCHEMA, 42L), null).literal());
    }

    @Test
    void keysWithoutATextFormSayWhy() {
        StringBuilder why = new StringBuilder();
        assertNull(RowKey.of(key(Date.SCHEMA, new java.util.Date(0)), why));
        assertTrue(why.toString().contains("key field 'id' is INT32 org.apache.kafka.connect.data.Date"), why.toString());
        why.setLength(0);
        assertNull(RowKey.of(key(Schema.OPTIONAL_INT64_SCHEMA, null), why));
        assertTrue(why.toString().contains("key field 'id' is null"), why.toString());
    }

    @Test
    void aTwoColumnKeyIsATuple() {
        Schema s = SchemaBuilder.struct().field("a", Schema.INT64_SCHEMA).field("b", Schema.STRING_SCHEMA).build();
        RowKey k = RowKey.of(new Struct(s).put("a", 1L).put("b", "x"), null);
        assertEquals("(1, 'x')", k.literal());
        assertEquals(List.of("a", "b"), k.columns);
    }

    /** Keys are equal exactly when their texts are, column by column (hash collisions included). */
    @Test
    void keysAreEqualExactlyWhenTheirTextsAre() {
        Schema s = SchemaBuilder.struct().field("a", Schema.INT64_SCHEMA).field("b", Schema.STRING_SCHEMA).build();
        RowKey k = RowKey.of(new Struct(s).put("a", 1L).put("b", "x"), null);
        assertEquals(k, RowKey.ofText(List.of("a", "b"), List.of("1", "x")), "a record key and the table's text");
        assertEquals(k.hashCode(), RowKey.ofText(List.of("a", "b"), List.of("1", "x")).hashCode());
        org.junit.jupiter.api.Assertions.assertNotEquals(k, RowKey.ofText(List.of("a", "b"), List.of("1", "y")));
        org.junit.jupiter.api.Assertions.assertNotEquals(k, RowKey.ofText(List.of("a"), List.of("1")));
        // "Aa" and "BB" have one hash: equal hashes, different keys.
        RowKey aa = RowKey.ofText(List.of("id"), List.of("Aa"));
        RowKey bb = RowKey.ofText(List.of("id"), List.of("BB"));
        assertEquals(aa.hashCode(), bb.hashCode());
        org.junit.jupiter.api.Assertions.assertNotEquals(aa, bb);
        assertEquals(aa, RowKey.of(key(Schema.STRING_SCHEMA, "Aa"), null));
        java.util.List<String> withNull = new java.util.ArrayList<>(java.util.Arrays.asList("1", null));
        assertEquals(RowKey.ofText(List.of("a", "b"), withNull), RowKey.ofText(List.of("a", "b"),
                new java.util.ArrayList<>(withNull)), "a NULL read from the table compares as List.equals does");
        org.junit.jupiter.api.Assertions.assertNotEquals(k, RowKey.ofText(List.of("a", "b"), withNull));
    }
}
