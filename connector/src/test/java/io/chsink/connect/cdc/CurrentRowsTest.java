package io.chsink.connect.cdc;

import static io.chsink.connect.cdc.DebeziumEvents.item;
import static io.chsink.connect.cdc.DebeziumEvents.postgres;
import static io.chsink.connect.cdc.DebeziumEvents.record;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.block.TableBlock;
import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.config.TableRouter;
import io.chsink.connect.mapping.RecordMappingException;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.testing.TestTables;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * The current row of a key, as unchanged TOAST values, deletes and tombstones need it: from a block not yet
 * inserted, else from the table (one read per batch), never a written placeholder.
 */
class CurrentRowsTest {
    private static final String PH = "__debezium_unavailable_value";
    private static final Schema KEY = SchemaBuilder.struct().name("srv.public.items.Key")
            .field("id", Schema.INT32_SCHEMA).build();

    /** The items table, sorted by id and partitioned by qty (so deletes must carry qty). */
    static final TableLayout LAYOUT;

    static {
        Map<String, String> types = new LinkedHashMap<>();
        types.put("id", "Int32");
        types.put("name", "Nullable(String)");
        types.put("qty", "Int64");
        types.put("_version", "UInt64");
        types.put("_is_deleted", "UInt8");
        LAYOUT = new TableLayout(types, List.of("id", "qty"), List.of("id"));
    }

    /** A table stand-in for the reader: rows by key, and the reads it served. */
    private final Map<RowKey, CurrentRow> table = new HashMap<>();
    private final List<Collection<RowKey>> reads = new ArrayList<>();

    private DebeziumRows rows(String tombstones) {
        return rows(tombstones, 0);
    }

    /** @param cacheBytes cdc.row.cache.bytes */
    DebeziumRows rows(String tombstones, long cacheBytes) {
        Map<String, String> p = new HashMap<>();
        p.put("clickhouse.url", "http://localhost:8123");
        p.put("topic.to.table.map", DebeziumEvents.TOPIC + ":items");
        CurrentRowReader reader = (t, keyColumns, keys, columns) -> {
            reads.add(new ArrayList<>(keys));
            Map<RowKey, CurrentRow> out = new HashMap<>();
            for (RowKey k : keys) {
                if (table.containsKey(k)) {
                    out.put(k, table.get(k));
                }
            }
            return out;
        };
        DebeziumRows r = new DebeziumRows("_version", "_is_deleted", false, tombstones, PH, ChangeVersion.DEFAULT,
                new TableRouter(new SinkConfig(p)), t -> { }, t -> LAYOUT, reader, null, cacheBytes);
        r.checkTable(new TableId("default", "items"));
        return r;
    }

    private static Struct key(int id) {
        return new Struct(KEY).put("id", id);
    }

    private static SinkRecord change(String op, String before, String after, long lsn, int id, long offset) {
        return record(DebeziumEvents.TOPIC, key(id), postgres(op, before, after, "false", lsn), true, offset);
    }

    private static SinkRecord tombstone(int id, long offset) {
        return record(DebeziumEvents.TOPIC, key(id), null, true, offset);
    }

    private static RowKey k(int id) {
        return RowKey.ofText(List.of("id"), List.of(String.valueOf(id)));
    }

    private static Map<String, Object> tableRow(String name, String qty) {
        Map<String, Object> v = new HashMap<>();
        v.put("name", name == null ? null : name.getBytes(StandardCharsets.UTF_8));
        v.put("qty", qty);
        return v;
    }

    /** A block of the items table, for the rows to be appended to. */
    private static TableBlock block() {
        TableId items = new TableId("default", "items");
        return new TableBlock(items, TestTables.mapping(items), 4, 0);
    }

    /** toRow after prepare, and appended to block {@code b} as the task does. */
    private static SinkRecord put(DebeziumRows rows, SinkRecord r, TableBlock b) {
        SinkRecord row = rows.toRow(r);
        if (row != null) {
            rows.appended(row, b, new TableId("default", "items"));
        }
        return row;
    }

    private static Struct value(SinkRecord r) {
        return (Struct) r.value();
    }

