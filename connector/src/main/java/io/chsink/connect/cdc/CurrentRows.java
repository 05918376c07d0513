package io.chsink.connect.cdc;

import io.chsink.connect.mapping.RecordMappingException;
import io.chsink.connect.offset.Origin;
import io.chsink.connect.schema.TableId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The current row of a key as this task knows it: pending in one of its blocks ({@link PendingRows}), else among
 * its recent rows ({@link RecentRows}), else read from the table, with the other keys of its batch that the
 * read planner asked for ({@link #read}) or alone. What {@link ChangeRows} is handed as its {@link CurrentRowLookup}.
 */
final class CurrentRows implements CurrentRowLookup {
    private final PendingRows pending;
    private final RecentRows recent;
    private final CachedColumns cached;
    private final CurrentRowReader reader;
    private final Function<TableId, TableLayout> layouts;
    private final Function<SinkRecord, String> describe;
    private final LongConsumer readTimes;
    private final Runnable cacheHits;
    private final FullCacheWarning fullCache;
    /** Creates of primary-key changes that take their TOAST values from the old key's delete. */
    private KeyChanges keyChanges;
    /** This batch: the rows read from tables, and the keys asked for. */
    private final Map<TableId, Map<RowKey, CurrentRow>> fetched = new HashMap<>();
    private final Map<TableId, Set<RowKey>> asked = new HashMap<>();
    private long hits;

    /**
     * @param layouts the target table's layout, or null while unknown
     * @param describe names a record in the messages of bad records
     * @param readTimes told the milliseconds of every read of current rows from a table
     * @param cacheHits told of every current row found among the recent rows (no read)
     */
    CurrentRows(PendingRows pending, RecentRows recent, CachedColumns cached, CurrentRowReader reader,
            Function<TableId, TableLayout> layouts, Function<SinkRecord, String> describe, LongConsumer readTimes,
            Runnable cacheHits) {
        this.pending = pending;
        this.recent = recent;
        this.cached = cached;
        this.reader = reader;
        this.layouts = layouts;
        this.describe = describe;
        this.readTimes = readTimes;
        this.cacheHits = cacheHits;
        this.fullCache = new FullCacheWarning(recent, System::currentTimeMillis);
    }

    /** How long the create of a primary-key change waits for its old key's delete (cdc.key.change.wait.ms). */
    void keyChangeWait(long waitMs, LongSupplier clock) {
        keyChanges = new KeyChanges(pending, reader, readTimes, waitMs, clock, describe);
    }

    /** A new batch: the rows read for the last one are forgotten. */
    void newBatch() {
        fetched.clear();
        asked.clear();
    }

    /**
     * The current row of a key: pending in this task, else among its recent rows (when that one has the
     * {@code columns} the change needs), else read from the table for this batch.
     */
    @Override
    public CurrentRow find(SinkRecord record, TableId table, RowKey key, Collection<String> columns) {
        CurrentRow p = pending.find(table, key);
        if (p != null) {
            return p;
        }
        CurrentRow c = recent.find(table, key, Origin.topic(record), Origin.partition(record), columns);
        if (c != null) {
            hits++;
            cacheHits.run();
            return c;
        }
        TableLayout layout = layouts.apply(table);
        if (layout != null && !layout.types.keySet().containsAll(key.columns)) {
            List<String> missing = new ArrayList<>(key.columns);
            missing.removeAll(layout.types.keySet());
            throw new RecordMappingException(describe.apply(record) + ": cannot look up the current row of key " + key
                    + ": the record key's field(s) " + missing + " are not columns of the table (its "
                    + "columns: " + layout.types.keySet() + ")");
        }
        Set<RowKey> a = asked.get(table);
        if (a == null || !a.contains(key)) {
            // Not asked for in prepare (a record toRow saw without prepare): ask now, for every column.
            read(table, key.columns, List.of(key), layout == null ? List.of() : layout.types.keySet());
        }
        Map<RowKey, CurrentRow> f = fetched.get(table);
        return f == null ? null : f.get(key);
    }

    /** Reads the keys' current rows from the table into this batch's {@link #fetched}, timed for the metrics. */
    void read(TableId table, List<String> keyColumns, Collection<RowKey> keys, Collection<String> columns) {
        long t0 = System.nanoTime();
        Map<RowKey, CurrentRow> rows = reader.read(table, keyColumns, keys, columns);
        readTimes.accept((System.nanoTime() - t0) / 1_000_000);
        fullCache.read(table, keys.size());
        for (Map.Entry<RowKey, CurrentRow> r : rows.entrySet()) {
            recent.readFromTable(table, r.getKey(), r.getValue().version);
        }
        fetched.computeIfAbsent(table, t -> new HashMap<>()).putAll(rows);
        asked.computeIfAbsent(table, t -> new HashSet<>()).addAll(keys);
    }

    @Override
    public boolean resting(SinkRecord record) {
        return keyChanges.resting(record);
    }

    @Override
    public CurrentRow oldKeyRow(SinkRecord record, TableId table, RowKey key, Header header, RowVersion version,
            List<String> toast) {
        return keyChanges.oldKeyRow(record, table, key, header, version, toast);
    }

    @Override
    public void placeholdersIn(TableId table, Collection<String> columns) {
        cached.placeholdersIn(table, columns);
    }

    @Override
    public void keyChangeIn(TableId table) {
        cached.keyChangeIn(table);
    }

    /** Partitions were revoked: their waiting creates come again, to this task or another. */
    void revoked() {
        keyChanges.revoked();
    }

    /** How many current rows came from the recent rows. */
    long hits() {
        return hits;
    }
}
