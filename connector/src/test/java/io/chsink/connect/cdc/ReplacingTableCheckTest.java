package io.chsink.connect.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.schema.TableId;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
}