    /** A record of a primary-key change: header {@code name} holding {@code {"id":id}} as a worker writes it. */
    private static SinkRecord withKeyHeader(SinkRecord r, String name, int id) {
        r.headers().add(name, ("{\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8), null);
        return r;
    }

    /** The delete of key 1 and the create of key 2 of {@code UPDATE items SET id = 2 WHERE id = 1}, at one lsn. */
    private static SinkRecord keyChangeDelete(long lsn, long offset) {
        return withKeyHeader(change("d", item(1, null, 0L), "null", lsn, 1, offset), KeyChange.NEW_KEY, 2);
    }

    private static SinkRecord keyChangeCreate(long lsn, long offset) {
        return withKeyHeader(change("c", "null", item(2, PH, 9L), lsn, 2, offset), KeyChange.OLD_KEY, 1);
    }

    @Test
    void aKeyChangesCreateTakesItsToastValueFromTheOldKeysDelete() {
        DebeziumRows rows = rows("delete");
        TableBlock block = block();
        SinkRecord create = change("c", "null", item(1, "big text", 5L), 100, 1, 0);
        SinkRecord delete = keyChangeDelete(500, 1);
        SinkRecord moved = keyChangeCreate(500, 2);
        rows.prepare(List.of(create, delete, moved));
        put(rows, create, block);
        Struct d = value(put(rows, delete, block));
        assertEquals("big text", d.get("name"), "the key change's delete carries the row's TOAST-able values");
        assertEquals((byte) 1, d.get("_is_deleted"));
        SinkRecord tomb = withKeyHeader(tombstone(1, 2), KeyChange.NEW_KEY, 2);
        rows.prepare(List.of(tomb));
        assertNull(put(rows, tomb, block), "the key change's tombstone does not write the delete again without values");
        Struct c = value(put(rows, moved, block));
        assertEquals("big text", c.get("name"), "the create takes the value from the old key's delete");
        assertEquals(9L, c.get("qty"));
        assertEquals(2, c.get("id"));
        SinkRecord plain = change("d", item(2, null, 0L), "null", 600, 2, 3);
        rows.prepare(List.of(plain));
        assertNull(value(put(rows, plain, block)).schema().field("name"), "a delete of no key change carries nothing");
    }

    @Test
    void aKeyChangesCreateWaitsForTheOldKeysDeleteThenTakesItsValue() {
        long[] now = {1_000};
        DebeziumRows rows = rows("delete");
        rows.keyChangeWait(5_000, () -> now[0]);
        TableBlock block = block();
        SinkRecord create = change("c", "null", item(1, "big text", 5L), 100, 1, 0);
        rows.prepare(List.of(create));
        put(rows, create, block);
        SinkRecord moved = keyChangeCreate(500, 7);
        rows.prepare(List.of(moved));
        assertThrows(RowSource.NotYet.class, () -> rows.toRow(moved), "the old key's delete has not come");
        SinkRecord delete = keyChangeDelete(500, 1);
        rows.prepare(List.of(delete));
        put(rows, delete, block);
        now[0] += 1_000;
        rows.prepare(List.of(moved));
        assertEquals("big text", value(put(rows, moved, block)).get("name"));
    }

    @Test
    void aKeyChangesCreateTakesTheOldKeysDeleteFromTheTableAndWaitsForItThere() {
        long[] now = {1_000};
        table.put(k(1), CurrentRow.fromTable(RowVersion.narrow(100), false, tableRow("old text", "5")));
        DebeziumRows rows = rows("delete");
        rows.keyChangeWait(5_000, () -> now[0]);
        SinkRecord moved = keyChangeCreate(500, 7);
        rows.prepare(List.of(moved));
        assertThrows(RowSource.NotYet.class, () -> rows.toRow(moved), "the table's row is from before the change");
        // another task's delete lands, carrying the value
        table.put(k(1), CurrentRow.fromTable(RowVersion.narrow(500), true, tableRow("big text", "5")));
        now[0] += 100;
        rows.prepare(List.of(moved));
        assertThrows(RowSource.NotYet.class, () -> rows.toRow(moved), "the table is read at most every 200 ms");
        now[0] += KeyChanges.READ_EVERY_MS;
        rows.prepare(List.of(moved));
        assertEquals("big text", value(rows.toRow(moved)).get("name"));
    }

    @Test
    void aKeyChangesCreateWhoseOldKeysDeleteNeverComesIsABadRecordInTime() {
        long[] now = {1_000};
        DebeziumRows rows = rows("delete");
        rows.keyChangeWait(5_000, () -> now[0]);
        SinkRecord moved = keyChangeCreate(500, 7);
        rows.prepare(List.of(moved));
        assertThrows(RowSource.NotYet.class, () -> rows.toRow(moved));
        now[0] += 5_000;
        rows.prepare(List.of(moved));
        RecordMappingException e = assertThrows(RecordMappingException.class, () -> rows.toRow(moved));
        assertTrue(e.getMessage().contains("the create of a primary-key change from key id=1, whose delete (version "
                + "500) did not reach `default`.`items` within 5000 ms (cdc.key.change.wait.ms)"), e.getMessage());
        // a delete that carried nothing (written without the value) is no value either
        table.put(k(1), CurrentRow.fromTable(RowVersion.narrow(500), true, tableRow(null, "5")));
        rows.prepare(List.of(moved));
        e = assertThrows(RecordMappingException.class, () -> rows.toRow(moved));
        assertTrue(e.getMessage().contains("whose delete row does not carry column 'name'"), e.getMessage());
    }

    @Test
    void anUnchangedToastValueTakesThePendingRowsValue() {
        DebeziumRows rows = rows("delete");
        TableBlock block = block();
        SinkRecord create = change("c", "null", item(1, "big text", 5L), 100, 1, 0);
        SinkRecord update = change("u", "null", item(1, PH, 6L), 200, 1, 1);
        rows.prepare(List.of(create, update));
        put(rows, create, block);
        Struct u = value(put(rows, update, block));
        assertEquals("big text", u.get("name"), "the placeholder is replaced by the value of the pending create");
        assertEquals(6L, u.get("qty"));
        assertEquals(200L, u.get("_version"));
        assertTrue(reads.isEmpty() || reads.get(0).isEmpty(), "no table read for a key with a pending row: " + reads);
    }

    @Test
    void anUnchangedToastValueTakesTheTablesValueReadOncePerBatch() {
        table.put(k(1), CurrentRow.fromTable(RowVersion.narrow(100), false, tableRow("one", "5")));
        table.put(k(2), CurrentRow.fromTable(RowVersion.narrow(101), false, tableRow("two", "5")));
        DebeziumRows rows = rows("delete");
        List<SinkRecord> batch = List.of(change("u", "null", item(1, PH, 7L), 300, 1, 0),
                change("u", "null", item(2, PH, 7L), 301, 2, 1), change("u", "null", item(1, PH, 8L), 302, 1, 2));
        rows.prepare(batch);
        assertEquals(1, reads.size(), "one read for the batch");
        assertEquals(2, reads.get(0).size(), "of the two keys: " + reads.get(0));
        TableBlock block = block();
        assertEquals("one", value(put(rows, batch.get(0), block)).get("name"));
        assertEquals("two", value(put(rows, batch.get(1), block)).get("name"));
        Struct third = value(put(rows, batch.get(2), block));
        assertEquals("one", third.get("name"));
        assertEquals(8L, third.get("qty"));
        assertEquals(1, reads.size(), "the second change of key 1 took the pending row");
    }

    /** Rows 1 and 2 in the table, nothing pending or cached. */
    private DebeziumRows rowsOverTwoTableRows() {
        table.put(k(1), CurrentRow.fromTable(RowVersion.narrow(100), false, tableRow("one", "5")));
        table.put(k(2), CurrentRow.fromTable(RowVersion.narrow(101), false, tableRow("two", "5")));
        return rows("delete");
    }

    @Test
    void batchesThatMayWaitReadNothingAndTheLaterBatchReadsTheKeysOfBoth() {
        DebeziumRows rows = rowsOverTwoTableRows();
        SinkRecord first = change("u", "null", item(1, PH, 7L), 300, 1, 0);
        assertTrue(!rows.prepare(List.of(first), true), "a batch needing a read may wait");
        assertTrue(reads.isEmpty(), "and reads nothing: " + reads);
        SinkRecord plain = change("u", "null", item(3, "three", 1L), 301, 3, 1);
        assertTrue(rows.prepare(List.of(first, plain), true) == false, "a held batch still needing a read waits on");
        SinkRecord second = change("u", "null", item(2, PH, 7L), 302, 2, 2);
        List<SinkRecord> all = List.of(first, plain, second);
        assertTrue(rows.prepare(all, false), "a batch that may not wait reads");
        assertEquals(1, reads.size(), "one read for the polls held and the last: " + reads);
        assertEquals(2, reads.get(0).size(), "of the keys of both: " + reads.get(0));
        TableBlock block = block();
        assertEquals("one", value(put(rows, first, block)).get("name"));
        assertEquals("three", value(put(rows, plain, block)).get("name"));
        assertEquals("two", value(put(rows, second, block)).get("name"));
        SinkRecord known = change("u", "null", item(1, PH, 9L), 303, 1, 3);
        assertTrue(rows.prepare(List.of(known), true), "a batch whose rows are pending never waits");
        assertEquals(1, reads.size());
    }

    @Test
    void aKeyWhoseWholeRowComesOnlyAfterTheChangeThatNeedsItIsReadWithTheOthers() {
        DebeziumRows rows = rowsOverTwoTableRows();
        List<SinkRecord> batch = List.of(change("u", "null", item(1, PH, 7L), 300, 1, 0),
                change("u", "null", item(2, PH, 7L), 301, 2, 1), change("u", "null", item(2, "new two", 8L), 302, 2, 2));
        rows.prepare(batch);
        assertEquals(1, reads.size(), "one read: " + reads);
        assertEquals(List.of(k(1), k(2)), new ArrayList<>(reads.get(0)),
                "key 2's whole row comes after its placeholder: it is not pending when that change becomes a row");
        TableBlock block = block();
        assertEquals("one", value(put(rows, batch.get(0), block)).get("name"));
        assertEquals("two", value(put(rows, batch.get(1), block)).get("name"));
        assertEquals("new two", value(put(rows, batch.get(2), block)).get("name"));
        assertEquals(1, reads.size(), "no read of key 2 alone: " + reads);
    }

    @Test
    void aHeldRecordsKeyThatLeftTheCacheIsReadWithTheOthersNotAlone() {
        table.put(k(1), CurrentRow.fromTable(RowVersion.narrow(100), false, tableRow("one", "5")));
        table.put(k(2), CurrentRow.fromTable(RowVersion.narrow(101), false, tableRow("two", "5")));
        DebeziumRows rows = rows("delete", 500); // room for one cached row (about 400 bytes)
        TableBlock b1 = block();
        SinkRecord create1 = change("c", "null", item(1, "one", 5L), 100, 1, 0);
        rows.prepare(List.of(create1));
        put(rows, create1, b1);
        rows.blockInserted(b1);
        assertEquals(1, rows.recentRows(), "key 1 is cached");
        SinkRecord first = change("u", "null", item(1, PH, 7L), 300, 1, 1);
        SinkRecord second = change("u", "null", item(2, PH, 7L), 301, 2, 2);
        assertTrue(!rows.prepare(List.of(first, second), true), "key 2 needs a read: the poll waits");
        // Meanwhile a block of key 3 is inserted, and its row pushes key 1's out of the cache.
        TableBlock b3 = block();
        SinkRecord create3 = change("c", "null", item(3, "three", 1L), 302, 3, 3);
        put(rows, create3, b3);
        rows.blockInserted(b3);
        SinkRecord third = change("u", "null", item(4, "four", 1L), 303, 4, 4);
        assertTrue(rows.prepare(List.of(first, second, third), false));
        assertEquals(1, reads.size(), "one read: " + reads);
        assertEquals(List.of(k(2), k(1)), new ArrayList<>(reads.get(0)),
                "key 1, cached when its record was first looked at, is read with key 2");
        TableBlock block = block();
        assertEquals("one", value(put(rows, first, block)).get("name"));
        assertEquals("two", value(put(rows, second, block)).get("name"));
        assertEquals(1, reads.size(), "no read of key 1 alone when its record became a row: " + reads);
    }

    @Test
    void aBatchNoLongerStartingWithTheHeldRecordsIsLookedAtWhole() {
        DebeziumRows rows = rowsOverTwoTableRows();
        SinkRecord first = change("u", "null", item(1, PH, 7L), 300, 1, 0);
        SinkRecord second = change("u", "null", item(2, PH, 7L), 301, 2, 1);
        assertTrue(!rows.prepare(List.of(first, second), true));
        // The first held record's partition was revoked: the batch holds the second and a new one.
        SinkRecord third = change("u", "null", item(3, "three", 1L), 302, 3, 2);
        assertTrue(rows.prepare(List.of(second, third), false));
        assertEquals(1, reads.size(), "one read: " + reads);
        assertEquals(1, reads.get(0).size(), "of the key the batch still needs, not the revoked one's: " + reads.get(0));
        assertEquals("two", value(put(rows, second, block())).get("name"));
    }

    @Test
    void aPlaceholderWhoseRowIsUnknownIsABadRecordNeverWritten() {
        DebeziumRows rows = rows("delete");
        SinkRecord u = change("u", "null", item(9, PH, 1L), 500, 9, 4);
        rows.prepare(List.of(u));
        RecordMappingException e = assertThrows(RecordMappingException.class, () -> rows.toRow(u));
        assertTrue(e.getMessage().contains("offset=4") && e.getMessage().contains("[name]")
                && e.getMessage().contains("id=9") && e.getMessage().contains("unchanged TOAST"), e.getMessage());
        table.put(k(9), CurrentRow.fromTable(RowVersion.narrow(400), true, tableRow("gone", "1")));
        rows.prepare(List.of(u));
        e = assertThrows(RecordMappingException.class, () -> rows.toRow(u));
        assertTrue(e.getMessage().contains("is deleted"), e.getMessage());
    }

    @Test
    void bytesPlaceholdersAreFound() {
        Placeholders p = new Placeholders(PH);
        assertTrue(p.is(PH.getBytes(StandardCharsets.UTF_8)));
        assertTrue(p.is(java.nio.ByteBuffer.wrap(PH.getBytes(StandardCharsets.UTF_8))));
        assertTrue(p.is(java.util.Base64.getEncoder().encodeToString(PH.getBytes(StandardCharsets.UTF_8))));
        assertTrue(p.is(Hex.format(PH.getBytes(StandardCharsets.UTF_8)).toUpperCase(java.util.Locale.ROOT)));
        assertTrue(!p.is("__debezium_unavailable_valuE") && !p.is(42L) && !p.is(null));
        assertArrayEquals(new byte[] {0, 127, -1, 16}, Hex.parse("007FfF10"));
    }

    @Test
    void aDeleteCarriesThePartitionColumnFromThePendingRowOrTheTable() {
        DebeziumRows rows = rows("delete");
        TableBlock block = block();
        SinkRecord create = change("c", "null", item(1, "x", 5L), 100, 1, 0);
        SinkRecord delete = change("d", "{\"id\":1,\"name\":null,\"qty\":null}", "null", 200, 1, 1);
        rows.prepare(List.of(create, delete));
        put(rows, create, block);
        Struct d = value(put(rows, delete, block));
        assertEquals(1, d.get("id"));
        assertEquals(5L, d.get("qty"), "qty (partition key) from the pending create");
        assertEquals((byte) 1, d.get("_is_deleted"));
        assertNull(d.schema().field("name"), "columns outside the keys stay out (defaults)");

        table.put(k(2), CurrentRow.fromTable(RowVersion.narrow(150), false, tableRow("y", "77")));
        SinkRecord delete2 = change("d", "{\"id\":2,\"name\":null,\"qty\":null}", "null", 250, 2, 2);
        rows.prepare(List.of(delete2));
        Struct d2 = value(put(rows, delete2, block));
        assertEquals("77", d2.get("qty"), "from the table, as ClickHouse's text of the column");
        assertEquals(250L, d2.get("_version"));
    }

    @Test
    void tombstonesDeleteTheirKeysRowWithAVersionAboveItsLastChange() {
        DebeziumRows rows = rows("delete");
        table.put(k(1), CurrentRow.fromTable(RowVersion.narrow(100), false, tableRow("a", "3")));
        table.put(k(2), CurrentRow.fromTable(RowVersion.narrow(200), true, tableRow(null, "4")));
        List<SinkRecord> batch = List.of(tombstone(1, 10), tombstone(2, 11), tombstone(3, 12));
        rows.prepare(batch);
        TableBlock block = block();
        Struct d1 = value(put(rows, batch.get(0), block));
        assertEquals(101L, d1.get("_version"), "one above the row's last change");
        assertEquals((byte) 1, d1.get("_is_deleted"));
        assertEquals(1, d1.get("id"));
        assertEquals("3", d1.get("qty"));
        assertNull(put(rows, batch.get(1), block), "an already deleted row: its delete is written, nothing to add");
        assertNull(put(rows, batch.get(2), block), "no such row: nothing to delete");
        // A second tombstone for key 1 meets the pending delete: nothing more to write.
        SinkRecord again = tombstone(1, 13);
        rows.prepare(List.of(again));
        assertNull(put(rows, again, block));

        assertNull(rows("skip").toRow(tombstone(1, 20)));
        assertThrows(RecordMappingException.class, () -> rows("fail").toRow(tombstone(1, 21)));
        assertNull(rows.toRow(record(DebeziumEvents.TOPIC, null, null, true, 22)), "a keyless tombstone names no row");
    }

    @Test
    void aDoneBlocksRowsAreReadFromTheTableAgain() {
        DebeziumRows rows = rows("delete");
        TableBlock block = block();
        SinkRecord create = change("c", "null", item(1, "x", 5L), 100, 1, 0);
        rows.prepare(List.of(create));
        put(rows, create, block);
        assertEquals(1, rows.pendingRows());
        assertTrue(rows.heldBytes() > 0);
        rows.blockInserted(block);
        assertEquals(0, rows.pendingRows());
        assertEquals(0, rows.heldBytes());
        assertEquals(0, rows.recentRows(), "cdc.row.cache.bytes=0: no cache");
        table.put(k(1), CurrentRow.fromTable(RowVersion.narrow(100), false, tableRow("from table", "5")));
        SinkRecord u = change("u", "null", item(1, PH, 6L), 200, 1, 1);
        rows.prepare(List.of(u));
        assertEquals("from table", value(put(rows, u, block)).get("name"));
    }

    @Test
    void autoCreateFromADeleteSeesTheFullRow() {
        DebeziumRows rows = rows("delete");
        SinkRecord delete = change("d", "null", "null", 200, 1, 0);
        rows.prepare(List.of(delete));
        SinkRecord row = rows.toRow(delete);
        assertNull(value(row).schema().field("name"), "the delete row itself is key only");
        Schema full = ((Struct) rows.forCreate(row).value()).schema();
        List<String> names = new ArrayList<>();
        full.fields().forEach(f -> names.add(f.name()));
        assertEquals(List.of("id", "name", "qty", "_version", "_is_deleted"), names);
    }

    @Test
    void aNullFieldStaysNullThoughItsSchemaHasADefault() {
        Schema image = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA)
                .field("status", SchemaBuilder.string().optional().defaultValue("new").build()).build();
        Struct s = new Struct(image).put("id", 1).put("status", null);
        assertEquals("new", s.get("status"), "Struct.get substitutes the default");
        Struct row = new RowShapes("_version", "_is_deleted", 64).row(s, false, RowVersion.narrow(5), false);
        assertNull(row.getWithoutDefault("status"), "the row keeps the null the source wrote");
    }

    @Test
    void theKeyMustBeInTheSortingKey() {
        Map<String, String> p = new HashMap<>();
        p.put("clickhouse.url", "http://localhost:8123");
        p.put("topic.to.table.map", DebeziumEvents.TOPIC + ":items");
        TableLayout unsorted = new TableLayout(LAYOUT.types, List.of("qty"), List.of("qty"));
        DebeziumRows rows = new DebeziumRows("_version", "_is_deleted", false, "delete", PH, ChangeVersion.DEFAULT,
                new TableRouter(new SinkConfig(p)), t -> { }, t -> unsorted, (t, a, b, c) -> new HashMap<>(), null, 0);
        rows.checkTable(new TableId("default", "items"));
        SinkRecord c = change("c", "null", item(1, "x", 5L), 100, 1, 0);
        Exception e = assertThrows(org.apache.kafka.connect.errors.ConnectException.class, () -> rows.toRow(c));
        assertTrue(e.getMessage().contains("lacks the record key's field(s) [id]"), e.getMessage());
        assertNotNull(e.getMessage());
    }

    @Test
    void aVersionBelowTheKeysPreviousChangeIsNoticed() {
        DebeziumRows rows = rows("delete");
        TableBlock block = block();
        SinkRecord a = change("u", "null", item(1, "a", 1L), 5000, 1, 0);
        SinkRecord b = change("u", "null", item(1, "b", 2L), 6000, 1, 1);
        SinkRecord c = change("u", "null", item(1, "c", 3L), 10, 1, 2); // a new cluster: LSNs start low again
        rows.prepare(List.of(a, b, c));
        put(rows, a, block);
        put(rows, b, block);
        assertEquals(0, rows.versionsBack());
        put(rows, c, block);
        assertEquals(1, rows.versionsBack(), "the drop from 6000 to 10 is seen");
    }

    @Test
    void theTombstoneAfterADeleteFindsItWithoutAReadThoughItsBlockWasInserted() {
        DebeziumRows rows = rows("delete");
        TableBlock block = block();
        SinkRecord delete = change("d", "{\"id\":4,\"name\":null,\"qty\":null}", "null", 700, 4, 0);
        rows.prepare(List.of(delete));
        put(rows, delete, block);
        rows.blockInserted(block); // inserted before the tombstone's batch came
        int before = reads.size(); // the delete itself read its key (qty is a partition column)
        SinkRecord tomb = tombstone(4, 1);
        rows.prepare(List.of(tomb));
        assertNull(put(rows, tomb, block()), "the delete is its key's current row: nothing more to write");
        assertEquals(before, reads.size(), "no read of the table for the tombstone: " + reads);
        // Once the key is written again, the remembered delete is no longer its current row.
        SinkRecord create = change("c", "null", item(4, "back", 2L), 800, 4, 2);
        rows.prepare(List.of(create));
        TableBlock b2 = block();
        put(rows, create, b2);
        rows.blockInserted(b2);
        table.put(k(4), CurrentRow.fromTable(RowVersion.narrow(800), false, tableRow("back", "2")));
        SinkRecord tomb2 = tombstone(4, 3);
        rows.prepare(List.of(tomb2));
        assertEquals(801L, value(put(rows, tomb2, block())).get("_version"), "read from the table: live at 800");
    }

    @Test
    void aDeleteAndItsTombstoneInOneBatchNeedNoRead() {
        Map<String, String> types = new LinkedHashMap<>(LAYOUT.types);
        TableLayout byId = new TableLayout(types, List.of("id"), List.of("id"));
        Map<String, String> p = new HashMap<>();
        p.put("clickhouse.url", "http://localhost:8123");
        p.put("topic.to.table.map", DebeziumEvents.TOPIC + ":items");
        DebeziumRows rows = new DebeziumRows("_version", "_is_deleted", false, "delete", PH, ChangeVersion.DEFAULT,
                new TableRouter(new SinkConfig(p)), t -> { }, t -> byId, (t, k, keys, cols) -> {
                    reads.add(new ArrayList<>(keys));
                    return new HashMap<>();
                }, null, 0);
        rows.checkTable(new TableId("default", "items"));
        SinkRecord delete = change("d", "{\"id\":5,\"name\":null,\"qty\":null}", "null", 900, 5, 0);
        SinkRecord tomb = tombstone(5, 1);
        rows.prepare(List.of(delete, tomb));
        TableBlock block = block();
        assertEquals(900L, value(put(rows, delete, block)).get("_version"));
        assertNull(put(rows, tomb, block), "the pending delete answers: the tombstone writes nothing");
        assertTrue(reads.isEmpty(), "the envelope form's delete + tombstone read nothing: " + reads);
    }

    @Test
    void everyPlaceholderFormDebeziumWritesIsFound() {
        Placeholders p = new Placeholders(PH);
        byte[] b = PH.getBytes(StandardCharsets.UTF_8);
        List<Integer> ints = new ArrayList<>();
        List<Long> longs = new ArrayList<>();
        for (byte x : b) {
            ints.add((int) x);
            longs.add((long) x);
        }
        assertTrue(p.is(ints), "int[]: the placeholder's bytes as integers");
        assertTrue(p.is(longs), "bigint[]");
        assertTrue(p.is(List.of(PH)), "text[]");
        assertTrue(p.is(List.of((Object) b)), "bytea[]");
        assertTrue(p.is(List.of(java.util.UUID.nameUUIDFromBytes(b).toString())), "uuid[]");
        assertTrue(p.is(Map.of(PH, PH)), "hstore");
        assertTrue(p.is("{\"" + PH + "\":\"" + PH + "\"}"), "hstore as JSON");
        Schema geometry = SchemaBuilder.struct().name("io.debezium.data.geometry.Geometry")
                .field("wkb", Schema.BYTES_SCHEMA).field("srid", Schema.OPTIONAL_INT32_SCHEMA).build();
        assertTrue(p.is(new Struct(geometry).put("wkb", Hex.parse("0101000020E6100000000000FC83D797C1000000FC83D797C1"))
                .put("srid", 4326)), "PostGIS geometry");
        Schema point = SchemaBuilder.struct().name("io.debezium.data.geometry.Point").field("x", Schema.FLOAT64_SCHEMA)
                .field("y", Schema.FLOAT64_SCHEMA).field("wkb", Schema.OPTIONAL_BYTES_SCHEMA).build();
        assertTrue(p.is(new Struct(point).put("x", -99999999.0).put("y", -99999999.0)), "point");
        assertTrue(!p.is(List.of(1, 2, 3)) && !p.is(List.of("x")) && !p.is(Map.of("a", "b")) && !p.is(List.of())
                && !p.is(new Struct(point).put("x", 1.0).put("y", 2.0)), "real values are none");
    }

    @Test
    void anUnchangedToastArrayIsReadBackFromTheTableOrIsABadRecord() {
        Schema value = SchemaBuilder.struct().name("srv.public.items.Value").optional()
                .field("id", Schema.INT32_SCHEMA).field("tags", SchemaBuilder.array(Schema.INT32_SCHEMA).build())
                .field("attrs", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA).build()).build();
        Schema source = SchemaBuilder.struct().field("connector", Schema.STRING_SCHEMA)
                .field("lsn", Schema.INT64_SCHEMA).build();
        Schema envelope = SchemaBuilder.struct().name("srv.public.items.Envelope").field("before", value)
                .field("after", value).field("source", source).field("op", Schema.STRING_SCHEMA).build();
        List<Integer> ints = new ArrayList<>();
        for (byte x : PH.getBytes(StandardCharsets.UTF_8)) {
            ints.add((int) x);
        }
        Struct after = new Struct(value).put("id", 3).put("tags", ints).put("attrs", Map.of("k", "v"));
        Struct e = new Struct(envelope).put("after", after).put("op", "u")
                .put("source", new Struct(source).put("connector", "postgresql").put("lsn", 900L));
        SinkRecord u = new SinkRecord(DebeziumEvents.TOPIC, 0, KEY, key(3), envelope, e, 5);
        Map<String, Object> v = new HashMap<>();
        v.put("tags", "[1,-2,2147483647]"); // ClickHouse's toJSONString of an Array(Int32)
        table.put(k(3), CurrentRow.fromTable(RowVersion.narrow(800), false, v));
        DebeziumRows rows = rows("delete");
        rows.prepare(List.of(u));
        Struct row = value(rows.toRow(u));
        assertEquals(List.of(1, -2, Integer.MAX_VALUE), row.get("tags"), "read back as the field's int32 elements");

        // An unchanged hstore (a map) cannot be read back from the table: a bad record, never the placeholder.
        Struct afterMap = new Struct(value).put("id", 3).put("tags", List.of(7)).put("attrs", Map.of(PH, PH));
        Struct e2 = new Struct(envelope).put("after", afterMap).put("op", "u")
                .put("source", new Struct(source).put("connector", "postgresql").put("lsn", 901L));
        SinkRecord u2 = new SinkRecord(DebeziumEvents.TOPIC, 0, KEY, key(3), envelope, e2, 6);
        v.put("attrs", "{'k':'v'}");
        DebeziumRows fresh = rows("delete");
        fresh.prepare(List.of(u2));
        RecordMappingException x = assertThrows(RecordMappingException.class, () -> fresh.toRow(u2));
        assertTrue(x.getMessage().contains("'attrs'") && x.getMessage().contains("MAP")
                && x.getMessage().contains("REPLICA IDENTITY FULL"), x.getMessage());

        assertEquals(List.of(1L, 2L), ClickHouseCurrentRows.array("[\"1\",\"2\"]", Schema.INT64_SCHEMA),
                "64-bit integers come as JSON strings");
        assertEquals(java.util.Arrays.asList("a", null), ClickHouseCurrentRows.array("[\"a\",null]",
                Schema.OPTIONAL_STRING_SCHEMA));
        assertThrows(IllegalArgumentException.class, () -> ClickHouseCurrentRows.array("[300]", Schema.INT8_SCHEMA));
        assertThrows(IllegalArgumentException.class, () -> ClickHouseCurrentRows.array("[1.5]", Schema.INT32_SCHEMA));
    }

