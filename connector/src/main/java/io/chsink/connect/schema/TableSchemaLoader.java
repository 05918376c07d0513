package io.chsink.connect.schema;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Reads a table's columns from {@code system.columns} (query parameters, never string-built SQL). */
public final class TableSchemaLoader implements TableSchemaSource {
    private static final String COLUMNS_SQL = "SELECT name, type, default_kind FROM system.columns "
            + "WHERE database = {db:String} AND table = {tbl:String} ORDER BY position";

    private final Client client;

    public TableSchemaLoader(Client client) {
        this.client = client;
    }

    @Override
    public TableSchema load(TableId table) {
        Map<String, Object> params = new HashMap<>();
        params.put("db", table.database());
        params.put("tbl", table.table());
        List<GenericRecord> rows = client.queryAll(COLUMNS_SQL, params);
        if (rows.isEmpty()) {
            return null;
        }
        List<TableColumn> columns = new ArrayList<>(rows.size());
        for (GenericRecord r : rows) {
            columns.add(new TableColumn(r.getString("name"), ClickHouseType.parse(r.getString("type")),
                    TableColumn.DefaultKind.of(r.getString("default_kind"))));
        }
        return new TableSchema(table, columns);
    }
}
