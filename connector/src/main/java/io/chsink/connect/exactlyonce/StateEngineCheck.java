package io.chsink.connect.exactlyonce;

import com.clickhouse.client.api.Client;
import io.chsink.connect.schema.TableId;

/**
 * exactly_once on a replicated target needs a state table every replica reads alike. The connector's fallback
 * state table (a plain ReplacingMergeTree, where the server has no usable KeeperMap) lives on the node that
 * created it: behind a load balancer a new owner of a partition may read another replica, find no recorded blocks
 * and build new blocks, under new tokens, from records already inserted. So a Replicated or Shared MergeTree target
 * with a node-local state table is refused. A KeeperMap, a Replicated* or a Shared* state table is fine (the
 * connector creates a KeeperMap where keeper_map_path_prefix is configured; in a Replicated database, and on
 * ClickHouse Cloud, its ReplacingMergeTree becomes replicated by itself).
 *
 * <p>When the state table does not exist yet, validation cannot tell what the connector will create: whether
 * KeeperMap is usable depends on the server's configuration file ({@code keeper_map_path_prefix}), which SQL does
 * not show (and a Replicated database, or ClickHouse Cloud, replicates the fallback anyway). Then validation
 * passes and the task decides when it has opened the state table, before it reads any recorded block.
 */
public final class StateEngineCheck {
    private StateEngineCheck() {
    }

    /**
     * Why exactly_once into {@code target} cannot rely on the state table, or null when it can. {@code stateEngine}
     * is the engine of the opened state table ({@link StateStore#engine()}); null (validation) reads it from the
     * server, and passes when the state table does not exist yet.
     */
    public static String problem(Client client, TableId target, TableId stateTable, String stateEngine) {
        String targetEngine = StateStore.engineOf(client, target);
        if (!sharedTarget(targetEngine)) {
            return null; // also a missing target: reported elsewhere
        }
        String engine = stateEngine != null ? stateEngine : StateStore.engineOf(client, stateTable);
        // No state table yet (validation): the task decides once it has created one.
        return engine == null ? null : problem(target, targetEngine, stateTable, engine);
    }

    /** The decision on engine names: a replicated target with a node-local state table is refused. */
    static String problem(TableId target, String targetEngine, TableId stateTable, String stateEngine) {
        if (!sharedTarget(targetEngine) || !nodeLocal(stateEngine)) {
            return null;
        }
        return "Table " + target.quoted() + " is a " + targetEngine + ("Distributed".equals(targetEngine)
                ? " table (its rows live on the cluster's shards, and clickhouse.url may reach any of its servers)"
                : "") + ", but the exactly-once state table "
                + stateTable.quoted() + " is a " + stateEngine + ", which keeps its rows on the one server that "
                + "created it: behind a load balancer a task taking over a partition may read another replica, find "
                + "no recorded blocks and insert records a second time. Give the state table a replicated engine, "
                + "then restart the connector: (1) configure <keeper_map_path_prefix> on the ClickHouse servers, "
                + "drop " + stateTable.quoted() + " and the connector creates a KeeperMap state table; or (2) drop "
                + "it and create it yourself on every replica (or add ON CLUSTER), with your {shard} and {replica} "
                + "macros: " + StateStore.replicatedCreateSql(stateTable) + "; or (3) keep clickhouse.database in a "
                + "Replicated database (CREATE DATABASE ... ENGINE = Replicated), where the connector's state table "
                + "is replicated by itself. Drop the state table only with the connector stopped and its offsets "
                + "committed (its recorded blocks are what a restart rebuilds), or use delivery.guarantee=at_least_once.";
    }

    /** A target whose rows more than one server serves: a replicated one, or a Distributed table over shards. */
    static boolean sharedTarget(String engine) {
        return replicated(engine) || "Distributed".equals(engine);
    }

    /** Replicated or Shared MergeTree family: replicas of one table behind one name. */
    static boolean replicated(String engine) {
        return engine != null && engine.endsWith("MergeTree")
                && (engine.startsWith("Replicated") || engine.startsWith("Shared"));
    }

    /** A state engine whose rows stay on one server: a MergeTree-family engine neither Replicated nor Shared. */
    static boolean nodeLocal(String engine) {
        return engine != null && engine.endsWith("MergeTree") && !replicated(engine);
    }
}
