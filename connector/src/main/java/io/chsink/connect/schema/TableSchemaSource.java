package io.chsink.connect.schema;

/** Where a table's columns come from ({@link TableSchemaLoader}: ClickHouse's {@code system.columns}). */
public interface TableSchemaSource {
    /** The table's schema, or null when the table does not exist; throws when it cannot be read now. */
    TableSchema load(TableId table);
}
