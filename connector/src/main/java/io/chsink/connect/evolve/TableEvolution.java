package io.chsink.connect.evolve;

import io.chsink.connect.mapping.TableMapping;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * What happens when a record does not fit its table, chosen once when the task starts ({@link Evolutions#create}):
 * from {@code auto.create} and {@code auto.evolve}. The task and its table mappings call it unconditionally: for a
 * table that does not exist ({@link #createsTables}, {@link #create}) and, for every row about to be appended,
 * {@link #mustEvolve} (cheap; answered per value schema), then {@link #evolve} when it says so.
 *
 * <p>Implementations: {@link FixedTables} (both off: the tables are the user's, as before) and
 * {@link FollowingTables} (tables created from the first row's schema and given the columns of new fields). Rows
 * are what {@link io.chsink.connect.cdc.RowSource} made of the records: with cdc.mode=debezium, the row, not the
 * change event. Everything runs on the task thread.
 */
public interface TableEvolution {
    /** Whether a missing table is created from its first row instead of failing the task or reporting its records. */
    boolean createsTables();

    /**
     * Creates the missing {@code table} for {@code row} (or finds it created by another writer meanwhile) and
     * returns its columns as read afterwards. Throws {@link io.chsink.connect.mapping.RecordMappingException} when
     * this row cannot create it (no value schema, a field without a ClickHouse type): a bad record; and
     * {@link org.apache.kafka.connect.errors.ConnectException} when the statement fails for good.
     */
    TableSchema create(TableId table, SinkRecord row);

    /**
     * Whether the row has fields that {@code mapping}'s table lacks and that this mode acts on (for a Struct value:
     * answered once per value schema and mapping). False for every row when auto.evolve is off.
     */
    boolean mustEvolve(TableMapping mapping, SinkRecord row);

    /**
     * Gives {@code table} the columns the row needs that {@code seen} lacks (re-reading the table first: another
     * writer may have added them) and returns its columns as read afterwards. Throws
     * {@link io.chsink.connect.mapping.RecordMappingException} for a field that cannot be added (required without a
     * default): a bad record.
     */
    TableSchema evolve(TableId table, TableMapping seen, SinkRecord row);

    /** For the start line: "none", "create", "evolve" or "create+evolve". */
    String name();
}
