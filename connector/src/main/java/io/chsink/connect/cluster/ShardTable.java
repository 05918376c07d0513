package io.chsink.connect.cluster;

import io.chsink.connect.schema.TableId;
import java.util.Map;

/** A Distributed table's local table on one shard, as that shard's {@code system.tables} and {@code system.columns} show it. */
public final class ShardTable {
    private final Shard shard;
    private final TableId table;
    private final String engine;
    private final String engineFull;
    private final String partitionKey;
    private final String sortingKey;
    private final String createQuery;
    private final Map<String, String> columnTypes;
    private final Map<String, Long> defaultWindows;

    public ShardTable(Shard shard, TableId table, String engine, String engineFull, String partitionKey, String sortingKey,
            String createQuery, Map<String, String> columnTypes, Map<String, Long> defaultWindows) {
        this.shard = shard;
        this.table = table;
        this.engine = engine;
        this.engineFull = engineFull;
        this.partitionKey = partitionKey;
        this.sortingKey = sortingKey;
        this.createQuery = createQuery;
        this.columnTypes = columnTypes;
        this.defaultWindows = defaultWindows;
    }

    public Shard shard() {
        return shard;
    }

    public TableId table() {
        return table;
    }

    public String engine() {
        return engine;
    }

    public String engineFull() {
        return engineFull;
    }

    public String partitionKey() {
        return partitionKey;
    }

    public String sortingKey() {
        return sortingKey;
    }

    /** {@code system.tables.create_table_query}: the statement that creates the table as it is. */
    public String createQuery() {
        return createQuery;
    }

    /** Column name to type, in the table's order. */
    public Map<String, String> columnTypes() {
        return columnTypes;
    }

    /** The shard's server default of a MergeTree setting ({@code system.merge_tree_settings}), or 0 when unknown. */
    public long defaultSetting(String name) {
        Long v = defaultWindows.get(name);
        return v == null ? 0 : v;
    }
}