    @Test
    void withoutSchemasOnlyStringColumnsAreReadBack() {
        table.put(k(6), CurrentRow.fromTable(RowVersion.narrow(100), false, tableRow("six", "5")));
        DebeziumRows rows = rows("delete");
        SinkRecord u = record(DebeziumEvents.TOPIC, key(6), DebeziumEvents.payloadOnly(postgres("u", "null",
                "{\"id\":6,\"name\":\"" + PH + "\",\"qty\":7}", "false", 200L)), false, 0);
        rows.prepare(List.of(u));
        assertEquals("six", ((Map<?, ?>) rows.toRow(u).value()).get("name"));
        SinkRecord q = record(DebeziumEvents.TOPIC, key(6), DebeziumEvents.payloadOnly(postgres("u", "null",
                "{\"id\":6,\"name\":\"x\",\"qty\":\"" + PH + "\"}", "false", 300L)), false, 1);
        DebeziumRows fresh = rows("delete");
        fresh.prepare(List.of(q));
        RecordMappingException x = assertThrows(RecordMappingException.class, () -> fresh.toRow(q));
        assertTrue(x.getMessage().contains("'qty'") && x.getMessage().contains("Int64"), x.getMessage());
    }

    // ---------------------------------------------------------------- the cache of recent rows

    private static final TableId ITEMS = new TableId("default", "items");

