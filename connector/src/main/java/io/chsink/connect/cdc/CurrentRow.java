package io.chsink.connect.cdc;

import java.util.Map;
import org.apache.kafka.connect.data.Struct;

/**
 * The latest row of a key as the sink knows it, deleted or not, with its version: a row of a block this task has
 * not yet seen inserted (its values typed as its record's fields), or a row of the target table (each column as
 * ClickHouse's text of it, String columns as their bytes: see {@link ClickHouseCurrentRows}).
 */
final class CurrentRow {
    final RowVersion version;
    final boolean deleted;
    /** Whether the values come from the table (text or bytes) rather than from a pending row (typed). */
    final boolean fromTable;
    private final Map<String, Object> tableValues;
    private final Object pendingRow;

    private CurrentRow(RowVersion version, boolean deleted, Map<String, Object> tableValues, Object pendingRow) {
        this.version = version;
        this.deleted = deleted;
        this.fromTable = tableValues != null;
        this.tableValues = tableValues;
        this.pendingRow = pendingRow;
    }

    static CurrentRow fromTable(RowVersion version, boolean deleted, Map<String, Object> values) {
        return new CurrentRow(version, deleted, values, null);
    }

    /** A row this task appended: a Struct or a map, as the row source made it. */
    static CurrentRow pending(RowVersion version, boolean deleted, Object row) {
        return new CurrentRow(version, deleted, null, row);
    }

    /** Whether the row has a value for the column (it may be null). */
    boolean has(String column) {
        if (tableValues != null) {
            return tableValues.containsKey(column);
        }
        if (pendingRow instanceof Struct) {
            return ((Struct) pendingRow).schema().field(column) != null;
        }
        return ((Map<?, ?>) pendingRow).containsKey(column);
    }

    Object get(String column) {
        if (tableValues != null) {
            return tableValues.get(column);
        }
        if (pendingRow instanceof Struct) {
            Struct s = (Struct) pendingRow;
            return s.schema().field(column) == null ? null : io.chsink.connect.mapping.StructValues.get(s, column);
        }
        return ((Map<?, ?>) pendingRow).get(column);
    }

    /** The pending row's field schema for the column, or null (a table row, a map row, or no such field). */
    org.apache.kafka.connect.data.Schema schemaOf(String column) {
        if (pendingRow instanceof Struct) {
            org.apache.kafka.connect.data.Field f = ((Struct) pendingRow).schema().field(column);
            return f == null ? null : f.schema();
        }
        return null;
    }
}
