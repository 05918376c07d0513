package io.chsink.connect.cdc;

import io.chsink.connect.mapping.RecordMappingException;
import io.chsink.connect.offset.Origin;
import io.chsink.connect.schema.TableId;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The old key's row for the create of a primary-key change ({@link KeyChange}) whose unchanged TOAST values arrive as
 * Debezium's placeholder: the delete of the old key, at the create's version, which carries the row's values (the
 * delete side of {@link ChangeRows}). It is pending in this task, or in the table. When neither has it yet (the old
 * key's partition is behind, in this task or another), the create waits ({@link RowSource.NotYet}: its partition is
 * read again from it) for at most cdc.key.change.wait.ms, then is a bad record with the reason. A row of the old key
 * at a later version means the delete this create needs was replaced: a bad record too, never a guess.
 */
final class KeyChanges {
    private static final Logger LOG = LoggerFactory.getLogger(KeyChanges.class);
    /** The least time between two reads of one old key from the table while its create waits. */
    static final long READ_EVERY_MS = 200;

    private final PendingRows pending;
    private final CurrentRowReader reader;
    private final LongConsumer readTimes;
    private final long waitMs;
    private final LongSupplier clock;
    private final Function<SinkRecord, String> describe;
    /** Per waiting create (topic/partition/offset), when it first waited and when the table may be read again. */
    private final Map<String, long[]> waiting = new HashMap<>();

    KeyChanges(PendingRows pending, CurrentRowReader reader, LongConsumer readTimes, long waitMs, LongSupplier clock,
            Function<SinkRecord, String> describe) {
        this.pending = pending;
        this.reader = reader;
        this.readTimes = readTimes;
        this.waitMs = waitMs;
        this.clock = clock;
        this.describe = describe;
    }

    /**
     * The row whose values fill the create's placeholder columns {@code toast}: the old key's delete at
     * {@code version}. Throws {@link RowSource.NotYet} while it may still come, else RecordMappingException.
     */
    CurrentRow oldKeyRow(SinkRecord record, TableId table, RowKey key, Header header, RowVersion version,
            List<String> toast) {
        StringBuilder why = new StringBuilder();
        RowKey old = KeyChange.oldKey(header, key, why);
        if (old == null) {
            throw bad(record, toast, key, "the create of a primary-key change, but " + why);
        }
        String id = id(record);
        long now = clock.getAsLong();
        long[] w = waiting.get(id);
        CurrentRow row = pending.find(table, old);
        if ((row == null || row.version.compareTo(version) < 0) && (w == null || now >= w[1])) {
            // Not pending here, or only its earlier changes: the table has it when another task wrote it.
            CurrentRow inTable = read(table, old, toast);
            if (row == null || inTable != null && inTable.version.compareTo(row.version) > 0) {
                row = inTable;
            }
            if (w != null) {
                w[1] = now + READ_EVERY_MS;
            }
        }
        int cmp = row == null ? -1 : row.version.compareTo(version);
        if (cmp == 0 && row.deleted) {
            waiting.remove(id);
            for (String c : toast) {
                if (!carries(row, c)) {
                    throw bad(record, toast, key, "the create of a primary-key change from key " + old + ", whose "
                            + "delete row does not carry column '" + c + "' (its current value was unknown to the "
                            + "task that wrote the delete: never snapshotted)");
                }
            }
            return row;
        }
        if (cmp >= 0) {
            waiting.remove(id);
            throw bad(record, toast, key, "the create of a primary-key change from key " + old + ", whose row in "
                    + table.quoted() + " is " + (row.deleted ? "a delete" : "live") + " at version " + row.version
                    + ", not the key change's delete at version " + version + " (the old key changed again, and its "
                    + "values at the key change are gone)");
        }
        if (w == null) {
            w = new long[] {now, now + READ_EVERY_MS};
            waiting.put(id, w);
            LOG.debug("{}: waiting for the delete of key {} (a primary-key change) to reach {}", id, old, table);
        } else if (now - w[0] >= waitMs) {
            waiting.remove(id);
            throw bad(record, toast, key, "the create of a primary-key change from key " + old + ", whose delete "
                    + "(version " + version + ") did not reach " + table.quoted() + " within " + waitMs + " ms "
                    + "(cdc.key.change.wait.ms): its partition is that far behind, or the delete went elsewhere");
        }
        throw new RowSource.NotYet("the delete of key " + old + " (a primary-key change) is not in " + table.quoted()
                + " yet");
    }

    /**
     * Whether the record is a create waiting for its old key's delete that is not to be looked at again yet: it waits
     * on ({@link RowSource.NotYet}) without a read of the table, at most every {@value #READ_EVERY_MS} ms.
     */
    boolean resting(SinkRecord record) {
        if (waiting.isEmpty()) {
            return false;
        }
        long[] w = waiting.get(id(record));
        return w != null && clock.getAsLong() < w[1];
    }

    /** Partitions were revoked: their waiting creates come again, to this task or another. */
    void revoked() {
        waiting.clear();
    }

    /** Creates waiting now. */
    int waiting() {
        return waiting.size();
    }

    /** A waiting create's name: its consumer coordinates, which Connect seeks and redelivers it by. */
    private static String id(SinkRecord record) {
        return Origin.topic(record) + "/" + Origin.partition(record) + "/" + Origin.offset(record);
    }

    private CurrentRow read(TableId table, RowKey key, Collection<String> columns) {
        long t0 = System.nanoTime();
        Map<RowKey, CurrentRow> rows = reader.read(table, key.columns, List.of(key), columns);
        readTimes.accept((System.nanoTime() - t0) / 1_000_000);
        return rows.get(key);
    }

    /**
     * Whether the delete row holds the column's value: an unchanged TOAST value is large, so an empty one is the
     * column's default, written by a delete that carried nothing.
     */
    private static boolean carries(CurrentRow row, String c) {
        if (!row.has(c)) {
            return false;
        }
        Object v = row.get(c);
        if (v == null) {
            return false;
        }
        if (v instanceof byte[]) {
            return ((byte[]) v).length > 0;
        }
        if (v instanceof java.nio.ByteBuffer) {
            return ((java.nio.ByteBuffer) v).hasRemaining();
        }
        if (v instanceof CharSequence) {
            String s = v.toString();
            return !s.isEmpty() && !s.equals("[]") && !s.equals("{}");
        }
        if (v instanceof Collection) {
            return !((Collection<?>) v).isEmpty();
        }
        if (v instanceof Map) {
            return !((Map<?, ?>) v).isEmpty();
        }
        return true;
    }

    private RecordMappingException bad(SinkRecord record, List<String> toast, RowKey key, String what) {
        return new RecordMappingException(describe.apply(record) + ": column(s) " + toast + " hold Debezium's "
                + "placeholder for an unchanged TOAST value, and key " + key + " is " + what + ". Set REPLICA "
                + "IDENTITY FULL on the source table, or re-snapshot it");
    }
}
