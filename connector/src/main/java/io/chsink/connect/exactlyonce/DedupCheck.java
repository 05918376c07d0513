package io.chsink.connect.exactlyonce;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import io.chsink.connect.cluster.ClusterReader;
import io.chsink.connect.cluster.DistributedTable;
import io.chsink.connect.cluster.ShardTable;
import io.chsink.connect.schema.TableId;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * exactly_once needs every target table to deduplicate inserts by token: a MergeTree-family engine with a
 * deduplication window above 0 ({@code non_replicated_deduplication_window} for MergeTree, default 0;
 * {@code replicated_deduplication_window} for Replicated and Shared MergeTree). The window is read from the
 * table's own SETTINGS ({@code system.tables.engine_full}), else the server's default
 * ({@code system.merge_tree_settings}). {@link #windowWarning} also tells when the window is too small for the
 * blocks a takeover may have to recognise.
 */
public final class DedupCheck {
    private static final Logger LOG = LoggerFactory.getLogger(DedupCheck.class);
    public static final String NON_REPLICATED = "non_replicated_deduplication_window";
    public static final String REPLICATED = "replicated_deduplication_window";
    /** How many of a table's most recently changed active parts the estimate of partitions per insert reads. */
    static final int RECENT_PARTS = 100;

    private DedupCheck() {
    }

    /** A table's engine and deduplication window, as the server has them. */
    private static final class Window {
        final String engine;
        final String setting;
        final long blocks;
        final String partitionKey;

        Window(String engine, String setting, long blocks, String partitionKey) {
            this.engine = engine;
            this.setting = setting;
            this.blocks = blocks;
            this.partitionKey = partitionKey;
        }
    }

    /** Why the table cannot take exactly_once inserts, with the statement that fixes it; null when it can. */
    public static String problem(Client client, TableId table) {
        DistributedTable d = ClusterReader.read(client, table);
        return problem(client, table, d, d == null ? null : ClusterReader.shardTables(client, d).values());
    }

    /**
     * {@link #problem(Client, TableId)} on what the caller read already: {@code d} the table as a Distributed table
     * and {@code shards} its shards' local tables, or both null when it is not one.
     */
    public static String problem(Client client, TableId table, DistributedTable d, Collection<ShardTable> shards) {
        if (d != null) {
            for (ShardTable shard : shards) {
                String problem = problem(d, shard);
                if (problem != null) {
                    return problem;
                }
            }
            return null; // a shard without the local table is reported by ShardChecks
        }
        Window w = window(client, table);
        if (w == null) {
            return null; // a missing table is reported elsewhere
        }
        if (w.setting == null) {
            return "Table " + table.quoted() + " has engine " + w.engine + ", which does not deduplicate inserts: "
                    + "delivery.guarantee=exactly_once needs a MergeTree-family table (MergeTree, ReplicatedMergeTree, "
                    + "SharedMergeTree and their Replacing/Summing/... variants), or use "
                    + "delivery.guarantee=at_least_once.";
        }
        return w.blocks > 0 ? null : message(table, w.engine, w.setting);
    }

    /**
     * Logs (WARN) and returns a warning when the table's deduplication window may be smaller than the block IDs a
     * takeover has to find again; null when it is large enough (or the table cannot be read: {@link #problem}
     * reports that).
     *
     * @param d the table as a Distributed table, or null; {@code shards} its shards' local tables, or null
     * @param blocksInFlight blocks per Kafka partition that may be inserted and not committed at a crash
     * @param partitions Kafka partitions routed to the table (the task's assigned ones)
     */
    public static String windowWarning(Client client, TableId table, DistributedTable d, Collection<ShardTable> shards,
            int blocksInFlight, int partitions) {
        if (d != null) {
            return shardsWindowWarning(d, shards, blocksInFlight, partitions);
        }
        Window w = window(client, table);
        if (w == null || w.setting == null || w.blocks <= 0) {
            return null;
        }
        boolean partitioned = w.partitionKey != null && !w.partitionKey.trim().isEmpty();
        int ids = partitioned ? recentPartitions(client, table) : 1;
        String warning = windowWarning(table, w.setting, w.blocks, blocksInFlight, partitions, ids,
                partitioned ? w.partitionKey.trim() : null);
        if (warning != null) {
            LOG.warn(warning);
        }
        return warning;
    }

    /**
     * The warning for the shard with the smallest window of a Distributed target's local tables (each shard gets a
     * part of every block under a deterministic sharding key, whole blocks otherwise: at most as many IDs as blocks).
     */
    private static String shardsWindowWarning(DistributedTable d, Collection<ShardTable> shards, int blocksInFlight,
            int partitions) {
        String warning = null;
        for (ShardTable shard : shards) {
            String setting = settingFor(shard.engine());
            if (setting == null) {
                continue;
            }
            long window = windowOf(shard, setting);
            boolean partitioned = shard.partitionKey() != null && !shard.partitionKey().trim().isEmpty();
            String w = window <= 0 ? null : windowWarning(shard.table(), setting, window, blocksInFlight, partitions,
                    1, partitioned ? shard.partitionKey().trim() : null);
            if (w != null) {
                warning = d.describe() + ", " + shard.shard().name() + ": " + w;
                LOG.warn(warning);
            }
        }
        return warning;
    }

    /** The block IDs a takeover may have to find in the window: blocks x partitions x IDs per block. */
    static long needed(int blocksInFlight, int partitions, int idsPerBlock) {
        return (long) Math.max(1, blocksInFlight) * Math.max(1, partitions) * Math.max(1, idsPerBlock);
    }

    /**
     * The warning when {@code window} is below {@link #needed}, else null.
     *
     * @param partitionKey the table's partition key (its insert blocks get one ID per partition-key value they touch,
     *     {@code idsPerBlock} is then an estimate), or null when the table is not partitioned
     */
    static String windowWarning(TableId table, String setting, long window, int blocksInFlight, int partitions,
            int idsPerBlock, String partitionKey) {
        long needed = needed(blocksInFlight, partitions, idsPerBlock);
        if (window >= needed) {
            return null;
        }
        long suggested = Math.max(1000, 10 * needed);
        return "Table " + table.quoted() + " keeps the deduplication IDs of its last " + window + " inserted blocks ("
                + setting + " = " + window + "), but after a crash or rebalance exactly_once may have to find up to "
                + needed + " again: " + Math.max(1, blocksInFlight) + " blocks in flight per partition x "
                + Math.max(1, partitions) + " Kafka partitions routed to it by this task x " + Math.max(1, idsPerBlock)
                + (partitionKey == null ? " ID per block"
                        : " IDs per block (an estimate: each insert gets one ID per value of PARTITION BY "
                                + partitionKey + " it touches; counted over the table's " + RECENT_PARTS
                                + " most recent active parts)")
                + ". A rebuilt block whose ID has left the window is inserted a second time. Inserts by other "
                + "writers of the table, and by other tasks of this connector, use the window too. Run: ALTER TABLE "
                + table.quoted() + " MODIFY SETTING " + setting + " = " + suggested + ".";
    }

    /** Distinct partitions among the table's most recently changed active parts, at least 1. */
    private static int recentPartitions(Client client, TableId table) {
        List<GenericRecord> rows = client.queryAll("SELECT uniqExact(partition_id) AS n FROM (SELECT partition_id "
                + "FROM system.parts WHERE database = {db:String} AND table = {tbl:String} AND active "
                + "ORDER BY modification_time DESC LIMIT " + RECENT_PARTS + ")", params(table));
        return rows.isEmpty() ? 1 : (int) Math.max(1, rows.get(0).getLong("n"));
    }

    /** Query parameters {db:String} and {tbl:String} naming the table. */
    static Map<String, Object> params(TableId table) {
        Map<String, Object> p = new HashMap<>();
        p.put("db", table.database());
        p.put("tbl", table.table());
        return p;
    }

    private static Window window(Client client, TableId table) {
        List<GenericRecord> rows = client.queryAll("SELECT engine, engine_full, partition_key FROM system.tables "
                + "WHERE database = {db:String} AND name = {tbl:String}", params(table));
        if (rows.isEmpty()) {
            return null;
        }
        String engine = rows.get(0).getString("engine");
        String setting = settingFor(engine);
        String partitionKey = rows.get(0).getString("partition_key");
        if (setting == null) {
            return new Window(engine, null, 0, partitionKey);
        }
        long window = windowOf(rows.get(0).getString("engine_full"), setting);
        if (window < 0) {
            Map<String, Object> q = new HashMap<>();
            q.put("name", setting);
            List<GenericRecord> d = client.queryAll(
                    "SELECT value FROM system.merge_tree_settings WHERE name = {name:String}", q);
            window = d.isEmpty() ? 0 : Long.parseLong(d.get(0).getString("value").trim());
        }
        return new Window(engine, setting, window, partitionKey);
    }

    /** Why the shard's local table of a Distributed target cannot take exactly_once inserts; null when it can. */
    static String problem(DistributedTable d, ShardTable shard) {
        String setting = settingFor(shard.engine());
        String prefix = d.describe() + ": on " + shard.shard().name() + " the local table " + shard.table().quoted();
        if (setting == null) {
            return prefix + " has engine " + shard.engine() + ", which does not deduplicate inserts: "
                    + "delivery.guarantee=exactly_once needs a MergeTree-family local table on every shard, or use "
                    + "delivery.guarantee=at_least_once.";
        }
        long window = windowOf(shard, setting);
        return window > 0 ? null : prefix + " (" + shard.engine() + ") keeps no insert deduplication tokens ("
                + setting + " = 0), so delivery.guarantee=exactly_once could insert a replayed block twice there. Run "
                + "on that shard: ALTER TABLE " + shard.table().quoted() + " MODIFY SETTING " + setting + " = 1000 "
                + "(or use delivery.guarantee=at_least_once).";
    }

    /** The shard's window: its local table's own SETTINGS, else that shard's server default. */
    private static long windowOf(ShardTable shard, String setting) {
        long own = windowOf(shard.engineFull(), setting);
        return own >= 0 ? own : shard.defaultSetting(setting);
    }

    /** The window setting that governs deduplication for the engine, or null when the engine has none. */
    static String settingFor(String engine) {
        if (engine == null || !engine.endsWith("MergeTree")) {
            return null;
        }
        return engine.startsWith("Replicated") || engine.startsWith("Shared") ? REPLICATED : NON_REPLICATED;
    }

    /** The setting's value in the table's own SETTINGS clause, or -1 when the table does not set it. */
    static long windowOf(String engineFull, String setting) {
        if (engineFull == null) {
            return -1;
        }
        Matcher m = Pattern.compile("(?<![A-Za-z_])" + setting + "\\s*=\\s*(\\d+)").matcher(engineFull);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    static String message(TableId table, String engine, String setting) {
        return "Table " + table.quoted() + " (" + engine + ") keeps no insert deduplication tokens (" + setting
                + " = 0), so delivery.guarantee=exactly_once could insert a replayed block twice. Run: ALTER TABLE "
                + table.quoted() + " MODIFY SETTING " + setting + " = 1000 (or use delivery.guarantee=at_least_once).";
    }
}
