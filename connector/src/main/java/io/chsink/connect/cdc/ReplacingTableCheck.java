package io.chsink.connect.cdc;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.cluster.ClusterReader;
import io.chsink.connect.cluster.DistributedTable;
import io.chsink.connect.cluster.Routing;
import io.chsink.connect.cluster.ShardTable;
import io.chsink.connect.cluster.ShardingKey;
import io.chsink.connect.schema.TableId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;

/**
 * cdc.mode=debezium writes every change as a row and lets the table keep the latest version of each key: the
 * target must be a ReplacingMergeTree (or its Replicated/Shared form) with {@code (version, is_deleted)} as engine
 * parameters, the connector's version and deleted columns. Anything else would keep every change (MergeTree), keep
 * an arbitrary one (no version) or never drop deleted rows (no is_deleted).
 */
public final class ReplacingTableCheck {
    private ReplacingTableCheck() {
    }

    /** {@link #problem(Client, TableId, String, String, int)} for 64-bit versions. */
    public static String problem(Client client, TableId table, String versionColumn, String deletedColumn) {
        return problem(client, table, versionColumn, deletedColumn, 64);
    }

    /**
     * Why the table cannot take change rows with versions of {@code versionBits} (cdc.version.bits), with the
     * statement that fixes it; null when it can (or is missing).
     */
    public static String problem(Client client, TableId table, String versionColumn, String deletedColumn,
            int versionBits) {
        DistributedTable d = ClusterReader.read(client, table);
        if (d != null) {
            return distributedProblem(d, ClusterReader.shardTables(client, d), versionColumn, deletedColumn,
                    versionBits);
        }
        Map<String, Object> p = new HashMap<>();
        p.put("db", table.database());
        p.put("tbl", table.table());
        List<GenericRecord> rows = client.queryAll("SELECT engine, engine_full, sorting_key, primary_key "
                + "FROM system.tables WHERE database = {db:String} AND name = {tbl:String}", p);
        if (rows.isEmpty()) {
            return null; // a missing table is reported elsewhere
        }
        Map<String, String> types = new HashMap<>();
        Map<String, String> keyed = new java.util.LinkedHashMap<>();
        for (GenericRecord c : client.queryAll("SELECT name, type, default_kind, is_in_sorting_key OR "
                + "is_in_partition_key AS keyed FROM system.columns WHERE database = {db:String} AND table = "
                + "{tbl:String} ORDER BY position", p)) {
            types.put(c.getString("name"), c.getString("type"));
            String k = c.getString("keyed");
            if ("1".equals(k) || "true".equals(k)) {
                keyed.put(c.getString("name"), c.getString("default_kind"));
            }
        }
        GenericRecord t = rows.get(0);
        String key = t.getString("sorting_key");
        if (key == null || key.trim().isEmpty()) {
            key = t.getString("primary_key");
        }
        String problem = problem(table, t.getString("engine"), t.getString("engine_full"), key, types, versionColumn,
                deletedColumn, versionBits);
        return problem != null ? problem : keyProblem(table, keyed, versionColumn, deletedColumn);
    }

    /**
     * A Distributed target: every shard's local table must be such a ReplacingMergeTree, and the sharding key must
     * send all versions of a row, and its delete, to one shard: deterministic, and reading only sorting-key columns
     * (which never change for a row). Else a row's older version stays alive on another shard, FINAL or not.
     */
    static String distributedProblem(DistributedTable d, Map<Integer, ShardTable> shards, String versionColumn,
            String deletedColumn, int versionBits) {
        if (d.shards().size() > 1 && d.routing() == Routing.WHOLE_BLOCKS) {
            return d.describe() + " cannot take cdc.mode=debezium rows: " + d.wholeBlocksReason() + ", so the "
                    + "versions and the delete of one row could land on different shards, where no merge and no "
                    + "FINAL meet them. Shard it by the source table's primary key: CREATE TABLE ... ENGINE = "
                    + "Distributed('" + d.cluster() + "', ..., cityHash64(<primary key columns>)).";
        }
        for (ShardTable shard : shards.values()) {
            String key = shard.sortingKey();
            String problem = problem(shard.table(), shard.engine(), shard.engineFull(), key, shard.columnTypes(),
                    versionColumn, deletedColumn, versionBits);
            if (problem != null) {
                return d.describe() + ", " + shard.shard().name() + ": " + problem;
            }
            if (d.shardingKey() != null && d.shards().size() > 1) {
                Set<String> moving = new LinkedHashSet<>(ShardingKey.names(d.shardingKey(), false));
                moving.removeAll(ShardingKey.names(key == null ? "" : key, false));
                if (!moving.isEmpty()) {
                    return d.describe() + " cannot take cdc.mode=debezium rows: its sharding key "
                            + d.shardingKey() + " reads " + String.join(", ", moving) + ", outside the local "
                            + "table's sorting key (" + key + "), so a row whose " + String.join(", ", moving)
                            + " changes moves to another shard and its older version stays alive there. Shard it "
                            + "by sorting-key columns only, e.g. cityHash64(<primary key columns>).";
                }
            }
        }
        return null;
    }

