package io.chsink.connect.cdc;

import io.chsink.connect.block.TableBlock;
import io.chsink.connect.schema.TableId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows this task appended to blocks it has not yet seen inserted, latest per key: with the target table they
 * are everything the sink knows of a row's current state (all changes of a key come through one partition, so
 * through this task). A row leaves when its block is inserted (the table has it then: it moves on to
 * {@link RecentRows}) or dropped (its record comes again). The rows are held by reference; {@link #heldBytes}
 * estimates what they keep alive, which counts against buffer.max.bytes.
 */
final class PendingRows {
    /**
     * What a pending row keeps alive besides its key and values ({@link RowHeap}): its Entry (56), the map node (32)
     * and table slots (16: a 4-byte slot per entry at a load between 3/8 and 3/4), its slot in the block's list (8),
     * its version (32).
     */
    private static final long ENTRY_BYTES = 144;

    private static final class Entry {
        final TableId table;
        final RowKey key;
        final RowVersion version;
        final boolean deleted;
        final Object row;
        final long bytes;
        final String topic;
        final int partition;
        /** The {@link #generation} it was appended in. */
        final long generation;

        Entry(TableId table, RowKey key, RowVersion version, boolean deleted, Object row, long bytes, String topic,
                int partition, long generation) {
            this.table = table;
            this.key = key;
            this.version = version;
            this.deleted = deleted;
            this.row = row;
            this.bytes = bytes;
            this.topic = topic;
            this.partition = partition;
            this.generation = generation;
        }
    }

    /**
     * The keys whose last appended row is a delete, kept after its block is done, across all tables of the task: at
     * most this many, oldest out first (about 5 MB: {@link #deleteBytes}). Not counted in {@link #heldBytes}: no
     * insert frees them, so at a small buffer.max.bytes they would keep the task paused at its bound for good.
     */
    static final int RECENT_DELETES = 10_000;

    private final Map<TableId, Map<RowKey, Entry>> byTable = new HashMap<>();
    private final LinkedHashMap<TableKey, Entry> recentDeletes = new LinkedHashMap<>();
    private long deleteBytes;
    private final Map<TableBlock, List<Entry>> byBlock = new IdentityHashMap<>();
    private long heldBytes;
    /** Counts revocations: a row appended before one never becomes a recent row (see {@link #revoked}). */
    private long generation;

    /**
     * Records the row, which came through {@code topic} and {@code partition}; returns the version of the key's
     * previous pending row, or null.
     */
    RowVersion appended(TableId table, RowKey key, RowVersion version, boolean deleted, Object row, TableBlock block,
            String topic, int partition) {
        long bytes = RowHeap.key(key) + RowHeap.row(row);
        Entry e = new Entry(table, key, version, deleted, row, ENTRY_BYTES + bytes, topic, partition, generation);
        Entry old = byTable.computeIfAbsent(table, t -> new HashMap<>()).put(key, e);
        heldBytes += e.bytes; // until its block is done: an older row of the key stays listed under its own block
        byBlock.computeIfAbsent(block, b -> new ArrayList<>()).add(e);
        // The tombstone Debezium writes right after a delete event finds the delete here even when the delete's
        // block was inserted meanwhile: no read of the table for it.
        if (deleted) {
            Entry d = new Entry(table, key, version, true, row, DELETE_ENTRY_BYTES + bytes, topic, partition,
                    generation);
            TableKey k = new TableKey(table, key);
            forgetDelete(recentDeletes.remove(k)); // the key's latest delete goes last: out after the others
            recentDeletes.put(k, d);
            deleteBytes += d.bytes;
            if (recentDeletes.size() > RECENT_DELETES) {
                Iterator<Entry> eldest = recentDeletes.values().iterator();
                forgetDelete(eldest.next());
                eldest.remove();
            }
        } else if (!recentDeletes.isEmpty()) {
            forgetDelete(recentDeletes.remove(new TableKey(table, key)));
        }
        return old == null ? null : old.version;
    }

    /**
     * What a recent delete keeps alive besides its key and row (shared with its pending entry while its block is not
     * done, its own afterwards): its Entry (56), TableKey (24), linked map node (40), table slots (16), version (32).
     */
    private static final long DELETE_ENTRY_BYTES = 168;

    private void forgetDelete(Entry d) {
        if (d != null) {
            deleteBytes -= d.bytes;
        }
    }

    /**
     * The latest pending row of the key, or the delete row last appended for it (when no row of the key was appended
     * after it, even if its block is done), or null.
     */
    CurrentRow find(TableId table, RowKey key) {
        Map<RowKey, Entry> m = byTable.get(table);
        Entry e = m == null ? null : m.get(key);
        if (e == null && !recentDeletes.isEmpty()) {
            e = recentDeletes.get(new TableKey(table, key));
        }
        return e == null ? null : CurrentRow.pending(e.version, e.deleted, e.row);
    }

    boolean has(TableId table, RowKey key) {
        Map<RowKey, Entry> m = byTable.get(table);
        if (m != null && m.containsKey(key)) {
            return true;
        }
        return !recentDeletes.isEmpty() && recentDeletes.containsKey(new TableKey(table, key));
    }

    /**
     * Partitions were revoked: their keys' next changes may come elsewhere first. Forgets the recent deletes, and the
     * rows pending now (of blocks in flight, which may be verified only after the revocation) will not become recent
     * rows when their blocks are inserted.
     */
    void revoked() {
        recentDeletes.clear();
        deleteBytes = 0;
        generation++;
    }

    /**
     * The block was inserted (and verified): its rows are no longer pending, and those appended since the last
     * revocation go to {@code recent} (which keeps the one of each key with the highest version).
     */
    void inserted(TableBlock block, RecentRows recent, CachedColumns cached) {
        List<Entry> entries = done(block);
        if (entries == null) {
            return;
        }
        for (Entry e : entries) {
            if (e.generation == generation) {
                Object kept = cached.keep(e.table, e.key, e.row);
                recent.inserted(e.table, e.key, e.version, e.deleted, kept, CACHED_ENTRY_BYTES + RowHeap.key(e.key) + RowHeap.row(kept), e.topic,
                        e.partition);
            }
        }
    }

    /**
     * What a cached row keeps alive besides its key and values ({@link RowHeap}): the cache's slot (24), linked map
     * node (40) and table slots (16), its Entry (40) and version (32).
     */
    static final long CACHED_ENTRY_BYTES = 152;

    /** The block was dropped: its rows are no longer pending (their records come again). */
    void dropped(TableBlock block) {
        done(block);
    }

    /** Takes the block's rows out of the pending ones; returns them in the order appended, or null. */
    private List<Entry> done(TableBlock block) {
        List<Entry> entries = byBlock.remove(block);
        if (entries == null) {
            return null;
        }
        for (Entry e : entries) {
            Map<RowKey, Entry> m = byTable.get(e.table);
            heldBytes -= e.bytes;
            if (m != null && m.remove(e.key, e)) {
                if (m.isEmpty()) {
                    byTable.remove(e.table);
                }
            }
        }
        return entries;
    }

    void clear() {
        recentDeletes.clear();
        deleteBytes = 0;
        byTable.clear();
        byBlock.clear();
        heldBytes = 0;
    }

    int size() {
        int n = 0;
        for (Map<RowKey, Entry> m : byTable.values()) {
            n += m.size();
        }
        return n;
    }

    long heldBytes() {
        return heldBytes;
    }

    /** The heap the deletes kept for their tombstones keep (at most {@link #RECENT_DELETES} of them). */
    long deleteBytes() {
        return deleteBytes;
    }
}
