package io.chsink.connect.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.block.TableBlock;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.testing.TestTables;
import java.lang.management.ManagementFactory;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

/**
 * The bytes the task counts for cached and pending rows against the heap they really keep alive: the bounds
 * {@code cdc.row.cache.bytes} and {@code buffer.max.bytes} promise a memory bound, so the estimate must not be
 * below the heap (measured after full collections, over many rows so that one object more or less does not matter).
 */
class RowMemoryTest {
    private static final TableId T = new TableId("default", "items");
    private static final Schema KEY = SchemaBuilder.struct().name("srv.public.items.Key").field("id", Schema.INT64_SCHEMA).build();
    private static final Schema ROW = SchemaBuilder.struct().name("srv.public.items.Value").optional()
            .field("id", Schema.INT64_SCHEMA)
            .field("name", Schema.OPTIONAL_STRING_SCHEMA)
            .field("body", Schema.OPTIONAL_STRING_SCHEMA)
            .field("qty", Schema.OPTIONAL_INT32_SCHEMA)
            .field("price", Schema.OPTIONAL_FLOAT64_SCHEMA)
            .field("updated", Schema.OPTIONAL_INT64_SCHEMA)
            .build();
    private static final int ROWS = 200_000;

    /** Body lengths; a negative one is text of that many Cyrillic characters (two bytes each in a String). */
    private static final int[] BODIES = {0, 40, 400, -400};

    private static Struct row(long id, int bodyLength) {
        StringBuilder body = new StringBuilder(Math.abs(bodyLength));
        for (int i = 0; i < Math.abs(bodyLength); i++) {
            body.append((char) ((bodyLength < 0 ? 'а' : 'a') + (id + i) % 26));
        }
        return new Struct(ROW).put("id", id).put("name", "name-" + id).put("body", body.toString())
                .put("qty", (int) id).put("price", id / 3.0).put("updated", 1_700_000_000_000L + id);
    }

    /** A block of the items table, for the rows to be appended to. */
    private static TableBlock block() {
        return new TableBlock(T, TestTables.mapping(T), 4, 0);
    }

    private static long heap() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /**
     * Not below the heap (the bound holds), and not far above it (the cache holds the rows its bytes allow). The
     * measurement is good to about 3%: G1 puts the hash tables of 200,000 entries (megabytes each) in whole regions.
     */
    private static void assertWithin(long counted, long heap) {
        assertTrue(counted >= heap * 97 / 100, "counted " + counted + " < heap " + heap);
        assertTrue(counted <= heap * 13 / 10, "counted " + counted + " > 1.3 x heap " + heap);
    }

    @Test
    void cachedRowsCountAtLeastTheHeapTheyKeep() {
        for (int body : BODIES) {
            CachedColumns cached = new CachedColumns(t -> null);
            long before = heap();
            RecentRows recent = new RecentRows(Long.MAX_VALUE / 4);
            PendingRows pending = new PendingRows();
            for (int b = 0; b < ROWS / 1000; b++) {
                TableBlock block = block();
                for (int i = 0; i < 1000; i++) {
                    long id = b * 1000L + i;
                    RowKey key = RowKey.of(new Struct(KEY).put("id", id), null);
                    pending.appended(T, key, RowVersion.narrow(id + 1), false, row(id, body), block, "srv.public.items", 0);
                }
                pending.inserted(block, recent, cached);
            }
            long used = heap() - before;
            System.out.printf("RowMemoryTest: body %d chars: %d cached rows, counted %d bytes, heap %d bytes: %.0f "
                    + "counted and %.0f real bytes per row%n", body, recent.size(), recent.bytes(), used,
                    recent.bytes() / (double) ROWS, used / (double) ROWS);
            assertWithin(recent.bytes(), used);
            assertTrue(recent.size() == ROWS && pending.heldBytes() == 0, "all cached, none pending");
        }
    }

    @Test
    void pendingRowsCountAtLeastTheHeapTheyKeep() {
        for (int body : BODIES) {
            TableBlock block = block(); // not counted: the rows are
            long before = heap();
            PendingRows pending = new PendingRows();
            for (int i = 0; i < ROWS; i++) {
                RowKey key = RowKey.of(new Struct(KEY).put("id", (long) i), null);
                pending.appended(T, key, RowVersion.narrow(i + 1), false, row(i, body), block, "srv.public.items", 0);
            }
            long used = heap() - before;
            System.out.printf("RowMemoryTest: body %d chars: %d pending rows, counted %d bytes, heap %d bytes: %.0f "
                    + "counted and %.0f real bytes per row%n", body, ROWS, pending.heldBytes(), used,
                    pending.heldBytes() / (double) ROWS, used / (double) ROWS);
            assertWithin(pending.heldBytes(), used);
        }
    }

