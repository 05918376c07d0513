package io.chsink.connect.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class DistributedEngineTest {
    @Test
    void readsClusterDatabaseTableAndKeyAsSystemTablesShowsThem() {
        DistributedEngine e = DistributedEngine.parse("Distributed(\\'two\\', \\'default\\', \\'t\\', rand())"
                .replace("\\'", "'"));
        assertEquals("two", e.cluster());
        assertEquals("default", e.database());
        assertEquals("t", e.table());
        assertEquals("rand()", e.shardingKey());
    }

    @Test
    void aKeyWithCommasAndQuotesAndAPolicyAndSettingsAfterIt() {
        DistributedEngine e = DistributedEngine.parse("Distributed('c', '', 'my''t', cityHash64(a, concat(b, ',)')), "
                + "'policy') SETTINGS fsync_after_insert = 1");
        assertEquals("c", e.cluster());
        assertEquals("", e.database());
        assertEquals("my't", e.table());
        assertEquals("cityHash64(a, concat(b, ',)'))", e.shardingKey());
    }

    @Test
    void noKey() {
        assertNull(DistributedEngine.parse("Distributed('c', 'db', 't')").shardingKey());
    }

    @Test
    void refusesWhatIsNotADistributedClause() {
        assertThrows(IllegalArgumentException.class, () -> DistributedEngine.parse("MergeTree ORDER BY k"));
        assertThrows(IllegalArgumentException.class, () -> DistributedEngine.parse("Distributed('c', 'db')"));
    }
}
