package io.chsink.connect.cluster;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import io.chsink.connect.schema.HexNames;
import io.chsink.connect.schema.TableId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads what the connector needs to know of a Distributed target from the server it talks to (the initiator):
 * {@code system.tables} (engine clause), {@code system.clusters} (shards and weights), {@code system.columns}
 * (the defaults the sharding key may read), {@code system.functions} (which functions are deterministic), and, over
 * {@code cluster('<cluster>', system.*)}, every shard's local table. Query parameters only, never built SQL.
 */
public final class ClusterReader {
    private static final String TABLE_SQL = "SELECT engine, engine_full FROM system.tables "
            + "WHERE database = {db:String} AND name = {tbl:String}";
    private static final String DISTRIBUTED_AMONG_SQL = "SELECT name FROM system.tables WHERE database = {db:String} "
            + "AND engine = 'Distributed' AND has(" + HexNames.sql("tbls") + ", name)";
    private static final String SHARDS_SQL = "SELECT shard_num, shard_weight, host_name, port, default_database "
            + "FROM system.clusters WHERE cluster = {c:String} AND replica_num = 1 ORDER BY shard_num";
    private static final String DEFAULTS_SQL = "SELECT name, default_expression FROM system.columns "
            + "WHERE database = {db:String} AND table = {tbl:String} AND default_kind IN ('DEFAULT', 'MATERIALIZED')";
    private static final String COLUMNS_SQL = "SELECT name, type FROM system.columns "
            + "WHERE database = {db:String} AND table = {tbl:String} ORDER BY position";
    private static final String HAS_DETERMINISTIC_SQL = "SELECT count() AS n FROM system.columns "
            + "WHERE database = 'system' AND table = 'functions' AND name = 'deterministic'";
    private static final String FUNCTIONS_SQL = "SELECT name, deterministic FROM system.functions "
            + "WHERE has(" + HexNames.sql("names") + ", name)";
    private static final String FOREGROUND_SQL = "SELECT name FROM system.settings "
            + "WHERE name IN ('distributed_foreground_insert', 'insert_distributed_sync')";
    private static final String SHARD_TABLES_SQL = "SELECT shardNum() AS shard, database, engine, engine_full, "
            + "partition_key, sorting_key, create_table_query FROM cluster({c:String}, system.tables) WHERE name = {tbl:String}";
    private static final String SHARD_COLUMNS_SQL = "SELECT shardNum() AS shard, database, name, type "
            + "FROM cluster({c:String}, system.columns) WHERE table = {tbl:String} ORDER BY shard, position";
    private static final String SHARD_SETTINGS_SQL = "SELECT shardNum() AS shard, name, value "
            + "FROM cluster({c:String}, system.merge_tree_settings) WHERE name IN "
            + "('non_replicated_deduplication_window', 'replicated_deduplication_window')";
    /** Servers without system.functions.deterministic: the functions known to give other values each call. */
    private static final Pattern NONDETERMINISTIC = Pattern.compile("(?i)rand.*|generate.*|now.*|today|yesterday"
            + "|rownumber.*|blocknumber|blocksize|hostname|fqdn|shardnum|shardcount|uptime|serveruuid|.*queryid"
            + "|runningdifference.*|runningaccumulate|neighbor|sleep.*|dictget.*|joinget.*|getsetting|filesystem.*");

    private ClusterReader() {
    }

    /** The target as a Distributed table, or null when it is not one (or does not exist). */
    public static DistributedTable read(Client client, TableId table) {
        List<GenericRecord> t = client.queryAll(TABLE_SQL, params(table));
        if (t.isEmpty() || !"Distributed".equals(t.get(0).getString("engine"))) {
            return null;
        }
        DistributedEngine engine = DistributedEngine.parse(t.get(0).getString("engine_full"));
        Map<String, Object> c = new HashMap<>();
        c.put("c", engine.cluster());
        List<Shard> shards = new ArrayList<>();
        for (GenericRecord r : client.queryAll(SHARDS_SQL, c)) {
            shards.add(new Shard((int) r.getLong("shard_num"), r.getLong("shard_weight"), r.getString("host_name"),
                    (int) r.getLong("port"), r.getString("default_database")));
        }
        if (shards.isEmpty()) {
            throw new IllegalStateException("Table " + table.quoted() + " is Distributed over cluster '"
                    + engine.cluster() + "', which this server's remote_servers does not define (system.clusters "
                    + "has no shard of it)");
        }
        Set<String> bad = engine.shardingKey() == null ? Set.of() : nondeterministic(client, table, engine.shardingKey());
        String foreground = "distributed_foreground_insert";
        List<String> names = new ArrayList<>();
        client.queryAll(FOREGROUND_SQL).forEach(r -> names.add(r.getString("name")));
        if (!names.contains(foreground) && names.contains("insert_distributed_sync")) {
            foreground = "insert_distributed_sync";
        }
        return new DistributedTable(table, engine, shards, bad, foreground);
    }