    @Test
    void schemalessRowsCountAtLeastTheHeapTheyKeep() {
        TableBlock block = block(); // not counted: the rows are
        long before = heap();
        PendingRows pending = new PendingRows();
        for (int i = 0; i < ROWS; i++) {
            java.util.Map<String, Object> key = new java.util.LinkedHashMap<>();
            key.put("id", (long) i);
            Struct s = row(i, 40);
            java.util.Map<String, Object> r = new java.util.LinkedHashMap<>();
            for (org.apache.kafka.connect.data.Field f : ROW.fields()) {
                r.put(new String(f.name()), s.get(f)); // the names are new Strings per record, as a JSON parser makes them
            }
            pending.appended(T, RowKey.of(key, null), RowVersion.narrow(i + 1), false, r, block, "srv.public.items", 0);
        }
        long used = heap() - before;
        System.out.printf("RowMemoryTest: map rows: counted %d bytes, heap %d bytes: %.0f counted and %.0f real bytes "
                + "per row%n", pending.heldBytes(), used, pending.heldBytes() / (double) ROWS, used / (double) ROWS);
        assertWithin(pending.heldBytes(), used);
    }

    @Test
    void aKeysOlderPendingRowCountsUntilItsBlockIsDone() {
        PendingRows pending = new PendingRows();
        RowKey key = RowKey.of(new Struct(KEY).put("id", 1L), null);
        TableBlock b1 = block();
        TableBlock b2 = block();
        pending.appended(T, key, RowVersion.narrow(1), false, row(1, 400), b1, "srv.public.items", 0);
        long one = pending.heldBytes();
        pending.appended(T, key, RowVersion.narrow(2), false, row(1, 40), b2, "srv.public.items", 0);
        long two = pending.heldBytes();
        assertTrue(two > one, "block 1 still holds the older row: " + one + " -> " + two);
        pending.dropped(b1);
        assertEquals(two - one, pending.heldBytes(), "only the newer row is left");
        assertEquals(0, pending.find(T, key).version.compareTo(RowVersion.narrow(2)), "the newer row stays");
        pending.dropped(b2);
        assertEquals(0, pending.heldBytes());
    }

    @Test
    void recentDeletesAreBoundedAcrossTablesAndCounted() {
        long before = heap();
        PendingRows pending = new PendingRows();
        int tables = 300;
        int perTable = 100;
        for (int t = 0; t < tables; t++) {
            TableId table = new TableId("default", "t" + t);
            TableBlock block = block();
            for (int i = 0; i < perTable; i++) {
                RowKey key = RowKey.of(new Struct(KEY).put("id", (long) i), null);
                pending.appended(table, key, RowVersion.narrow(i + 1), true, row(i, 0), block, "srv.public.t" + t, 0);
            }
            pending.dropped(block); // the block is done: only the recent deletes are left
        }
        long used = heap() - before;
        System.out.printf("RowMemoryTest: %d deletes over %d tables: %d bytes counted, heap %d%n", tables * perTable,
                tables, pending.deleteBytes(), used);
        assertEquals(0, pending.size(), "no pending rows");
        assertEquals(0, pending.heldBytes(), "nothing against buffer.max.bytes: no insert would free it");
        assertWithin(pending.deleteBytes(), used);
        RowKey first = RowKey.of(new Struct(KEY).put("id", 0L), null);
        assertEquals(null, pending.find(new TableId("default", "t0"), first), "the oldest deletes are out");
        assertTrue(pending.find(new TableId("default", "t" + (tables - 1)), first).deleted, "the latest are kept");
        int kept = 0;
        for (int t = 0; t < tables; t++) {
            for (int i = 0; i < perTable; i++) {
                RowKey key = RowKey.of(new Struct(KEY).put("id", (long) i), null);
                kept += pending.has(new TableId("default", "t" + t), key) ? 1 : 0;
            }
        }
        assertEquals(PendingRows.RECENT_DELETES, kept, "at most RECENT_DELETES in all tables");
        pending.revoked();
        assertEquals(0, pending.deleteBytes(), "a revocation forgets them");
    }
}
