package io.chsink.it;

import io.chsink.it.stack.ClickHouseCluster;
import io.chsink.it.stack.ClickHouseServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A Distributed target over a {@link ClickHouseCluster} for {@link IdStream} records: the MergeTree {@code <name>_local}
 * on every shard, the {@code Distributed} table {@code <name>} on the initiator with a given sharding key, columns
 * {@code id}, {@code payload} and the record's Kafka partition and offset (InsertField, {@link #TRANSFORM}); and what
 * its shards hold, read from each shard directly.
 */
final class ShardedTable {
    static final String COLUMNS = "id UInt64, payload String, kafka_partition Int32, kafka_offset Int64";
    /** Connector keys of the InsertField transform filling kafka_partition and kafka_offset. */
    static final Map<String, String> TRANSFORM = Map.of(
            "transforms", "kafka",
            "transforms.kafka.type", "org.apache.kafka.connect.transforms.InsertField$Value",
            "transforms.kafka.partition.field", "kafka_partition",
            "transforms.kafka.offset.field", "kafka_offset");
    static final String DB = "default";

    final ClickHouseCluster cluster;
    final String name;
    final String local;

    ShardedTable(ClickHouseCluster cluster, String name) {
        this.cluster = cluster;
        this.name = name;
        this.local = name + "_local";
    }

    /** The local table on every shard (deduplication window {@code window}), then the Distributed table. */
    ShardedTable create(String shardingKey, int window) {
        cluster.createLocalTables(DB, local, COLUMNS, "(kafka_partition, kafka_offset)", window);
        createDistributed(shardingKey);
        return this;
    }

    void createDistributed(String shardingKey) {
        cluster.createDistributed(DB, name, COLUMNS, local, shardingKey);
    }

    /** {@code SELECT <aggregate> FROM <local>} on shard {@code shard}. */
    long onShard(int shard, String aggregate) {
        return Long.parseLong(cluster.shard(shard).query("SELECT " + aggregate + " FROM " + quotedLocal()).trim());
    }

    /** The aggregate over every shard's local table, through {@code cluster(...)} on the initiator. */
    long overShards(String aggregate) {
        return Long.parseLong(cluster.initiator().query("SELECT " + aggregate + " FROM cluster('" + cluster.name()
                + "', " + ClickHouseCluster.quote(DB) + ", " + ClickHouseCluster.quote(local) + ")").trim());
    }

    /** Per shard (index 0 for shard 1): {@code aggregate} there. */
    long[] perShard(String aggregate) {
        long[] out = new long[cluster.shardCount()];
        for (int s = 1; s <= out.length; s++) {
            out[s - 1] = onShard(s, aggregate);
        }
        return out;
    }

    /** Rows on shard {@code s} that {@code cityHash64(id)} sends to another shard (weights 1: shard hash % n + 1). */
    long misplacedByHash(int shard) {
        return onShard(shard, "countIf(cityHash64(id) % " + cluster.shardCount() + " != " + (shard - 1) + ")");
    }

    /** The shard of every (partition, offset) row: per partition, offset to shard number (one of them if on several). */
    Map<Integer, Map<Long, Integer>> shardOfOffsets() {
        Map<Integer, Map<Long, Integer>> out = new HashMap<>();
        for (int s = 1; s <= cluster.shardCount(); s++) {
            int shard = s;
            for (String line : cluster.shard(s).query("SELECT kafka_partition, kafka_offset FROM " + quotedLocal()
                    + " FORMAT TSV").split("\n")) {
                if (!line.isBlank()) {
                    String[] f = line.split("\t");
                    out.computeIfAbsent(Integer.parseInt(f[0]), p -> new HashMap<>()).put(Long.parseLong(f[1]), shard);
                }
            }
        }
        return out;
    }

    /**
     * The blocks (by their tokens, {@code chsink/<connector>/<topic>/<partition>/<first>-<last>/<ts>}) whose rows are
     * not all on one shard, or not all there: described, empty when every block is whole on one shard.
     */
    List<String> blocksNotWholeOnOneShard(List<String> tokens) {
        Map<Integer, Map<Long, Integer>> at = shardOfOffsets();
        List<String> out = new ArrayList<>();
        for (String token : tokens) {
            String[] t = token.split("/");
            int partition = Integer.parseInt(t[3]);
            long first = Long.parseLong(t[4].substring(0, t[4].indexOf('-')));
            long last = Long.parseLong(t[4].substring(t[4].indexOf('-') + 1));
            Map<Long, Integer> shards = at.getOrDefault(partition, Map.of());
            Map<Integer, Long> rowsOn = new HashMap<>();
            for (long o = first; o <= last; o++) {
                rowsOn.merge(shards.getOrDefault(o, 0), 1L, Long::sum);
            }
            if (rowsOn.size() != 1 || rowsOn.containsKey(0)) {
                out.add(token + ": rows by shard (0: missing) " + rowsOn);
            }
        }
        return out;
    }

    /** Blocks as {@code first-last} ranges whose tokens name this table's topic; tokens of other shapes are skipped. */
    static List<String> blockTokens(List<String> tokens, String topic) {
        List<String> out = new ArrayList<>();
        for (String token : tokens) {
            String[] t = token.split("/");
            if (t.length == 6 && t[2].equals(topic) && t[4].matches("\\d+-\\d+")) {
                out.add(token);
            }
        }
        return out;
    }

    String quotedLocal() {
        return ClickHouseCluster.quote(DB) + "." + ClickHouseCluster.quote(local);
    }

    String quotedName() {
        return ClickHouseCluster.quote(DB) + "." + ClickHouseCluster.quote(name);
    }

    ClickHouseServer initiator() {
        return cluster.initiator();
    }
}