    /** Which of {@code tables} are Distributed tables: one query per database. */
    public static Set<TableId> distributedAmong(Client client, Collection<TableId> tables) {
        Map<String, List<String>> byDatabase = new LinkedHashMap<>();
        tables.forEach(t -> byDatabase.computeIfAbsent(t.database(), d -> new ArrayList<>()).add(t.table()));
        Set<TableId> out = new HashSet<>();
        for (Map.Entry<String, List<String>> db : byDatabase.entrySet()) {
            Map<String, Object> p = new HashMap<>();
            p.put("db", db.getKey());
            p.put("tbls", HexNames.of(db.getValue()));
            for (GenericRecord r : client.queryAll(DISTRIBUTED_AMONG_SQL, p)) {
                out.add(new TableId(db.getKey(), r.getString("name")));
            }
        }
        return out;
    }

    /** Every shard's local table, by shard number; a shard that lacks it is absent. */
    public static Map<Integer, ShardTable> shardTables(Client client, DistributedTable d) {
        Map<Integer, Shard> byNumber = new LinkedHashMap<>();
        d.shards().forEach(s -> byNumber.put(s.number(), s));
        Map<String, Object> p = new HashMap<>();
        p.put("c", d.cluster());
        p.put("tbl", d.localTable(d.shards().get(0)).table());
        Map<Integer, Map<String, String>> columns = new HashMap<>();
        for (GenericRecord r : client.queryAll(SHARD_COLUMNS_SQL, p)) {
            Shard s = byNumber.get((int) r.getLong("shard"));
            if (s != null && d.localTable(s).database().equals(r.getString("database"))) {
                columns.computeIfAbsent(s.number(), k -> new LinkedHashMap<>())
                        .put(r.getString("name"), r.getString("type"));
            }
        }
        Map<String, Object> c = new HashMap<>();
        c.put("c", d.cluster());
        Map<Integer, Map<String, Long>> settings = new HashMap<>();
        for (GenericRecord r : client.queryAll(SHARD_SETTINGS_SQL, c)) {
            settings.computeIfAbsent((int) r.getLong("shard"), k -> new HashMap<>())
                    .put(r.getString("name"), parseLong(r.getString("value")));
        }
        Map<Integer, ShardTable> out = new LinkedHashMap<>();
        for (GenericRecord r : client.queryAll(SHARD_TABLES_SQL, p)) {
            Shard s = byNumber.get((int) r.getLong("shard"));
            if (s == null || !d.localTable(s).database().equals(r.getString("database"))) {
                continue;
            }
            out.put(s.number(), new ShardTable(s, d.localTable(s), r.getString("engine"), r.getString("engine_full"),
                    r.getString("partition_key"), r.getString("sorting_key"), r.getString("create_table_query"),
                    columns.getOrDefault(s.number(), Map.of()), settings.getOrDefault(s.number(), Map.of())));
        }
        return out;
    }

    /**
     * Reads every shard's local table and the Distributed table's columns, and checks them ({@link ShardChecks}): null
     * when every shard can take the Distributed table's inserts, else the problem naming the shard.
     */
    public static String shardProblem(Client client, DistributedTable d) {
        return shardProblem(client, d, shardTables(client, d));
    }

    /** {@link #shardProblem(Client, DistributedTable)} on the shards' local tables the caller read already. */
    public static String shardProblem(Client client, DistributedTable d, Map<Integer, ShardTable> shards) {
        return ShardChecks.problem(d, shards, columns(client, d.table()));
    }

    /** The Distributed table's own columns, name to type, in order. */
    public static Map<String, String> columns(Client client, TableId table) {
        Map<String, String> out = new LinkedHashMap<>();
        for (GenericRecord r : client.queryAll(COLUMNS_SQL, params(table))) {
            out.put(r.getString("name"), r.getString("type"));
        }
        return out;
    }

    private static Set<String> nondeterministic(Client client, TableId table, String key) {
        Map<String, String> defaults = new HashMap<>();
        for (GenericRecord r : client.queryAll(DEFAULTS_SQL, params(table))) {
            defaults.put(r.getString("name"), r.getString("default_expression"));
        }
        List<String> functions = new ArrayList<>(ShardingKey.names(key, true));
        defaults.values().forEach(e -> functions.addAll(ShardingKey.names(e, true)));
        Map<String, Boolean> known = new HashMap<>();
        if (client.queryAll(HAS_DETERMINISTIC_SQL).get(0).getLong("n") > 0) {
            List<String> lookup = new ArrayList<>();
            functions.forEach(f -> {
                lookup.add(f);
                lookup.add(f.toLowerCase(Locale.ROOT)); // case-insensitive functions are listed in one case
            });
            Map<String, Object> p = new HashMap<>();
            p.put("names", HexNames.of(lookup));
            for (GenericRecord r : client.queryAll(FUNCTIONS_SQL, p)) {
                Object v = r.getObject("deterministic");
                known.put(r.getString("name").toLowerCase(Locale.ROOT), v == null ? null : ((Number) v).intValue() == 1);
            }
        } else {
            functions.forEach(f -> known.put(f.toLowerCase(Locale.ROOT), !NONDETERMINISTIC.matcher(f).matches()));
        }
        return ShardingKey.nondeterministicFunctions(key, defaults, f -> known.get(f.toLowerCase(Locale.ROOT)));
    }

    private static long parseLong(String v) {
        try {
            return Long.parseLong(v.trim());
        } catch (RuntimeException e) {
            return 0;
        }
    }

    private static Map<String, Object> params(TableId table) {
        Map<String, Object> p = new HashMap<>();
        p.put("db", table.database());
        p.put("tbl", table.table());
        return p;
    }
}
