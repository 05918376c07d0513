package io.chsink.connect.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.schema.TableId;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.junit.jupiter.api.Test;

/** What of an inserted row the cache of recent rows keeps: what a TOAST fill or a delete can ask of it, no more. */
class CachedColumnsTest {
    private static final TableId T = new TableId("default", "orders");
    private static final RowKey KEY = RowKey.ofText(List.of("id"), List.of("7"));
    private static final Schema ROW = SchemaBuilder.struct()
            .field("id", Schema.INT64_SCHEMA)
            .field("tenant", Schema.INT32_SCHEMA)
            .field("qty", Schema.INT32_SCHEMA)
            .field("amount", Decimal.schema(2))
            .field("created", Timestamp.SCHEMA)
            .field("status", Schema.STRING_SCHEMA)
            .field("body", Schema.OPTIONAL_STRING_SCHEMA)
            .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
            .build();

    /** A table ordered by (tenant, id): a delete needs tenant beyond the key. */
    private static CachedColumns columns() {
        TableLayout layout = new TableLayout(Map.of("id", "Int64", "tenant", "Int32"), List.of("tenant", "id"),
                List.of("tenant", "id"));
        return new CachedColumns(t -> t.equals(T) ? layout : null);
    }

    private static Struct row() {
        return new Struct(ROW).put("id", 7L).put("tenant", 3).put("qty", 2).put("amount", new BigDecimal("1.50"))
                .put("created", new java.util.Date(0)).put("status", "new").put("body", "long text")
                .put("tags", List.of("a"));
    }

    private static List<String> names(Object kept) {
        return ((Struct) kept).schema().fields().stream().map(org.apache.kafka.connect.data.Field::name)
                .collect(java.util.stream.Collectors.toList());
    }

    @Test
    void beforeAnyPlaceholderTheColumnsThatCanHoldOneAndTheKeyedOnes() {
        Object kept = columns().keep(T, KEY, row());
        assertEquals(List.of("tenant", "status", "body", "tags"), names(kept),
                "placeholders are looked for in text, bytes, arrays, maps and geometries only (not numbers, "
                        + "decimals, booleans or temporals); tenant is keyed");
        CurrentRow r = CurrentRow.pending(RowVersion.narrow(1), false, kept);
        assertEquals("long text", r.get("body"));
        assertEquals(Schema.INT32_SCHEMA, r.schemaOf("tenant"), "a delete row takes the keyed column's type");
        assertFalse(r.has("qty"));
    }

    @Test
    void afterAPlaceholderOnlyTheColumnsThatHeldOneAndTheKeyedOnes() {
        CachedColumns c = columns();
        c.keep(T, KEY, row()); // a compact schema made before, which the placeholder must replace
        c.placeholdersIn(T, List.of("body"));
        Object kept = c.keep(T, KEY, row());
        assertEquals(List.of("tenant", "body"), names(kept));
        c.placeholdersIn(T, List.of("tags"));
        assertEquals(List.of("tenant", "body", "tags"), names(c.keep(T, KEY, row())));
        c.placeholdersIn(new TableId("default", "other"), List.of("status"));
        assertEquals(List.of("tenant", "body", "tags"), names(c.keep(T, KEY, row())), "per table");
    }

    @Test
    void afterAKeyChangeEveryColumnThatCanHoldAPlaceholderAgain() {
        CachedColumns c = columns();
        c.placeholdersIn(T, List.of("body"));
        assertEquals(List.of("tenant", "body"), names(c.keep(T, KEY, row())));
        c.keyChangeIn(T);
        assertEquals(List.of("tenant", "status", "body", "tags"), names(c.keep(T, KEY, row())),
                "an old key's delete carries every such column for the new key's create: a cached row answers it");
        c.placeholdersIn(T, List.of("tags"));
        assertEquals(List.of("tenant", "status", "body", "tags"), names(c.keep(T, KEY, row())), "for good");
    }

    @Test
    void aMapRowKeepsItsEntriesAlike() {
        CachedColumns c = columns();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", 7L);
        row.put("tenant", 3);
        row.put("qty", 2);
        row.put("status", "new");
        row.put("body", null);
        @SuppressWarnings("unchecked")
        Map<String, Object> kept = (Map<String, Object>) c.keep(T, KEY, row);
        assertEquals(List.of("tenant", "status", "body"), List.copyOf(kept.keySet()), "a null may be a text");
        c.placeholdersIn(T, List.of("body"));
        @SuppressWarnings("unchecked")
        Map<String, Object> after = (Map<String, Object>) c.keep(T, KEY, row);
        assertEquals(List.of("tenant", "body"), List.copyOf(after.keySet()));
        assertTrue(after.containsKey("body") && after.get("body") == null, "a NULL stays known as NULL");
    }
}
