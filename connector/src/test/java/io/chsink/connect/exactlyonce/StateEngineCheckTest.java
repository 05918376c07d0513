package io.chsink.connect.exactlyonce;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.schema.TableId;
import org.junit.jupiter.api.Test;

class StateEngineCheckTest {
    private static final TableId TARGET = new TableId("db", "events");
    private static final TableId STATE = new TableId("db", "chsink_exactly_once_state");

    @Test
    void replicatedTargetWithNodeLocalStateIsRefused() {
        for (String target : new String[] {"ReplicatedMergeTree", "ReplicatedReplacingMergeTree", "SharedMergeTree",
                "SharedSummingMergeTree"}) {
            String m = StateEngineCheck.problem(TARGET, target, STATE, "ReplacingMergeTree");
            assertTrue(m != null && m.contains("Table `db`.`events` is a " + target), target + ": " + m);
        }
    }

    @Test
    void replicatedOrKeeperStateOrLocalTargetIsFine() {
        for (String state : new String[] {"KeeperMap", "ReplicatedReplacingMergeTree", "SharedReplacingMergeTree"}) {
            assertNull(StateEngineCheck.problem(TARGET, "ReplicatedMergeTree", STATE, state), state);
            assertNull(StateEngineCheck.problem(TARGET, "SharedMergeTree", STATE, state), state);
        }
        assertNull(StateEngineCheck.problem(TARGET, "MergeTree", STATE, "ReplacingMergeTree"));
        assertNull(StateEngineCheck.problem(TARGET, "ReplacingMergeTree", STATE, "ReplacingMergeTree"));
        assertNull(StateEngineCheck.problem(TARGET, null, STATE, "ReplacingMergeTree"), "missing target: elsewhere");
    }

    @Test
    void engineClasses() {
        assertTrue(StateEngineCheck.replicated("ReplicatedMergeTree"));
        assertTrue(StateEngineCheck.replicated("SharedReplacingMergeTree"));
        assertFalse(StateEngineCheck.replicated("MergeTree"));
        assertFalse(StateEngineCheck.replicated("Distributed"));
        assertTrue(StateEngineCheck.nodeLocal("ReplacingMergeTree"));
        assertFalse(StateEngineCheck.nodeLocal("KeeperMap"));
        assertFalse(StateEngineCheck.nodeLocal("SharedReplacingMergeTree"));
    }

    @Test
    void messageGivesTheThreeFixesAndTheStatement() {
        String m = StateEngineCheck.problem(TARGET, "ReplicatedMergeTree", STATE, "ReplacingMergeTree");
        assertTrue(m.contains("keeper_map_path_prefix"), m);
        assertTrue(m.contains("CREATE TABLE IF NOT EXISTS `db`.`chsink_exactly_once_state` (connector String, topic "
                + "String, partition Int32, first_offset Int64, last_offset Int64, target_database String, target_table "
                + "String, rows UInt32, first_timestamp Int64, token String, version UInt64, recorded_at DateTime DEFAULT "
                + "now()) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/{table}', "
                + "'{replica}', version) ORDER BY (connector, topic, partition, first_offset) TTL recorded_at + "
                + "INTERVAL 30 DAY"), m);
        assertTrue(m.contains("ENGINE = Replicated"), m);
        assertTrue(m.contains("delivery.guarantee=at_least_once"), m);
    }
}
