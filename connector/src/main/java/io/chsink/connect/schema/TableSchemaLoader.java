package io.chsink.connect.schema;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads tables' columns from {@code system.columns} (query parameters, never string-built SQL). */
public final class TableSchemaLoader implements TableSchemaSource {
    private static final String COLUMNS_SQL = "SELECT name, type, default_kind FROM system.columns "
            + "WHERE database = {db:String} AND table = {tbl:String} ORDER BY position";
    /** The columns of many tables of one database: their names travel as one parameter ({@link HexNames}). */
    private static final String TABLES_COLUMNS_SQL = "SELECT table, name, type, default_kind FROM system.columns "
            + "WHERE database = {db:String} AND has(" + HexNames.sql("tbls") + ", table) "
            + "ORDER BY table, position";

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
            columns.add(column(r));
        }
        return new TableSchema(table, columns);
    }

    /** One query per database of {@code tables}. */
    @Override
    public Map<TableId, TableSchema> loadAll(Collection<TableId> tables) {
        Map<String, List<TableId>> byDatabase = new LinkedHashMap<>();
        for (TableId t : tables) {
            byDatabase.computeIfAbsent(t.database(), d -> new ArrayList<>()).add(t);
        }
        Map<TableId, TableSchema> out = new LinkedHashMap<>();
        for (Map.Entry<String, List<TableId>> db : byDatabase.entrySet()) {
            List<String> names = new ArrayList<>();
            db.getValue().forEach(t -> names.add(t.table()));
            Map<String, Object> params = new HashMap<>();
            params.put("db", db.getKey());
            params.put("tbls", HexNames.of(names));
            Map<String, List<TableColumn>> columns = new HashMap<>();
            for (GenericRecord r : client.queryAll(TABLES_COLUMNS_SQL, params)) {
                columns.computeIfAbsent(r.getString("table"), k -> new ArrayList<>()).add(column(r));
            }
            for (TableId t : db.getValue()) {
                List<TableColumn> c = columns.get(t.table());
                out.put(t, c == null ? null : new TableSchema(t, c));
            }
        }
        return out;
    }

    private static TableColumn column(GenericRecord r) {
        return new TableColumn(r.getString("name"), ClickHouseType.parse(r.getString("type")),
                TableColumn.DefaultKind.of(r.getString("default_kind")));
    }
}
