package io.chsink.connect.cdc;

import static io.chsink.connect.cdc.DebeziumEvents.item;
import static io.chsink.connect.cdc.DebeziumEvents.postgres;
import static io.chsink.connect.cdc.DebeziumEvents.record;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.mapping.RecordMappingException;
import io.chsink.connect.schema.TableId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/** ChangeRows alone: the row of one change event, against a current-row lookup stub (no client, no batch). */
class ChangeRowsTest {
    private static final String PH = "__debezium_unavailable_value";
    private static final TableId ITEMS = new TableId("default", "items");
    private static final Schema KEY = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build();
    /** Sorted by id, partitioned by qty: a delete carries qty (CurrentRowsTest's items table). */
    private static final TableLayout LAYOUT = CurrentRowsTest.LAYOUT;

    /** Answers every key with {@link #row}; records what it was asked and told. */
    private static final class Lookup implements CurrentRowLookup {
        CurrentRow row;
        final List<Collection<String>> asked = new ArrayList<>();
        final List<Collection<String>> placeholders = new ArrayList<>();
        final List<TableId> keyChanges = new ArrayList<>();

        @Override
        public CurrentRow find(SinkRecord record, TableId table, RowKey key, Collection<String> columns) {
            asked.add(columns);
            return row;
        }

        @Override
        public boolean resting(SinkRecord record) {
            return false;
        }

        @Override
        public CurrentRow oldKeyRow(SinkRecord record, TableId table, RowKey key, Header header, RowVersion version,
                List<String> toast) {
            throw new AssertionError("no key change here");
        }

        @Override
        public void placeholdersIn(TableId table, Collection<String> columns) {
            placeholders.add(columns);
        }

        @Override
        public void keyChangeIn(TableId table) {
            keyChanges.add(table);
        }
    }

    private final Lookup lookup = new Lookup();
    private final ChangeRows changes = new ChangeRows(new RowShapes("_version", "_is_deleted", 64),
            new ChangeColumns(new Placeholders(PH)), t -> LAYOUT, "delete", false, r -> "record " + r.kafkaOffset(),
            new RowKeys());

    private Struct row(SinkRecord r) {
        ChangeEvent e = r.value() == null ? null : ChangeEvent.read(r);
        SinkRecord out = changes.row(r, ITEMS, e, lookup);
        return out == null ? null : (Struct) out.value();
    }

    private static SinkRecord change(String op, String before, String after, long lsn, long offset) {
        return record(DebeziumEvents.TOPIC, new Struct(KEY).put("id", 1), postgres(op, before, after, "false", lsn),
                true, offset);
    }

    private static Map<String, Object> tableRow(String name, String qty) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("name", name);
        v.put("qty", qty);
        return v;
    }

    @Test
    void aPlaceholderTakesTheCurrentValueTheLookupGives() {
        lookup.row = CurrentRow.fromTable(RowVersion.narrow(900), false, tableRow("kept", "5"));
        Struct r = row(change("u", "null", item(1, PH, 6L), 1000, 0));
        assertEquals("kept", r.get("name"));
        assertEquals(6L, r.get("qty"), "the image's own values stay");
        assertEquals(1000L, r.get("_version"));
        assertEquals(List.of(List.of("name")), lookup.asked);
        assertEquals(List.of(List.of("name")), lookup.placeholders, "the lookup is told which columns to keep");
    }

    @Test
    void aPlaceholderWithoutACurrentRowIsABadRecord() {
        RecordMappingException e = assertThrows(RecordMappingException.class,
                () -> row(change("u", "null", item(1, PH, 6L), 1000, 7)));
        assertTrue(e.getMessage().startsWith("record 7: column(s) [name] hold Debezium's placeholder"),
                e.getMessage());
    }

    @Test
    void anUpsertWithoutPlaceholdersAsksNothing() {
        assertEquals("a", row(change("c", "null", item(1, "a", 5L), 1000, 0)).get("name"));
        assertTrue(lookup.asked.isEmpty(), "asked " + lookup.asked);
    }

    @Test
    void aTombstoneDeletesALiveRowAtTheNextVersionAndWritesNothingForADeletedOne() {
        SinkRecord tombstone = record(DebeziumEvents.TOPIC, new Struct(KEY).put("id", 1), null, true, 3);
        lookup.row = CurrentRow.fromTable(RowVersion.narrow(800), false, tableRow("x", "7"));
        Struct d = row(tombstone);
        assertEquals(801L, d.get("_version"));
        assertEquals((byte) 1, d.get("_is_deleted"));
        assertEquals("7", d.get("qty"), "the partition key's column, from the current row");
        assertEquals(List.of(List.of("qty")), lookup.asked);

        lookup.row = CurrentRow.fromTable(RowVersion.narrow(700), true, tableRow(null, "7"));
        assertNull(row(tombstone), "an already deleted row: its delete is written, nothing to add");

        lookup.row = null;
        assertNull(row(tombstone), "no such row: nothing to delete");
    }

    @Test
    void anOldKeysDeleteCarriesItsValuesAndTellsTheLookupOfTheKeyChange() {
        lookup.row = CurrentRow.fromTable(RowVersion.narrow(900), false, tableRow("kept", "5"));
        SinkRecord delete = change("d", item(1, null, 0L), "null", 1000, 0);
        delete.headers().add(KeyChange.NEW_KEY, "{\"id\":2}".getBytes(java.nio.charset.StandardCharsets.UTF_8), null);
        Struct d = row(delete);
        assertEquals("kept", d.get("name"), "carried for the new key's create");
        assertEquals(List.of(ITEMS), lookup.keyChanges, "so that cached rows keep every column that can be carried");
        assertTrue(lookup.placeholders.isEmpty());
        lookup.keyChanges.clear();
        row(change("d", item(1, null, 0L), "null", 1100, 1));
        assertTrue(lookup.keyChanges.isEmpty(), "a delete of no key change is none");
    }

    @Test
    void aTruncateWritesNoRowAndAsksNothing() {
        assertNull(row(change("t", "null", "null", 1000, 0)));
        assertTrue(lookup.asked.isEmpty(), "asked " + lookup.asked);
    }
}
