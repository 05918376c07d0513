package io.chsink.connect.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.cluster.DistributedEngine;
import io.chsink.connect.cluster.DistributedTable;
import io.chsink.connect.cluster.Shard;
import io.chsink.connect.cluster.ShardTable;
import io.chsink.connect.schema.TableId;
import java.util.HashMap;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The ReplacingMergeTree(version, is_deleted) requirement, on what system.tables and system.columns say. */
class ReplacingTableCheckTest {
    private static final TableId T = new TableId("db", "orders");

    private static Map<String, String> cols(String... nameType) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < nameType.length; i += 2) {
            m.put(nameType[i], nameType[i + 1]);
        }
        return m;
    }

    @Test
    void engineParametersAreReadFromEngineFull() {
        assertEquals(List.of("_version", "_is_deleted"), ReplacingTableCheck.columnParameters(
                "ReplacingMergeTree(_version, _is_deleted) ORDER BY id SETTINGS index_granularity = 8192"));
        assertEquals(List.of("v", "del eted"), ReplacingTableCheck.columnParameters(
                "ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/db/orders', '{replica}', `v`, `del eted`) "
                        + "ORDER BY (a, b)"));
        assertEquals(List.of(), ReplacingTableCheck.columnParameters("ReplacingMergeTree ORDER BY id"));
        assertEquals(List.of("ver"), ReplacingTableCheck.columnParameters("ReplacingMergeTree(ver) ORDER BY id"));
    }

    @Test
    void theRightTableIsAccepted() {
        assertNull(ReplacingTableCheck.problem(T, "ReplacingMergeTree", "ReplacingMergeTree(_version, _is_deleted) "
                + "ORDER BY id", "id", cols("id", "Int32", "_version", "UInt64", "_is_deleted", "UInt8"), "_version",
                "_is_deleted"));
        assertNull(ReplacingTableCheck.problem(T, "ReplicatedReplacingMergeTree", "ReplicatedReplacingMergeTree('/p', "
                + "'{replica}', ver, gone) ORDER BY id", "id", cols("ver", "UInt128", "gone", "UInt8"), "ver", "gone"));
    }

    @Test
    void aPlainMergeTreeIsRefusedWithTheStatementsThatFixIt() {
        String p = ReplacingTableCheck.problem(T, "MergeTree", "MergeTree ORDER BY (tenant, id) SETTINGS x = 1",
                "tenant, id", cols("tenant", "Int32", "id", "Int64"), "_version", "_is_deleted");
        assertTrue(p.contains("has engine MergeTree,"), p);
        assertTrue(p.contains("ALTER TABLE `db`.`orders` ADD COLUMN `_version` UInt64, ADD COLUMN `_is_deleted` UInt8;"), p);
        assertTrue(p.contains("CREATE TABLE `db`.`orders_cdc` AS `db`.`orders` ENGINE = "
                + "ReplacingMergeTree(`_version`, `_is_deleted`) ORDER BY (tenant, id); EXCHANGE TABLES `db`.`orders` "
                + "AND `db`.`orders_cdc`"), p);
    }

    @Test
    void aReplacingMergeTreeWithoutTheDeletedColumnIsRefused() {
        String p = ReplacingTableCheck.problem(T, "ReplacingMergeTree", "ReplacingMergeTree(_version) ORDER BY id",
                "id", cols("id", "Int32", "_version", "UInt64"), "_version", "_is_deleted");
        assertTrue(p.contains("has engine ReplacingMergeTree(_version),"), p);
        assertTrue(p.contains("ADD COLUMN `_is_deleted` UInt8;") && !p.contains("ADD COLUMN `_version`"), p);
        String other = ReplacingTableCheck.problem(T, "ReplacingMergeTree", "ReplacingMergeTree(ver, del) ORDER BY id",
                "id", cols("ver", "UInt64", "del", "UInt8", "_version", "UInt64", "_is_deleted", "UInt8"), "_version",
                "_is_deleted");
        assertTrue(other.contains("cdc.version.column / cdc.deleted.column"), other);
    }

    @Test
    void wrongColumnTypesAreNamed() {
        String p = ReplacingTableCheck.problem(T, "ReplacingMergeTree", "ReplacingMergeTree(_version, _is_deleted) "
                + "ORDER BY id", "id", cols("_version", "DateTime", "_is_deleted", "UInt8"), "_version", "_is_deleted");
        assertTrue(p.contains("`_version` is DateTime") && p.contains("MODIFY COLUMN `_version` UInt64"), p);
    }

    @Test
    void versionsOf128BitsNeedAUInt128OrUInt256Column() {
        String engine = "ReplacingMergeTree(_version, _is_deleted) ORDER BY id";
        String p = ReplacingTableCheck.problem(T, "ReplacingMergeTree", engine, "id",
                cols("id", "Int32", "_version", "UInt64", "_is_deleted", "UInt8"), "_version", "_is_deleted", 128);
        assertTrue(p.contains("`_version` is UInt64; the connector writes 128-bit versions (cdc.version.bits=128): "
                + "ALTER TABLE `db`.`orders` MODIFY COLUMN `_version` UInt128"), p);
        for (String wide : new String[] {"UInt128", "UInt256"}) {
            assertNull(ReplacingTableCheck.problem(T, "ReplacingMergeTree", engine, "id",
                    cols("id", "Int32", "_version", wide, "_is_deleted", "UInt8"), "_version", "_is_deleted", 128));
            assertNull(ReplacingTableCheck.problem(T, "ReplacingMergeTree", engine, "id",
                    cols("id", "Int32", "_version", wide, "_is_deleted", "UInt8"), "_version", "_is_deleted", 64));
        }
        String missing = ReplacingTableCheck.problem(T, "MergeTree", "MergeTree ORDER BY id", "id",
                cols("id", "Int32"), "_version", "_is_deleted", 128);
        assertTrue(missing.contains("ADD COLUMN `_version` UInt128,"), missing);
        String narrow = ReplacingTableCheck.problem(T, "ReplacingMergeTree", engine, "id",
                cols("_version", "Int64", "_is_deleted", "UInt8"), "_version", "_is_deleted", 64);
        assertTrue(narrow.contains("MODIFY COLUMN `_version` UInt64 (or cdc.version.bits=128 with UInt128)"), narrow);
    }

    private static DistributedTable distributed(String key, Set<String> nondeterministic) {
        return new DistributedTable(new TableId("db", "orders"), DistributedEngine.parse(
                "Distributed('two', 'db', 'orders_local'" + (key == null ? "" : ", " + key) + ")"),
                List.of(new Shard(1, 1, "h1", 9000, ""), new Shard(2, 1, "h2", 9000, "")), nondeterministic,
                "distributed_foreground_insert");
    }

    private static Map<Integer, ShardTable> replacingShards() {
        Map<String, String> types = new LinkedHashMap<>();
        types.put("id", "Int64");
        types.put("status", "String");
        types.put("_version", "UInt64");
        types.put("_deleted", "UInt8");
        Map<Integer, ShardTable> out = new HashMap<>();
        for (int n = 1; n <= 2; n++) {
            out.put(n, new ShardTable(new Shard(n, 1, "h" + n, 9000, ""), new TableId("db", "orders_local"),
                    "ReplacingMergeTree", "ReplacingMergeTree(_version, _deleted) ORDER BY id", "", "id", "", types,
                    Map.of()));
        }
        return out;
    }

    @Test
    void aDistributedTargetNeedsAKeyThatKeepsARowOnOneShard() {
        assertNull(ReplacingTableCheck.distributedProblem(distributed("cityHash64(id)", Set.of()),
                replacingShards(), "_version", "_deleted", 64));
        String rand = ReplacingTableCheck.distributedProblem(distributed("rand()", Set.of("rand")),
                replacingShards(), "_version", "_deleted", 64);
        assertTrue(rand.contains("cannot take cdc.mode=debezium rows") && rand.contains("rand"), rand);
        String none = ReplacingTableCheck.distributedProblem(distributed(null, Set.of()),
                replacingShards(), "_version", "_deleted", 64);
        assertTrue(none.contains("it has no sharding key"), none);
        String moving = ReplacingTableCheck.distributedProblem(distributed("cityHash64(id, status)",
                Set.of()), replacingShards(), "_version", "_deleted", 64);
        assertTrue(moving.contains("reads status, outside the local table's sorting key (id)"), moving);
    }

    @Test
    void aDistributedTargetsShardWithAPlainMergeTreeIsNamed() {
        Map<Integer, ShardTable> shards = replacingShards();
        ShardTable two = shards.get(2);
        shards.put(2, new ShardTable(two.shard(), two.table(), "MergeTree", "MergeTree ORDER BY id", "", "id", "",
                two.columnTypes(), Map.of()));
        String p = ReplacingTableCheck.distributedProblem(distributed("cityHash64(id)", Set.of()), shards,
                "_version", "_deleted", 64);
        assertTrue(p.contains("shard 2 (h2:9000)") && p.contains("has engine MergeTree"), p);
    }
}
