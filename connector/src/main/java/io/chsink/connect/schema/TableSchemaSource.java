package io.chsink.connect.schema;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/** Where a table's columns come from ({@link TableSchemaLoader}: ClickHouse's {@code system.columns}). */
public interface TableSchemaSource {
    /** The table's schema, or null when the table does not exist; throws when it cannot be read now. */
    TableSchema load(TableId table);

    /**
     * The schemas of several tables, each table a key (null: it does not exist); throws when they cannot be read
     * now. One read for all where the source can (a task of many tables starts with one query, not one per table).
     */
    default Map<TableId, TableSchema> loadAll(Collection<TableId> tables) {
        Map<TableId, TableSchema> out = new LinkedHashMap<>();
        for (TableId t : tables) {
            out.put(t, load(t));
        }
        return out;
    }
}
