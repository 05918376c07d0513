package io.chsink.connect.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.schema.TableId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The warning that current rows are read while the cache of inserted rows is full: when it comes, what it says. */
class FullCacheWarningTest {
    private static final TableId ITEMS = new TableId("default", "items");

    private static void insert(RecentRows c, int id, long bytes) {
        c.inserted(ITEMS, RowKey.ofText(List.of("id"), List.of(String.valueOf(id))), RowVersion.narrow(1), false,
                Map.of("id", id), bytes, "srv.public.items", 0);
    }

    @Test
    void noWarningWhileTheCacheHasEvictedNothing() {
        RecentRows cache = new RecentRows(1000);
        FullCacheWarning w = new FullCacheWarning(cache, () -> 0L);
        assertNull(w.due(ITEMS, 5), "empty cache: the reads are of keys it never held");
        insert(cache, 1, 400);
        insert(cache, 2, 400);
        assertEquals(0, cache.evicted());
        assertNull(w.due(ITEMS, 5), "room left: the bound makes no read");
        RecentRows off = new RecentRows(0);
        insert(off, 1, 400);
        assertNull(new FullCacheWarning(off, () -> 0L).due(ITEMS, 5), "cdc.row.cache.bytes=0: no cache to raise");
    }

    @Test
    void onceEvictingItSaysSoAtMostEveryTenMinutes() {
        RecentRows cache = new RecentRows(1000);
        AtomicLong now = new AtomicLong(1_000_000);
        FullCacheWarning w = new FullCacheWarning(cache, now::get);
        for (int id = 1; id <= 5; id++) {
            insert(cache, id, 400); // two fit: three go
        }
        assertEquals(3, cache.evicted());
        String first = w.due(ITEMS, 17);
        assertNotNull(first);
        assertEquals("Table `default`.`items`: read the current rows of 17 key(s) from ClickHouse while this task's "
                + "cache of inserted rows is full (cdc.row.cache.bytes=1000 holds 2 rows; 3 rows were evicted to stay "
                + "within it since the task started). A change that needs its key's current row (an unchanged TOAST "
                + "value, the delete of a primary-key change, a delete or tombstone of a table keyed beyond the "
                + "primary key) reads it from the table when it is neither pending nor cached: a larger "
                + "cdc.row.cache.bytes (and the worker heap to hold it) saves the reads of evicted keys. (Logged at "
                + "most every 10 minutes per task.)", first);
        now.addAndGet(FullCacheWarning.EVERY_MS - 1);
        assertNull(w.due(ITEMS, 3), "within 10 minutes of the last one");
        now.addAndGet(1);
        insert(cache, 6, 400);
        String again = w.due(ITEMS, 3);
        assertNotNull(again, "10 minutes on");
        assertTrue(again.contains("holds 2 rows; 4 rows were evicted"), again);
    }
}
