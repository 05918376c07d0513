package io.chsink.connect.cdc;

import io.chsink.connect.block.TableBlock;
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

    /**
     * Thrown by {@link #toRow} for a record that cannot become its row yet, but will (the create of a primary-key
     * change whose old key's delete, in another partition, has not reached the table): the task reads its partition
     * again from it, and nothing of the partition from it on is appended or committed meanwhile.
     */
    final class NotYet extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public NotYet(String why) {
            super(why, null, false, false);
        }
    }

    /** Checks a table the first time the task reads its columns; throws when rows of this source cannot go there. */
    void checkTable(TableId table);

    /**
     * Whether a null or missing value for a non-Nullable column writes the column's default instead of making the
     * record a bad record (its rows may omit columns: Debezium's delete rows carry their key only).
     */
    boolean nullsTakeDefaults();

    /** The mode's name in cdc.mode. */
    String name();

    /**
     * Called with each batch before its records go to {@link #toRow}, after the batch's tables were loaded: reads
     * what the batch's rows need from the tables at once, and returns true. When the batch needs rows read and
     * {@code mayWait}, it may instead read nothing and return false: the task holds the batch and hands it again,
     * with the next poll's records after it, so that one read serves both. Throws RetriableException when a table
     * cannot be read now (the poll comes again; nothing of it was appended).
     */
    default boolean prepare(java.util.Collection<SinkRecord> records, boolean mayWait) {
        return true;
    }

    /** The row (from {@link #toRow}) was appended to {@code block} of {@code table}. */
    default void appended(SinkRecord row, TableBlock block, TableId table) {
    }

    /** Partitions were revoked: what the source remembers of their keys may be outdated when they come back. */
    default void revoked() {
    }

    /** The block was inserted and verified: the table has its rows now. */
    default void blockInserted(TableBlock block) {
    }

    /** The block was dropped (its records come again, or go to the partition's next owner): its rows never landed. */
    default void blockDropped(TableBlock block) {
    }

    /** Bytes the source keeps alive for rows of blocks not yet done (they count against buffer.max.bytes). */
    default long heldBytes() {
        return 0;
    }

    /** The record auto.create makes the table from, for a row of the table (a delete row: the full row's shape). */
    default SinkRecord forCreate(SinkRecord row) {
        return row;
    }
}
