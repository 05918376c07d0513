package io.chsink.connect.schema;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The columns of one target table, in table order, as read from the server at one moment. */
public final class TableSchema {
    private final TableId table;
    private final List<TableColumn> columns;

    public TableSchema(TableId table, List<TableColumn> columns) {
        this.table = table;
        this.columns = Collections.unmodifiableList(new ArrayList<>(columns));
    }

    public TableId table() {
        return table;
    }

    public List<TableColumn> columns() {
        return columns;
    }
}
