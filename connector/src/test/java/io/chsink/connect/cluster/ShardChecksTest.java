package io.chsink.connect.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.schema.TableId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ShardChecksTest {
    static final Shard S1 = new Shard(1, 1, "10.0.0.1", 9000, "");
    static final Shard S2 = new Shard(2, 1, "10.0.0.2", 9000, "");
    static final Map<String, String> COLUMNS = new LinkedHashMap<>(Map.of("id", "UInt64"));

    static DistributedTable distributed(String key, Set<String> nondeterministic) {
        return new DistributedTable(new TableId("db", "events"),
                DistributedEngine.parse("Distributed('two', 'db', 'events_local'" + (key == null ? "" : ", " + key) + ")"),
                List.of(S1, S2), nondeterministic, "distributed_foreground_insert");
    }

    static ShardTable local(Shard s, Map<String, String> columns) {
        return new ShardTable(s, new TableId("db", "events_local"), "MergeTree",
                "MergeTree ORDER BY id SETTINGS non_replicated_deduplication_window = 100", "", "id",
                "CREATE TABLE db.events_local (`id` UInt64) ENGINE = MergeTree ORDER BY id", columns, Map.of());
    }

    @Test
    void everyShardWithTheColumnsPasses() {
        DistributedTable d = distributed("cityHash64(id)", Set.of());
        assertNull(ShardChecks.problem(d, Map.of(1, local(S1, COLUMNS), 2, local(S2, COLUMNS)), COLUMNS));
        assertEquals(Routing.BY_KEY, d.routing());
    }

    @Test
    void aShardWithoutTheLocalTableIsNamedWithTheStatementToRun() {
        String p = ShardChecks.problem(distributed("rand()", Set.of("rand")), Map.of(1, local(S1, COLUMNS)), COLUMNS);
        assertTrue(p.contains("shard 2 (10.0.0.2:9000) has no table `db`.`events_local`"), p);
        assertTrue(p.contains("CREATE TABLE IF NOT EXISTS db.events_local (`id` UInt64)"), p);
    }

    @Test
    void aShardLackingAColumnIsNamedWithTheAlter() {
        Map<String, String> more = new LinkedHashMap<>(COLUMNS);
        more.put("v", "String");
        String p = ShardChecks.problem(distributed(null, Set.of()),
                Map.of(1, local(S1, more), 2, local(S2, COLUMNS)), more);
        assertTrue(p.contains("on shard 2 (10.0.0.2:9000) the local table `db`.`events_local` lacks `v`"), p);
        assertTrue(p.contains("ALTER TABLE `db`.`events_local` ADD COLUMN IF NOT EXISTS `v` String"), p);
    }

    @Test
    void routingFollowsTheKey() {
        assertEquals(Routing.WHOLE_BLOCKS, distributed("rand()", Set.of("rand")).routing());
        assertEquals(Routing.WHOLE_BLOCKS, distributed(null, Set.of()).routing());
        assertTrue(distributed("rand()", Set.of("rand")).wholeBlocksReason().contains("calls rand"));
    }
}