    /** The record as it came through another partition of its topic. */
    /** The record as read from another partition (not moved there by a transform: newRecord would keep the first). */
    private static SinkRecord viaPartition(SinkRecord r, int partition) {
        return new SinkRecord(r.topic(), partition, r.keySchema(), r.key(), r.valueSchema(), r.value(),
                r.kafkaOffset(), r.timestamp(), r.timestampType(), r.headers());
    }

    /** Appends the batch to a new block and sees it inserted. */
    private static void inserted(DebeziumRows rows, SinkRecord... batch) {
        TableBlock block = block();
        rows.prepare(List.of(batch));
        for (SinkRecord r : batch) {
            put(rows, r, block);
        }
        rows.blockInserted(block);
    }

    @Test
    void anInsertedRowFillsTheNextPlaceholderWithoutARead() {
        DebeziumRows rows = rows("delete", 1 << 20);
        inserted(rows, change("c", "null", item(1, "big text", 5L), 100, 1, 0));
        assertEquals(0, rows.pendingRows());
        assertEquals(1, rows.recentRows());
        assertTrue(rows.recentBytes() > 0);
        // The table stand-in is empty: a read would find no row and make the update a bad record.
        SinkRecord u = change("u", "null", item(1, PH, 6L), 200, 1, 1);
        rows.prepare(List.of(u));
        Struct row = value(put(rows, u, block()));
        assertEquals("big text", row.get("name"));
        assertEquals(200L, row.get("_version"));
        assertTrue(reads.isEmpty(), "no read of the table: " + reads);
        assertEquals(1, rows.cacheHits());
    }

