package io.chsink.connect.cdc;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The columns of a cdc.mode=debezium target as the change rows need them: each column's type, and which columns
 * the sorting key and the partition key are computed from. A delete row must carry those (else it lands under
 * another sorting key or in another partition than the row it deletes, and the row stays alive).
 */
final class TableLayout {
    /** Column name to ClickHouse type, in table order. */
    final Map<String, String> types;
    /** Columns the sorting key or the partition key reads, in table order. */
    final List<String> keyed;
    /** Columns the sorting key reads. */
    final List<String> sorting;

    TableLayout(Map<String, String> types, List<String> keyed, List<String> sorting) {
        this.types = Collections.unmodifiableMap(new LinkedHashMap<>(types));
        this.keyed = Collections.unmodifiableList(new ArrayList<>(keyed));
        this.sorting = Collections.unmodifiableList(new ArrayList<>(sorting));
    }

    /** Reads the layout from system.columns; null when the table has no columns (it does not exist). */
    static TableLayout load(com.clickhouse.client.api.Client client, io.chsink.connect.schema.TableId table) {
        Map<String, Object> p = new java.util.HashMap<>();
        p.put("db", table.database());
        p.put("tbl", table.table());
        Map<String, String> types = new LinkedHashMap<>();
        List<String> keyed = new ArrayList<>();
        List<String> sorting = new ArrayList<>();
        for (com.clickhouse.client.api.query.GenericRecord r : client.queryAll("SELECT name, type, "
                + "is_in_sorting_key, is_in_partition_key FROM system.columns WHERE database = {db:String} AND "
                + "table = {tbl:String} ORDER BY position", p)) {
            String name = r.getString("name");
            types.put(name, r.getString("type"));
            boolean inSorting = !"0".equals(r.getString("is_in_sorting_key"))
                    && !"false".equals(r.getString("is_in_sorting_key"));
            boolean inPartition = !"0".equals(r.getString("is_in_partition_key"))
                    && !"false".equals(r.getString("is_in_partition_key"));
            if (inSorting) {
                sorting.add(name);
            }
            if (inSorting || inPartition) {
                keyed.add(name);
            }
        }
        return types.isEmpty() ? null : new TableLayout(types, keyed, sorting);
    }

    /** The columns of the sorting and partition keys that are not fields of the record key. */
    List<String> keyedBeyond(List<String> keyFields) {
        List<String> out = new ArrayList<>();
        for (String c : keyed) {
            if (!keyFields.contains(c)) {
                out.add(c);
            }
        }
        return out;
    }
}
