package io.chsink.connect.cdc;

import io.chsink.connect.schema.TableId;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** Reads the latest row (deleted or not) of each of a set of keys from a target table: one query per batch. */
interface CurrentRowReader {
    /**
     * @param keyColumns the key's columns, in the order of each key's values
     * @param keys keys as {@link RowKey}s
     * @param columns the columns to read, besides version and deleted
     * @return the latest row of each key found (keys not in the table are absent)
     */
    Map<RowKey, CurrentRow> read(TableId table, List<String> keyColumns, Collection<RowKey> keys,
            Collection<String> columns);
}