    @Test
    void aDeleteTakesItsPartitionColumnFromTheCacheAndADeletedRowAnswersDeleted() {
        DebeziumRows rows = rows("delete", 1 << 20);
        inserted(rows, change("c", "null", item(4, "four", 44L), 100, 4, 0));
        SinkRecord delete = change("d", "{\"id\":4,\"name\":null,\"qty\":null}", "null", 200, 4, 1);
        rows.prepare(List.of(delete));
        TableBlock b = block();
        Struct d = value(put(rows, delete, b));
        assertEquals(44L, d.get("qty"), "qty (a partition column) from the cached create");
        assertTrue(reads.isEmpty(), "" + reads);
        rows.blockInserted(b);
        SinkRecord tomb = tombstone(4, 2);
        rows.prepare(List.of(tomb));
        assertNull(put(rows, tomb, block()), "the delete answers without a read: nothing more to write");
        SinkRecord u = change("u", "null", item(4, PH, 6L), 300, 4, 3);
        rows.prepare(List.of(u));
        RecordMappingException x = assertThrows(RecordMappingException.class, () -> rows.toRow(u));
        assertTrue(x.getMessage().contains("is deleted there"), x.getMessage());
        assertTrue(reads.isEmpty(), "nothing read: " + reads);
    }

    @Test
    void revocationEmptiesTheCacheAndBlocksVerifiedAfterItNeverFillIt() {
        DebeziumRows rows = rows("delete", 1 << 20);
        inserted(rows, change("c", "null", item(1, "cached", 5L), 100, 1, 0));
        TableBlock inFlight = block();
        SinkRecord c2 = change("c", "null", item(2, "in flight", 5L), 110, 2, 1);
        rows.prepare(List.of(c2));
        put(rows, c2, inFlight);
        rows.revoked();
        assertEquals(0, rows.recentRows());
        rows.blockInserted(inFlight); // lands after the revocation: the key may have another owner by now
        assertEquals(0, rows.recentRows());
        assertEquals(0, rows.pendingRows());
        table.put(k(1), CurrentRow.fromTable(RowVersion.narrow(150), false, tableRow("from table", "5")));
        SinkRecord u = change("u", "null", item(1, PH, 6L), 200, 1, 2);
        rows.prepare(List.of(u));
        assertEquals("from table", value(put(rows, u, block())).get("name"));
        assertEquals(List.of(List.of(k(1))), reads);
        assertEquals(0, rows.cacheHits());
    }

