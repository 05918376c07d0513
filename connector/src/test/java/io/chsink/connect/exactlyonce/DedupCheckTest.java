package io.chsink.connect.exactlyonce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.schema.TableId;
import org.junit.jupiter.api.Test;

class DedupCheckTest {
    @Test
    void engineDecidesWhichWindowCounts() {
        assertEquals(DedupCheck.NON_REPLICATED, DedupCheck.settingFor("MergeTree"));
        assertEquals(DedupCheck.NON_REPLICATED, DedupCheck.settingFor("ReplacingMergeTree"));
        assertEquals(DedupCheck.REPLICATED, DedupCheck.settingFor("ReplicatedMergeTree"));
        assertEquals(DedupCheck.REPLICATED, DedupCheck.settingFor("SharedReplacingMergeTree"));
        assertNull(DedupCheck.settingFor("Distributed"));
        assertNull(DedupCheck.settingFor("Memory"));
    }

    @Test
    void windowIsReadFromTheTablesOwnSettings() {
        String full = "MergeTree ORDER BY a SETTINGS non_replicated_deduplication_window = 1000, index_granularity = 8192";
        assertEquals(1000, DedupCheck.windowOf(full, DedupCheck.NON_REPLICATED));
        assertEquals(-1, DedupCheck.windowOf(full, DedupCheck.REPLICATED), "not the non_replicated_ setting");
        assertEquals(-1, DedupCheck.windowOf("MergeTree ORDER BY a", DedupCheck.NON_REPLICATED));
        assertEquals(0, DedupCheck.windowOf("ReplicatedMergeTree('/p', 'r') ORDER BY a SETTINGS "
                + "replicated_deduplication_window = 0", DedupCheck.REPLICATED));
    }

    @Test
    void messageNamesTheStatementToRun() {
        String m = DedupCheck.message(new TableId("db", "t"), "MergeTree", DedupCheck.NON_REPLICATED);
        assertTrue(m.contains("ALTER TABLE `db`.`t` MODIFY SETTING non_replicated_deduplication_window = 1000"), m);
    }

    @Test
    void neededIsBlocksTimesPartitionsTimesIds() {
        assertEquals(2 * 12 * 3, DedupCheck.needed(2, 12, 3));
        assertEquals(1, DedupCheck.needed(0, 0, 0), "at least one of each");
        assertEquals(3L * Integer.MAX_VALUE, DedupCheck.needed(3, Integer.MAX_VALUE, 1), "no int overflow");
    }

    @Test
    void windowWarningOnlyBelowNeededWithTheNumbersAndTheFix() {
        TableId t = new TableId("db", "t");
        assertNull(DedupCheck.windowWarning(t, DedupCheck.NON_REPLICATED, 1000, 2, 12, 3, "toYYYYMM(ts)"));
        assertNull(DedupCheck.windowWarning(t, DedupCheck.NON_REPLICATED, 72, 2, 12, 3, "toYYYYMM(ts)"), "equal is enough");
        String w = DedupCheck.windowWarning(t, DedupCheck.NON_REPLICATED, 50, 2, 12, 3, "toYYYYMM(ts)");
        assertTrue(w.contains("last 50 inserted blocks (non_replicated_deduplication_window = 50)"), w);
        assertTrue(w.contains("up to 72 again: 2 blocks in flight per partition x 12 Kafka partitions"), w);
        assertTrue(w.contains("x 3 IDs per block (an estimate"), w);
        assertTrue(w.contains("PARTITION BY toYYYYMM(ts)"), w);
        assertTrue(w.contains("other writers"), w);
        assertTrue(w.contains("ALTER TABLE `db`.`t` MODIFY SETTING non_replicated_deduplication_window = 1000."), w);
        String u = DedupCheck.windowWarning(t, DedupCheck.REPLICATED, 100, 2, 100, 1, null);
        assertTrue(u.contains("x 1 ID per block.") && !u.contains("estimate"), u);
        assertTrue(u.contains("MODIFY SETTING replicated_deduplication_window = 2000."), u);
    }
}
