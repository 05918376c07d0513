package io.chsink.connect.cdc;

import io.chsink.connect.schema.TableId;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The rows this task wrote and saw inserted, latest per key, least recently used first out, bounded by bytes
 * (estimated as {@link PendingRows} does; {@code cdc.row.cache.bytes}, 0: none). An unchanged TOAST value, a delete
 * or a tombstone that needs a key's current row finds it here when it is not pending: no read of the table.
 *
 * <p>Why a cached row is the key's current row: all changes of a key come through one partition, so through the task
 * that owns it; the cache holds only rows this task appended and ClickHouse accepted (their block verified), each
 * with the topic and partition it came through. While the task owns that partition no other writer of the sink makes
 * a newer version of the key, so the row here is the latest one (of two versions of a key the higher one stays, as
 * {@code ORDER BY version DESC LIMIT 1 BY key} would answer). What could make it stale is handled so:
 * <ul>
 *   <li>the partition is revoked (another task may write the key meanwhile): the task clears the cache
 *       ({@link #clear}), and rows of blocks appended before the revocation but verified after it never enter it;
 *       after a restart the cache starts empty: reads of the table take over;
 *   <li>a key arriving through another topic or partition than its cached row's (partitions added to the topic,
 *       several topics routed to one table): the cached row is dropped and the table is read;
 *   <li>a block dropped and rewound: its rows never enter the cache (the table keeps the key's earlier row, which the
 *       cache may hold: still right); the records come again and their rows enter once inserted;
 *   <li>the table changed under a block (its columns re-read: {@code checkTable}): the table's cached rows are
 *       forgotten, so the cache answers as the table would;
 *   <li>exactly_once replays rebuild blocks from the same records: the same rows at the same versions (and the
 *       restart or revocation that caused them emptied the cache);
 *   <li>a primary-key change: Debezium writes the delete of the old key through its partition and the create of
 *       the new key in full through the new key's, so the create needs no current row (one with a placeholder
 *       finds the new key unknown or deleted: a bad record, as from the table);
 *   <li>a newer version read from the table (another writer): the cached row is dropped ({@link #readFromTable});
 *   <li>a deleted row answers as deleted (a placeholder then is a bad record, a tombstone writes no row).
 * </ul>
 * Not seen: changes made to the table's rows outside this sink (TRUNCATE, ALTER ... DELETE, TTL, another writer of
 * the same keys). The cache then answers with the row as this task wrote it, which is the source row as its change
 * stream has it, where a read of the table would find the row gone (a bad record) or another writer's version.
 */
final class RecentRows {
    private static final class Entry {
        final RowVersion version;
        final boolean deleted;
        final Object row;
        final long bytes;
        final String topic;
        final int partition;

        Entry(RowVersion version, boolean deleted, Object row, long bytes, String topic, int partition) {
            this.version = version;
            this.deleted = deleted;
            this.row = row;
            this.bytes = bytes;
            this.topic = topic;
            this.partition = partition;
        }
    }

    private final long maxBytes;
    private final LinkedHashMap<TableKey, Entry> rows = new LinkedHashMap<>(256, 0.75f, true);
    private long bytes;
    /** Rows taken out to stay within {@link #maxBytes} (least recently used first). */
    private long evicted;

    /** @param maxBytes the bound of {@link #bytes}; 0 keeps nothing */
    RecentRows(long maxBytes) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("a cache bound is >= 0: " + maxBytes);
        }
        this.maxBytes = maxBytes;
    }

    /**
     * A row of a verified block: it becomes the key's cached row unless the cached one has a higher version (blocks
     * of a table may be verified out of order). A row larger than the whole bound is not kept, and the key's older
     * row goes with it.
     */
    void inserted(TableId table, RowKey key, RowVersion version, boolean deleted, Object row, long rowBytes,
            String topic, int partition) {
        if (maxBytes == 0) {
            return;
        }
        TableKey slot = new TableKey(table, key);
        // One look-up in the common case (a newer row of the key, or a key not cached): the map is large, and each
        // look-up is mostly waiting for memory.
        Entry old = rows.put(slot, new Entry(version, deleted, row, rowBytes, topic, partition));
        if (old != null) {
            if (old.version.compareTo(version) > 0 && old.partition == partition && old.topic.equals(topic)) {
                rows.put(slot, old); // blocks verified out of order: the higher version stays
                return;
            }
            bytes -= old.bytes;
        }
        if (rowBytes > maxBytes) {
            rows.remove(slot);
            return;
        }
        bytes += rowBytes;
        Iterator<Entry> eldest = rows.values().iterator();
        while (bytes > maxBytes && eldest.hasNext()) {
            bytes -= eldest.next().bytes;
            eldest.remove();
            evicted++;
        }
    }

    /**
     * The key's cached row when it answers for a change that came through {@code topic} and {@code partition}: a
     * deleted row always, another one when it has every column of {@code columns}. Null otherwise; a row cached from
     * another topic or partition is dropped.
     */
    CurrentRow find(TableId table, RowKey key, String topic, int partition, Collection<String> columns) {
        if (rows.isEmpty()) {
            return null;
        }
        TableKey slot = new TableKey(table, key);
        Entry e = rows.get(slot);
        if (e == null) {
            return null;
        }
        if (e.partition != partition || !e.topic.equals(topic)) {
            rows.remove(slot);
            bytes -= e.bytes;
            return null;
        }
        CurrentRow r = CurrentRow.pending(e.version, e.deleted, e.row);
        if (!e.deleted) {
            for (String c : columns) {
                if (!r.has(c)) {
                    return null; // a column the cached row lacks (added since): the table's value is read
                }
            }
        }
        return r;
    }

    /** A row read from the table: a cached row of the key with a lower version is no longer its current row. */
    void readFromTable(TableId table, RowKey key, RowVersion version) {
        if (rows.isEmpty()) {
            return;
        }
        TableKey slot = new TableKey(table, key);
        Entry e = rows.get(slot);
        if (e != null && e.version.compareTo(version) < 0) {
            rows.remove(slot);
            bytes -= e.bytes;
        }
    }

    /** Forgets the table's rows. */
    void forget(TableId table) {
        Iterator<Map.Entry<TableKey, Entry>> it = rows.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<TableKey, Entry> e = it.next();
            if (Objects.equals(e.getKey().table, table)) {
                bytes -= e.getValue().bytes;
                it.remove();
            }
        }
    }

    void clear() {
        rows.clear();
        bytes = 0;
    }

    int size() {
        return rows.size();
    }

    long bytes() {
        return bytes;
    }

    /** The bound of {@link #bytes} (cdc.row.cache.bytes). */
    long maxBytes() {
        return maxBytes;
    }

    /**
     * How many rows left to stay within the bound since the task started (a row replaced by a newer version of its
     * key, or dropped as stale, is not counted): more than 0 means the cache is full, and keys it evicted are read
     * from the table when a change needs them again.
     */
    long evicted() {
        return evicted;
    }
}