    @Test
    void aDroppedBlocksRowsNeverEnterTheCache() {
        DebeziumRows rows = rows("delete", 1 << 20);
        inserted(rows, change("c", "null", item(1, "landed", 5L), 100, 1, 0));
        TableBlock dropped = block();
        SinkRecord u1 = change("u", "null", item(1, "never landed", 6L), 200, 1, 1);
        rows.prepare(List.of(u1));
        put(rows, u1, dropped);
        rows.blockDropped(dropped);
        assertEquals(0, rows.pendingRows());
        SinkRecord u2 = change("u", "null", item(1, PH, 7L), 300, 1, 2);
        rows.prepare(List.of(u2));
        assertEquals("landed", value(put(rows, u2, block())).get("name"), "the table's row, as cached");
        assertTrue(reads.isEmpty(), "" + reads);
    }

    @Test
    void theCacheAnswersOnlyForItsPartitionAndForgetsATableReadAgain() {
        DebeziumRows rows = rows("delete", 1 << 20);
        inserted(rows, change("c", "null", item(1, "cached", 5L), 100, 1, 0),
                change("c", "null", item(2, "cached too", 5L), 100, 2, 1));
        table.put(k(1), CurrentRow.fromTable(RowVersion.narrow(150), false, tableRow("from table", "5")));
        table.put(k(2), CurrentRow.fromTable(RowVersion.narrow(150), false, tableRow("from table 2", "5")));
        SinkRecord u = viaPartition(change("u", "null", item(1, PH, 6L), 200, 1, 2), 1);
        rows.prepare(List.of(u));
        assertEquals("from table", value(put(rows, u, block())).get("name"), "key 1 moved partitions");
        assertEquals(1, reads.size());
        rows.checkTable(ITEMS); // its columns read again (it changed under a block)
        assertEquals(0, rows.recentRows());
        SinkRecord u2 = change("u", "null", item(2, PH, 6L), 200, 2, 3);
        rows.prepare(List.of(u2));
        assertEquals("from table 2", value(put(rows, u2, block())).get("name"));
        assertEquals(2, reads.size());
        assertEquals(0, rows.cacheHits());
    }

