package io.chsink.connect.writer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which engines need a partition's blocks to land in order, from what system.tables says of them. */
class InsertOrderTest {
    private static final Map<String, String> NO_COLUMNS = Map.of();

    private static String reason(String engine, String engineFull) {
        return InsertOrder.reason(engine, engineFull, NO_COLUMNS);
    }

    @Test
    void replacingMergeTreeWithoutAVersionIsOrderSensitive() {
        assertNotNull(reason("ReplacingMergeTree", "ReplacingMergeTree ORDER BY id SETTINGS index_granularity = 8192"));
        assertNotNull(reason("ReplacingMergeTree", "ReplacingMergeTree() PARTITION BY p ORDER BY id"));
        assertTrue(reason("ReplacingMergeTree", "ReplacingMergeTree ORDER BY id").contains("version"));
    }

    @Test
    void replacingMergeTreeWithAVersionTakesAnyOrder() {
        assertNull(reason("ReplacingMergeTree", "ReplacingMergeTree(ver) ORDER BY id"));
        assertNull(reason("ReplacingMergeTree", "ReplacingMergeTree(`_version`, `_is_deleted`) ORDER BY id"));
        assertNull(reason("ReplacingMergeTree", "ReplacingMergeTree(v, d) PARTITION BY p ORDER BY id"));
    }

    @Test
    void theReplicatedAndSharedFormsOfReplacingAreDecidedOnTheirColumnParametersNotTheirPaths() {
        assertNotNull(reason("ReplicatedReplacingMergeTree",
                "ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/db/t', '{replica}') ORDER BY id"));
        assertNull(reason("ReplicatedReplacingMergeTree",
                "ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/db/t', '{replica}', ver) ORDER BY id"));
        assertNull(reason("ReplicatedReplacingMergeTree",
                "ReplicatedReplacingMergeTree('/p', '{replica}', ver, is_deleted) ORDER BY id"));
        assertNotNull(reason("SharedReplacingMergeTree",
                "SharedReplacingMergeTree('/clickhouse/tables/{uuid}/{shard}', '{replica}') ORDER BY id"));
        assertNull(reason("SharedReplacingMergeTree",
                "SharedReplacingMergeTree('/clickhouse/tables/{uuid}/{shard}', '{replica}', version, deleted) ORDER BY id"));
    }

    @Test
    void collapsingIsOrderSensitiveVersionedCollapsingIsNot() {
        assertNotNull(reason("CollapsingMergeTree", "CollapsingMergeTree(sign) ORDER BY id"));
        assertNotNull(reason("ReplicatedCollapsingMergeTree",
                "ReplicatedCollapsingMergeTree('/p/{shard}', '{replica}', sign) ORDER BY id"));
        assertNotNull(reason("SharedCollapsingMergeTree", "SharedCollapsingMergeTree('/p', '{replica}', sign) ORDER BY id"));
        assertNull(reason("VersionedCollapsingMergeTree", "VersionedCollapsingMergeTree(sign, version) ORDER BY id"));
        assertNull(reason("ReplicatedVersionedCollapsingMergeTree",
                "ReplicatedVersionedCollapsingMergeTree('/p', '{replica}', sign, version) ORDER BY id"));
    }

    @Test
    void coalescingIsOrderSensitive() {
        assertNotNull(reason("CoalescingMergeTree", "CoalescingMergeTree ORDER BY id"));
        assertNotNull(reason("ReplicatedCoalescingMergeTree", "ReplicatedCoalescingMergeTree('/p', '{replica}') ORDER BY id"));
    }

    @Test
    void plainAndOtherEnginesTakeAnyOrder() {
        assertNull(reason("MergeTree", "MergeTree ORDER BY id"));
        assertNull(reason("ReplicatedMergeTree", "ReplicatedMergeTree('/p', '{replica}') ORDER BY id"));
        assertNull(reason("SharedMergeTree", "SharedMergeTree('/p', '{replica}') ORDER BY id"));
        assertNull(reason("Memory", "Memory"));
        assertNull(reason(null, null));
        // A name that only starts like a prefix is not stripped into another engine.
        assertNull(reason("Shared", "Shared"));
    }

    @Test
    void aggregatingEnginesAreOrderSensitiveOnlyWithFirstOrLastValueColumns() {
        Map<String, String> cols = new LinkedHashMap<>();
        cols.put("id", "UInt64");
        cols.put("total", "SimpleAggregateFunction(sum, UInt64)");
        cols.put("peak", "SimpleAggregateFunction(max, Float64)");
        cols.put("state", "AggregateFunction(anyLast, String)");
        assertNull(InsertOrder.reason("AggregatingMergeTree", "AggregatingMergeTree ORDER BY id", cols));
        assertNull(InsertOrder.reason("SummingMergeTree", "SummingMergeTree ORDER BY id", cols));
        for (String f : new String[] {"anyLast", "any", "first_value", "last_value", "anyLast_respect_nulls",
                "ANYLAST"}) {
            Map<String, String> c = new LinkedHashMap<>(cols);
            c.put("name", "SimpleAggregateFunction(" + f + ", Nullable(String))");
            String why = InsertOrder.reason("ReplicatedAggregatingMergeTree",
                    "ReplicatedAggregatingMergeTree('/p', '{replica}') ORDER BY id", c);
            assertNotNull(why, f);
            assertTrue(why.contains("column name is SimpleAggregateFunction(" + f), why);
            assertNotNull(InsertOrder.reason("SummingMergeTree", "SummingMergeTree ORDER BY id", c), f);
        }
        // The same column in a plain MergeTree is never merged: no order to keep.
        assertNull(InsertOrder.reason("MergeTree", "MergeTree ORDER BY id",
                Map.of("name", "SimpleAggregateFunction(anyLast, String)")));
    }

    @Test
    void onlyTheAggregatingEnginesNeedTheirColumnsRead() {
        assertTrue(InsertOrder.needsColumns("AggregatingMergeTree"));
        assertTrue(InsertOrder.needsColumns("SharedSummingMergeTree"));
        assertTrue(!InsertOrder.needsColumns("CollapsingMergeTree") && !InsertOrder.needsColumns("MergeTree"));
    }

    @Test
    void theSimpleAggregateFunctionOfAType() {
        assertEquals("anyLast", InsertOrder.simpleAggregateFunction("SimpleAggregateFunction(anyLast, String)"));
        assertEquals("sum", InsertOrder.simpleAggregateFunction("SimpleAggregateFunction( sum , UInt64)"));
        assertNull(InsertOrder.simpleAggregateFunction("AggregateFunction(anyLast, String)"));
        assertNull(InsertOrder.simpleAggregateFunction("String"));
    }

    @Test
    void theEngineClauseForMessages() {
        assertEquals("CollapsingMergeTree(sign)", InsertOrder.clause("CollapsingMergeTree",
                "CollapsingMergeTree(sign) PARTITION BY p ORDER BY id SETTINGS index_granularity = 8192"));
        assertEquals("ReplacingMergeTree", InsertOrder.clause("ReplacingMergeTree", "ReplacingMergeTree ORDER BY id"));
        assertEquals("Memory", InsertOrder.clause("Memory", ""));
    }
}
