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
}