    @Test
    void theCacheEvictsByItsBytes() {
        DebeziumRows probe = rows("delete", 1 << 20);
        inserted(probe, change("c", "null", item(1, "x", 5L), 100, 1, 0));
        long oneRow = probe.recentBytes();
        DebeziumRows rows = rows("delete", oneRow + oneRow / 2); // room for one row of this size, not two
        inserted(rows, change("c", "null", item(1, "x", 5L), 100, 1, 0),
                change("c", "null", item(2, "y", 5L), 100, 2, 1));
        assertEquals(1, rows.recentRows());
        assertTrue(rows.recentBytes() <= oneRow + oneRow / 2);
        table.put(k(1), CurrentRow.fromTable(RowVersion.narrow(100), false, tableRow("x from table", "5")));
        SinkRecord u1 = change("u", "null", item(1, PH, 6L), 200, 1, 2);
        SinkRecord u2 = change("u", "null", item(2, PH, 6L), 200, 2, 3);
        rows.prepare(List.of(u1, u2));
        TableBlock b = block();
        assertEquals("x from table", value(put(rows, u1, b)).get("name"), "key 1 was evicted: read");
        assertEquals("y", value(put(rows, u2, b)).get("name"), "key 2 cached");
        assertEquals(List.of(List.of(k(1))), reads);
        assertEquals(1, rows.cacheHits());
    }
}
