package io.chsink.connect.exactlyonce;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import io.chsink.connect.block.BlockManifest;
import io.chsink.connect.cluster.ShardTable;
import io.chsink.connect.schema.TableId;
import java.util.Collection;
import java.util.List;

/**
 * Whether a rebuild that lacks some of its recorded rows (records deleted by retention or compaction before they
 * were redelivered, or now dead-lettered) can be sent with its recorded token into a table.
 *
 * <p>ClickHouse gives each partition part of an insert a block ID. With the unified deduplication hash (server
 * setting {@code insert_deduplication_version = new_unified_hash}, from 26.2, the default on 26.7) the ID is
 * {@code <partition_id>_<hash of the token and the source block number>}: a one-block insert gives every partition
 * the same hash, so a rebuild lacking any rows, whole partitions of them or not, hits the IDs of what landed and
 * fills what did not (DedupTokenPartitionsTest). Before it ({@code old_separate_hashes}, and
 * {@code compatible_double_hashes}, where the legacy ID decides) the ID is {@code <partition_id>_<hash of
 * token_N>}, N numbering the insert's parts in order: a rebuild lacking all rows of one partition-key value shifts
 * N for the parts after it, which then land a second time. There a partial rebuild into a partitioned table is
 * refused: the connector cannot know which partition-key values the missing records had.
 */
public final class RebuildCheck {
    private final String partitionKey;
    private final boolean ordinalIds;
    private final String serverVersion;

    RebuildCheck(String partitionKey, boolean ordinalIds, String serverVersion) {
        this.partitionKey = partitionKey;
        this.ordinalIds = ordinalIds;
        this.serverVersion = serverVersion;
    }

    /**
     * Reads the table's partition key and how the server derives block IDs (once per table, at its first load).
     * {@code shards}: a Distributed target's local tables, whose partition key gives the block IDs; null otherwise.
     */
    public static RebuildCheck forTable(Client client, TableId table, Collection<ShardTable> shards) {
        List<GenericRecord> t = client.queryAll("SELECT partition_key FROM system.tables WHERE database = {db:String} "
                + "AND name = {tbl:String}", DedupCheck.params(table));
        List<GenericRecord> s = client.queryAll("SELECT version() AS v, (SELECT any(value) FROM system.server_settings "
                + "WHERE name = 'insert_deduplication_version') AS d");
        String version = s.get(0).getString("v");
        String partitionKey = t.isEmpty() ? "" : t.get(0).getString("partition_key");
        if (shards != null) {
            for (ShardTable shard : shards) {
                if (shard.partitionKey() != null && !shard.partitionKey().trim().isEmpty()) {
                    partitionKey = shard.partitionKey();
                }
            }
        }
        return new RebuildCheck(partitionKey,
                ordinalIds(version, s.get(0).getString("d")), version);
    }

    /** Null when the rebuild can be sent with its token, else why not: see {@link #partialRebuildProblem}. */
    public String problem(BlockManifest recorded, int rebuiltRows) {
        return partialRebuildProblem(recorded, rebuiltRows, partitionKey, ordinalIds, serverVersion);
    }

    /**
     * Whether the server numbers a token's partition parts (legacy block IDs): versions before 26.2 (no
     * {@code insert_deduplication_version}), or that setting at {@code old_separate_hashes} or
     * {@code compatible_double_hashes}. 26.7 has it at new_unified_hash by default; a later server without it (the
     * legacy paths are being removed) has unified IDs only.
     */
    static boolean ordinalIds(String version, String insertDeduplicationVersion) {
        if (insertDeduplicationVersion != null && !insertDeduplicationVersion.isEmpty()) {
            return !insertDeduplicationVersion.equals("new_unified_hash");
        }
        String[] v = version == null ? new String[0] : version.split("\\.");
        try {
            int major = Integer.parseInt(v[0]);
            int minor = Integer.parseInt(v[1]);
            return major < 26 || (major == 26 && minor < 2);
        } catch (RuntimeException e) {
            return true; // unknown: assume the legacy IDs
        }
    }

    /**
     * Null when the rebuild holds every recorded row, or the table is not partitioned, or the server's block IDs do
     * not depend on the other partitions of the insert; else the message the task fails with.
     */
    public static String partialRebuildProblem(BlockManifest recorded, int rebuiltRows, String partitionKey,
            boolean ordinalIds, String serverVersion) {
        if (rebuiltRows >= recorded.rows() || partitionKey == null || partitionKey.trim().isEmpty() || !ordinalIds) {
            return null;
        }
        TableId t = recorded.table();
        return "The rebuild of the block recorded for " + recorded.partition() + " offsets " + recorded.firstOffset()
                + " to " + recorded.lastOffset() + " (" + recorded.rows() + " rows) into table " + t.quoted()
                + " holds only " + rebuiltRows + " rows: the other records of that range were not redelivered "
                + "(deleted by retention or compaction) or now went to the dead-letter queue. The table is "
                + "partitioned (PARTITION BY " + partitionKey.trim() + ") and this ClickHouse (" + serverVersion
                + ") numbers the deduplication IDs of an insert's partitions in order, so if the missing records "
                + "held all rows of one partition, the rebuild's later partitions would get other IDs and be "
                + "inserted a second time. The task stops instead. Check whether the block's rows are in "
                + t.quoted() + " (the first insert may or may not have landed), then with the connector stopped "
                + "either move its committed offset for " + recorded.partition() + " past the block, to "
                + (recorded.lastOffset() + 1) + " (if they are there: nothing is lost; Connect 3.6+: PATCH "
                + "/connectors/<name>/offsets, or kafka-consumer-groups --reset-offsets --to-offset "
                + (recorded.lastOffset() + 1) + " for group connect-<name>), or run this range with "
                + "delivery.guarantee=at_least_once (if they are not). ClickHouse 26.2 and later with "
                + "insert_deduplication_version = new_unified_hash (the default on 26.7) send such a rebuild safely.";
    }
}
