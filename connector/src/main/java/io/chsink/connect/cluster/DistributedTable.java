package io.chsink.connect.cluster;

import io.chsink.connect.schema.TableId;
import java.util.List;
import java.util.Set;

/**
 * A target table with the Distributed engine: its cluster, the local table on every shard, its sharding key and how
 * the connector routes blocks to the shards ({@link Routing}), as {@link ClusterReader} read them.
 */
public final class DistributedTable {
    private final TableId table;
    private final DistributedEngine engine;
    private final List<Shard> shards;
    private final Set<String> nondeterministic;
    private final String foregroundSetting;

    public DistributedTable(TableId table, DistributedEngine engine, List<Shard> shards, Set<String> nondeterministic,
            String foregroundSetting) {
        this.table = table;
        this.engine = engine;
        this.shards = List.copyOf(shards);
        this.nondeterministic = Set.copyOf(nondeterministic);
        this.foregroundSetting = foregroundSetting;
    }

    /** The Distributed table itself. */
    public TableId table() {
        return table;
    }

    public String cluster() {
        return engine.cluster();
    }

    /** The sharding key as written, or null. */
    public String shardingKey() {
        return engine.shardingKey();
    }

    public List<Shard> shards() {
        return shards;
    }

    /** The local table on {@code shard}: the engine's database, or the shard's default one when that is empty. */
    public TableId localTable(Shard shard) {
        String db = engine.database().isEmpty() ? shard.defaultDatabase() : engine.database();
        return new TableId(db.isEmpty() ? "default" : db, engine.table());
    }

    /** The local tables' name, for messages: {@code `db`.`t`}, or {@code `t` in each shard's default database}. */
    public String localName() {
        return engine.database().isEmpty() ? TableId.quote(engine.table()) + " (in each shard's default database)"
                : new TableId(engine.database(), engine.table()).quoted();
    }

    /** The functions that make the sharding key non-deterministic (empty when it is deterministic or absent). */
    public Set<String> nondeterministicFunctions() {
        return nondeterministic;
    }

    public Routing routing() {
        if (shards.size() <= 1) {
            return Routing.BY_KEY;
        }
        return shardingKey() == null || !nondeterministic.isEmpty() ? Routing.WHOLE_BLOCKS : Routing.BY_KEY;
    }

    /** Why blocks go whole to shards, for messages; null under {@link Routing#BY_KEY}. */
    public String wholeBlocksReason() {
        if (routing() == Routing.BY_KEY) {
            return null;
        }
        return shardingKey() == null ? "it has no sharding key"
                : "its sharding key " + shardingKey() + " calls " + String.join(", ", nondeterministic)
                        + ", which ClickHouse does not evaluate the same way twice";
    }

    /**
     * The setting that makes an insert synchronous, the rows on their shards when it returns:
     * {@code distributed_foreground_insert} (23.x and later) or its older name {@code insert_distributed_sync}.
     */
    public String foregroundSetting() {
        return foregroundSetting;
    }

    /** {@code Table `db`.`t` (Distributed over cluster 'c')}: how messages start. */
    public String describe() {
        return "Table " + table.quoted() + " (Distributed over cluster '" + cluster() + "', local table "
                + localName() + ")";
    }
}
