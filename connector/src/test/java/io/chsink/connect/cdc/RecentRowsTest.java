package io.chsink.connect.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.schema.TableId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The task's cache of the rows it wrote and saw inserted: what it answers, and what it no longer answers. */
class RecentRowsTest {
    private static final TableId ITEMS = new TableId("default", "items");
    private static final TableId OTHER = new TableId("default", "other");
    private static final String TOPIC = "srv.public.items";
    private static final List<String> NAME = List.of("name");

    private static RowKey k(int id) {
        return RowKey.ofText(List.of("id"), List.of(String.valueOf(id)));
    }

    private static Map<String, Object> row(int id, String name) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("id", id);
        r.put("name", name);
        return r;
    }

    private static void put(RecentRows c, TableId t, int id, long version, String name, long bytes) {
        c.inserted(t, k(id), RowVersion.narrow(version), false, row(id, name), bytes, TOPIC, 0);
    }

    private static CurrentRow find(RecentRows c, TableId t, int id) {
        return c.find(t, k(id), TOPIC, 0, NAME);
    }

    @Test
    void theLeastRecentlyUsedRowsGoOnceTheBytesExceedTheBound() {
        RecentRows c = new RecentRows(1000);
        put(c, ITEMS, 1, 10, "a", 300);
        put(c, ITEMS, 2, 10, "b", 300);
        put(c, OTHER, 3, 10, "c", 300);
        assertEquals(900, c.bytes());
        assertNotNull(find(c, ITEMS, 1), "key 1 used: key 2 is now the least recently used");
        put(c, ITEMS, 4, 10, "d", 300);
        assertEquals(3, c.size());
        assertEquals(900, c.bytes());
        assertNull(find(c, ITEMS, 2), "evicted");
        assertEquals(1, c.evicted());
        assertEquals("a", find(c, ITEMS, 1).get("name"));
        assertEquals("c", find(c, OTHER, 3).get("name"), "one bound over all tables");
        // A new version of a key replaces its row, bytes and all.
        put(c, ITEMS, 1, 11, "a2", 100);
        assertEquals(700, c.bytes());
        assertEquals("a2", find(c, ITEMS, 1).get("name"));
        // A row larger than the bound is not kept, nor is the key's older row (it is no longer the latest).
        c.inserted(ITEMS, k(1), RowVersion.narrow(12), false, row(1, "huge"), 5000, TOPIC, 0);
        assertNull(find(c, ITEMS, 1));
        assertEquals(600, c.bytes());
        assertEquals(1, c.evicted(), "a replaced row, or one larger than the bound, is no eviction");
    }

    @Test
    void theHigherVersionStaysWhicheverBlockIsVerifiedFirst() {
        RecentRows c = new RecentRows(1 << 20);
        put(c, ITEMS, 1, 20, "newer", 100);
        put(c, ITEMS, 1, 10, "older", 100); // a block with an earlier change verified after the later one
        assertEquals("newer", find(c, ITEMS, 1).get("name"));
        assertEquals(RowVersion.narrow(20), find(c, ITEMS, 1).version);
        assertEquals(100, c.bytes());
        put(c, ITEMS, 1, 20, "same version again", 100); // an at-least-once duplicate
        assertEquals("same version again", find(c, ITEMS, 1).get("name"));
    }

    @Test
    void aNewerVersionReadFromTheTableDropsTheCachedRow() {
        RecentRows c = new RecentRows(1 << 20);
        put(c, ITEMS, 1, 20, "a", 100);
        c.readFromTable(ITEMS, k(1), RowVersion.narrow(20));
        c.readFromTable(ITEMS, k(1), RowVersion.narrow(15));
        assertNotNull(find(c, ITEMS, 1), "the table's row is not newer: the cached row stays");
        c.readFromTable(ITEMS, k(1), RowVersion.narrow(21));
        assertNull(find(c, ITEMS, 1), "another writer's newer version: the table answers from now on");
        assertEquals(0, c.bytes());
    }

    @Test
    void aDeletedRowAnswersAsDeleted() {
        RecentRows c = new RecentRows(1 << 20);
        Map<String, Object> keyOnly = new LinkedHashMap<>();
        keyOnly.put("id", 7);
        c.inserted(ITEMS, k(7), RowVersion.narrow(30), true, keyOnly, 100, TOPIC, 0);
        CurrentRow r = find(c, ITEMS, 7);
        assertNotNull(r, "a delete row answers though it lacks the asked columns");
        assertTrue(r.deleted);
        assertEquals(RowVersion.narrow(30), r.version);
        // A live row lacking an asked column (one added since) does not answer: the table's value is read.
        put(c, ITEMS, 8, 30, "x", 100);
        assertNull(c.find(ITEMS, k(8), TOPIC, 0, List.of("name", "added_later")));
        assertNotNull(find(c, ITEMS, 8), "and the row stays for changes that need only its columns");
    }

    @Test
    void aRowAnswersOnlyForTheTopicAndPartitionItCameThrough() {
        RecentRows c = new RecentRows(1 << 20);
        put(c, ITEMS, 1, 10, "a", 100);
        assertNull(c.find(ITEMS, k(1), TOPIC, 1, NAME), "the key now comes through partition 1");
        assertNull(find(c, ITEMS, 1), "and its row through partition 0 was dropped");
        put(c, ITEMS, 2, 10, "b", 100);
        assertNull(c.find(ITEMS, k(2), "srv2.public.items", 0, NAME), "another topic routed to the table");
        assertEquals(0, c.size());
    }

    @Test
    void clearAndForgetEmptyIt() {
        RecentRows c = new RecentRows(1 << 20);
        put(c, ITEMS, 1, 10, "a", 100);
        put(c, OTHER, 1, 10, "b", 100);
        c.forget(ITEMS);
        assertNull(find(c, ITEMS, 1));
        assertEquals("b", find(c, OTHER, 1).get("name"));
        assertEquals(100, c.bytes());
        c.clear();
        assertNull(find(c, OTHER, 1));
        assertEquals(0, c.bytes());
    }

    @Test
    void zeroBytesKeepsNothing() {
        RecentRows c = new RecentRows(0);
        put(c, ITEMS, 1, 10, "a", 1);
        assertNull(find(c, ITEMS, 1));
        assertEquals(0, c.size());
        assertThrows(IllegalArgumentException.class, () -> new RecentRows(-1));
    }
}
