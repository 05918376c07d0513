package io.chsink.connect.cdc;

import io.chsink.connect.schema.TableId;

/** A row's key in one table: the key of the task-wide maps of rows (recent rows, recent deletes), hashed once. */
final class TableKey {
    final TableId table;
    final RowKey key;
    private final int hash;

    TableKey(TableId table, RowKey key) {
        this.table = table;
        this.key = key;
        this.hash = table.hashCode() * 31 + key.hashCode();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TableKey)) {
            return false;
        }
        TableKey s = (TableKey) o;
        return hash == s.hash && key.equals(s.key) && table.equals(s.table);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
