package io.chsink.connect.cdc;

import io.chsink.connect.schema.TableId;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Where {@link ChangeRows} finds what a change event's row takes from the row's current value: the latest row of a
 * key, the old key's row of a primary-key change ({@link KeyChanges}), and where it says which columns those current
 * rows must keep.
 */
interface CurrentRowLookup {
    /**
     * The current row of the key that the record's change needs, with at least {@code columns} when it is a recent
     * row, or null when the sink knows of none. Throws RecordMappingException when the key cannot be looked up.
     */
    CurrentRow find(SinkRecord record, TableId table, RowKey key, Collection<String> columns);

    /**
     * Whether the record is the create of a primary-key change that waits for its old key's delete and is not to be
     * looked at again yet ({@link KeyChanges#resting}).
     */
    boolean resting(SinkRecord record);

    /**
     * The old key's delete whose values fill the create's placeholder columns {@code toast}, for a create whose key
     * {@code header} names the old key ({@link KeyChanges#oldKeyRow}): throws {@link RowSource.NotYet} while it may
     * still come, else RecordMappingException.
     */
    CurrentRow oldKeyRow(SinkRecord record, TableId table, RowKey key, Header header, RowVersion version,
            List<String> toast);

    /** Columns of the table that held Debezium's placeholder in a change: current rows keep them from now on. */
    void placeholdersIn(TableId table, Collection<String> columns);

    /** The table had a primary-key change (an old key's delete): current rows keep every column that can hold one. */
    void keyChangeIn(TableId table);
}
