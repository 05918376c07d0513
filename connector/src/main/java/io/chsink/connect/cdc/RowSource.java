package io.chsink.connect.cdc;

import io.chsink.connect.schema.TableId;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * How a record becomes a table row: chosen once when the task starts ({@link RowSources#create}), from
 * {@code cdc.mode}. The task hands every record to {@link #toRow} before it is appended; the returned record (same
 * topic, partition and offset) is what the table mapping writes.
 */
public interface RowSource {
    /**
     * The record whose value is the row to write, or null when the record writes no row (it is skipped and its offset
     * committed). Throws {@link io.chsink.connect.mapping.RecordMappingException} for a record that cannot be read
     * (a bad record: it fails the task or goes to the error reporter).
     */
    SinkRecord toRow(SinkRecord record);

    /** Checks a table the first time the task reads its columns; throws when rows of this source cannot go there. */
    void checkTable(TableId table);

    /**
     * Whether a null or missing value for a non-Nullable column writes the column's default instead of making the
     * record a bad record (its rows may omit columns: Debezium's delete rows carry their key only).
     */
    boolean nullsTakeDefaults();

    /** The mode's name in cdc.mode. */
    String name();
}
