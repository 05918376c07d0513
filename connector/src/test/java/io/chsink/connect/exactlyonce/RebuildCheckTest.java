package io.chsink.connect.exactlyonce;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.block.BlockManifest;
import io.chsink.connect.schema.TableId;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class RebuildCheckTest {
    private static final BlockManifest BLOCK = new BlockManifest(new TableId("db", "events"),
            new TopicPartition("orders", 3), 1000, 1499, 500, 1764547200000L, "chsink/sink/orders/3/1000-1499/1764547200000");

    @Test
    void unifiedIdsNeverRefuse() {
        assertNull(RebuildCheck.partialRebuildProblem(BLOCK, 10, "toYYYYMM(ts)", false, "26.7.2.1"));
    }

    @Test
    void ordinalIdsRefuseOnlyAPartialRebuildOfAPartitionedTable() {
        assertNull(RebuildCheck.partialRebuildProblem(BLOCK, 500, "toYYYYMM(ts)", true, "25.8.1.1"), "complete");
        assertNull(RebuildCheck.partialRebuildProblem(BLOCK, 499, "", true, "25.8.1.1"), "not partitioned");
        assertNull(RebuildCheck.partialRebuildProblem(BLOCK, 499, null, true, "25.8.1.1"), "not partitioned");
        String m = RebuildCheck.partialRebuildProblem(BLOCK, 480, "toYYYYMM(ts)", true, "25.8.1.1");
        assertTrue(m.contains("orders-3 offsets 1000 to 1499 (500 rows) into table `db`.`events` holds only 480 rows"), m);
        assertTrue(m.contains("PARTITION BY toYYYYMM(ts)") && m.contains("(25.8.1.1)"), m);
        assertTrue(m.contains("past the block, to 1500") && m.contains("--to-offset 1500"), m);
        assertTrue(m.contains("delivery.guarantee=at_least_once"), m);
    }

    @Test
    void whichServersNumberTheParts() {
        assertTrue(RebuildCheck.ordinalIds("25.8.3.1", null));
        assertTrue(RebuildCheck.ordinalIds("26.1.1.1", ""));
        assertTrue(RebuildCheck.ordinalIds("26.3.1.1", "compatible_double_hashes"));
        assertTrue(RebuildCheck.ordinalIds("26.3.1.1", "old_separate_hashes"));
        assertFalse(RebuildCheck.ordinalIds("26.5.1.1", "new_unified_hash"));
        assertFalse(RebuildCheck.ordinalIds("26.7.2.1", "new_unified_hash"), "26.7's default");
        assertTrue(RebuildCheck.ordinalIds("26.7.2.1", "compatible_double_hashes"), "a server configured back");
        assertFalse(RebuildCheck.ordinalIds("26.9.1.1", ""), "the setting gone: unified only");
        assertFalse(RebuildCheck.ordinalIds("27.1.1.1", null));
        assertTrue(RebuildCheck.ordinalIds("garbage", null), "unknown: assume the legacy IDs");
    }
}