    /**
     * A delete row must land under the sorting key and in the partition of the row it deletes: it carries the
     * record key and the columns those keys read, taken from the row's current value. A key over the version or
     * deleted column, or over a column no record fills (MATERIALIZED, ALIAS, EPHEMERAL), differs between a row and
     * its delete, so the row would stay alive.
     *
     * @param keyed the columns the sorting or partition key reads, with their default_kind
     */
    static String keyProblem(TableId table, Map<String, String> keyed, String versionColumn, String deletedColumn) {
        List<String> bad = new ArrayList<>();
        for (Map.Entry<String, String> e : keyed.entrySet()) {
            String kind = e.getValue() == null ? "" : e.getValue();
            if (e.getKey().equals(versionColumn) || e.getKey().equals(deletedColumn)) {
                bad.add(TableId.quote(e.getKey()) + " (the connector's " + (e.getKey().equals(versionColumn)
                        ? "version" : "deleted") + " column)");
            } else if (kind.equals("MATERIALIZED") || kind.equals("ALIAS") || kind.equals("EPHEMERAL")) {
                bad.add(TableId.quote(e.getKey()) + " (" + kind + ", so no record fills it)");
            }
        }
        if (bad.isEmpty()) {
            return null;
        }
        return "Table " + table.quoted() + " cannot take cdc.mode=debezium rows: its sorting or partition key reads "
                + String.join(", ", bad) + ", whose value differs between a row and its delete, so deleted rows "
                + "would stay alive. Create it anew with ORDER BY the source table's primary key (columns that "
                + "never change for a row, such as a tenant, may come first) and PARTITION BY only columns the "
                + "records carry and that never change for a row (e.g. toYYYYMM(created)), and copy the rows: "
                + "CREATE TABLE " + TableId.quote(table.database()) + "." + TableId.quote(table.table() + "_cdc")
                + " ... ; INSERT INTO ... SELECT ... ; EXCHANGE TABLES " + table.quoted() + " AND "
                + TableId.quote(table.database()) + "." + TableId.quote(table.table() + "_cdc");
    }

    static String problem(TableId table, String engine, String engineFull, String sortingKey,
            Map<String, String> columnTypes, String versionColumn, String deletedColumn) {
        return problem(table, engine, engineFull, sortingKey, columnTypes, versionColumn, deletedColumn, 64);
    }

    /** The decision, on what system.tables and system.columns say about the table. */
    static String problem(TableId table, String engine, String engineFull, String sortingKey,
            Map<String, String> columnTypes, String versionColumn, String deletedColumn, int versionBits) {
        String versionType = versionBits == 128 ? "UInt128" : "UInt64";
        String v = TableId.quote(versionColumn);
        String d = TableId.quote(deletedColumn);
        List<String> addColumns = new ArrayList<>();
        if (!columnTypes.containsKey(versionColumn)) {
            addColumns.add("ADD COLUMN " + v + " " + versionType);
        }
        if (!columnTypes.containsKey(deletedColumn)) {
            addColumns.add("ADD COLUMN " + d + " UInt8");
        }
        String alter = addColumns.isEmpty() ? "" : "ALTER TABLE " + table.quoted() + " " + String.join(", ", addColumns)
                + "; ";
        boolean replacing = engine != null && engine.endsWith("ReplacingMergeTree");
        List<String> params = replacing ? columnParameters(engineFull) : List.of();
        boolean rightParams = params.size() == 2 && params.get(0).equals(versionColumn)
                && params.get(1).equals(deletedColumn);
        if (!replacing || !rightParams) {
            String order = sortingKey == null || sortingKey.trim().isEmpty() ? "(<the source table's primary key>)"
                    : "(" + sortingKey.trim() + ")";
            String copy = TableId.quote(table.table() + "_cdc");
            String copyId = TableId.quote(table.database()) + "." + copy;
            String engineClause = engine != null && engine.startsWith("Replicated")
                    ? "ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}', " + v
                            + ", " + d + ")"
                    : "ReplacingMergeTree(" + v + ", " + d + ")";
            return "Table " + table.quoted() + " has engine " + (engineFull == null ? engine : shortEngine(engineFull))
                    + ", but cdc.mode=debezium needs ENGINE = " + engineClause + " ORDER BY the source table's "
                    + "primary key, so that the latest change of each key wins (" + versionColumn + ", filled by the "
                    + "connector from the change's position in the source's log) and deleted keys disappear ("
                    + deletedColumn + " = 1 for deletes; read the table with SELECT ... FINAL). The engine of a "
                    + "table cannot be altered; run: " + alter + "CREATE TABLE " + copyId + " AS " + table.quoted()
                    + " ENGINE = " + engineClause + " ORDER BY " + order + "; EXCHANGE TABLES " + table.quoted()
                    + " AND " + copyId + " (the old rows are then in " + copyId + "), or set "
                    + "cdc.version.column / cdc.deleted.column to the engine's own columns, or use cdc.mode=none. The "
                    + "ORDER BY must contain every column of the source table's primary key (columns before them "
                    + "must never change for a row).";
        }
        String problem = null;
        String vt = columnTypes.get(versionColumn);
        if (vt != null && !vt.matches(versionBits == 128 ? "UInt(128|256)" : "UInt(64|128|256)")) {
            problem = "its version column " + v + " is " + vt + "; the connector writes " + versionBits
                    + "-bit versions (" + SinkConfig.CDC_VERSION_BITS + "=" + versionBits + "): ALTER TABLE "
                    + table.quoted() + " MODIFY COLUMN " + v + " " + versionType
                    + (versionBits == 128 ? "" : " (or " + SinkConfig.CDC_VERSION_BITS + "=128 with UInt128)");
        }
        String dt = columnTypes.get(deletedColumn);
        if (dt != null && !dt.equals("UInt8")) {
            problem = (problem == null ? "" : problem + "; ") + "its deleted column " + d + " is " + dt
                    + "; ClickHouse's is_deleted column is UInt8: ALTER TABLE " + table.quoted() + " MODIFY COLUMN "
                    + d + " UInt8";
        }
        return problem == null ? null : "Table " + table.quoted() + " cannot take cdc.mode=debezium rows: " + problem;
    }

    /**
     * The column parameters of a ReplacingMergeTree's engine clause, unquoted: {@code ReplacingMergeTree(v, d)} gives
     * [v, d]; the Replicated and Shared forms' leading path and replica strings are left out.
     */
    public static List<String> columnParameters(String engineFull) {
        List<String> out = new ArrayList<>();
        if (engineFull == null) {
            return out;
        }
        int open = engineFull.indexOf('(');
        if (open < 0) {
            return out;
        }
        int depth = 0;
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        for (int i = open + 1; i < engineFull.length(); i++) {
            char c = engineFull.charAt(i);
            if (quote != 0) {
                if (c == '\\' && i + 1 < engineFull.length()) {
                    cur.append(c).append(engineFull.charAt(++i));
                    continue;
                }
                if (c == quote) {
                    quote = 0;
                }
                cur.append(c);
                continue;
            }
            if (c == '\'' || c == '`' || c == '"') {
                quote = c;
                cur.append(c);
            } else if (c == '(') {
                depth++;
                cur.append(c);
            } else if (c == ')' && depth > 0) {
                depth--;
                cur.append(c);
            } else if (c == ')' || c == ',' && depth == 0) {
                String arg = cur.toString().trim();
                if (!arg.isEmpty() && !arg.startsWith("'")) {
                    out.add(unquote(arg));
                }
                cur.setLength(0);
                if (c == ')') {
                    break;
                }
            } else {
                cur.append(c);
            }
        }
        return out;
    }

    private static String unquote(String s) {
        if (s.length() >= 2 && (s.charAt(0) == '`' || s.charAt(0) == '"') && s.charAt(s.length() - 1) == s.charAt(0)) {
            String inner = s.substring(1, s.length() - 1);
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < inner.length(); i++) {
                char c = inner.charAt(i);
                if (c == '\\' && i + 1 < inner.length()) {
                    c = inner.charAt(++i);
                }
                b.append(c);
            }
            return b.toString();
        }
        return s;
    }

    /** The engine clause up to ORDER BY/PARTITION BY/SETTINGS, for messages. */
    private static String shortEngine(String engineFull) {
        String s = engineFull;
        for (String stop : new String[] {" PARTITION BY ", " PRIMARY KEY ", " ORDER BY ", " SETTINGS ", " TTL "}) {
            int i = s.indexOf(stop);
            if (i > 0) {
                s = s.substring(0, i);
            }
        }
        return s.trim();
    }

    /** {@link #require(Client, TableId, String, String, int)} for 64-bit versions. */
    public static void require(Client client, TableId table, String versionColumn, String deletedColumn) {
        require(client, table, versionColumn, deletedColumn, 64);
    }

    /** Task side: throws when the table cannot take change rows, RetriableException when it cannot be read now. */
    public static void require(Client client, TableId table, String versionColumn, String deletedColumn,
            int versionBits) {
        String problem;
        try {
            problem = problem(client, table, versionColumn, deletedColumn, versionBits);
        } catch (RuntimeException e) {
            throw new RetriableException("Could not read the engine of " + table + ": " + e.getMessage(), e);
        }
        if (problem != null) {
            throw new ConnectException(problem);
        }
    }
}
