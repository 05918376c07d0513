package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.stack.ClickHouseCluster;
import io.chsink.it.stack.ClickHouseServer;
import io.chsink.it.stack.ConnectRest;
import io.chsink.it.stack.Stack;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * delivery.guarantee=exactly_once into a Distributed table ({@link ClickHouseCluster}: an initiator and two shards)
 * whose shard 2 cannot deduplicate is refused, naming shard 2 (its number and host:port) and not shard 1: a local
 * table with non_replicated_deduplication_window = 0 there, or no local table there at all. Shard 1's local table is
 * fine in both cases; nothing is written. An initiator without a Keeper, whose exactly-once state table would live on
 * it alone, is refused too.
 */
class DistributedTargetCheckTest {
    private static ClickHouseCluster cluster;
    private static Path dir;

    @BeforeAll
    static void startCluster() {
        Assumptions.assumeTrue(System.getProperty("chsink.connect.url") == null
                && System.getenv("CHSINK_CONNECT_URL") == null, "local ClickHouse servers the worker reaches");
        Stack.shared();
        dir = Paths.get(System.getProperty("chsink.work.dir", System.getProperty("java.io.tmpdir") + "/chsink-stack"),
                "distributed-target-check");
        cluster = ClickHouseCluster.start(dir, "two", 2);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aShardWithoutDeduplicationWindowIsNamed() throws Exception {
        SinkHarness h = new SinkHarness(cluster.initiator());
        ShardedTable t = new ShardedTable(cluster, SinkHarness.unique("eo_nowindow"));
        cluster.createLocalTable(1, ShardedTable.DB, t.local, ShardedTable.COLUMNS, "id", 1000);
        cluster.createLocalTable(2, ShardedTable.DB, t.local, ShardedTable.COLUMNS, "id", 0);
        t.createDistributed("cityHash64(id)");
        String message = refusal(h, t);
        assertNamesShard2(message);
        assertTrue(message.contains("non_replicated_deduplication_window"), message);
        assertEquals(0, t.onShard(1, "count()") + t.onShard(2, "count()"));
        System.out.println("DistributedTargetCheckTest (window 0 on shard 2): " + message);
    }

    @Test
    void aShardWithoutTheLocalTableIsNamed() throws Exception {
        SinkHarness h = new SinkHarness(cluster.initiator());
        ShardedTable t = new ShardedTable(cluster, SinkHarness.unique("eo_nolocal"));
        cluster.createLocalTable(1, ShardedTable.DB, t.local, ShardedTable.COLUMNS, "id", 1000);
        t.createDistributed("rand()");
        String message = refusal(h, t);
        assertNamesShard2(message);
        assertTrue(message.contains(t.local), "names the missing table " + t.local + ": " + message);
        assertEquals(0, t.onShard(1, "count()"));
        System.out.println("DistributedTargetCheckTest (no local table on shard 2): " + message);
    }

    /**
     * An initiator without a Keeper keeps the exactly-once state in a table on itself alone: refused, as a replicated
     * target is, with the fixes (keeper_map_path_prefix for a KeeperMap state table among them).
     */
    @Test
    void aStateTableOnTheInitiatorAloneIsRefused() throws Exception {
        try (ClickHouseServer lone = ClickHouseServer.builder(dir.resolve("initiator-without-keeper"))
                .clusterOf("two", cluster.shard(1), cluster.shard(2)).start()) {
            SinkHarness h = new SinkHarness(lone);
            ShardedTable t = new ShardedTable(cluster, SinkHarness.unique("eo_nokeeper"));
            cluster.createLocalTables(ShardedTable.DB, t.local, ShardedTable.COLUMNS, "id", 1000);
            lone.exec("CREATE TABLE " + t.quotedName() + " (" + ShardedTable.COLUMNS + ") ENGINE = Distributed('two', '"
                    + ShardedTable.DB + "', '" + t.local + "', cityHash64(id))");
            String message = refusal(h, t);
            assertTrue(message.contains("Distributed") && message.contains("chsink_exactly_once_state")
                    && message.contains("keeper_map_path_prefix"), message);
            assertEquals(0, t.onShard(1, "count()") + t.onShard(2, "count()"));
            System.out.println("DistributedTargetCheckTest (state table on the initiator alone): " + message);
        }
    }

    private static void assertNamesShard2(String message) {
        assertTrue(message.contains(cluster.address(2)), "names shard 2's " + cluster.address(2) + ": " + message);
        assertTrue(Pattern.compile("(?i)shard\\D{0,12}\\b2\\b").matcher(message).find(), "names shard 2's number: "
                + message);
        assertFalse(message.contains(cluster.address(1)), "does not blame shard 1 (" + cluster.address(1) + "): "
                + message);
    }

    /**
     * What the connector says when it refuses an exactly_once connector on {@code t}: the 400 of the connector's
     * creation (validation), or else the failed task's message once records come.
     */
    private static String refusal(SinkHarness h, ShardedTable t) throws Exception {
        String connector = SinkHarness.unique("dist_check");
        h.stack.kafka().createTopic(t.name, 1);
        Map<String, String> o = SinkHarness.overrides(t.name, 1);
        o.putAll(ShardedTable.TRANSFORM);
        try {
            try {
                h.createConnector(connector, "clickhouse-sink-exactly-once.json", o);
            } catch (ConnectRest.RestException e) {
                assertEquals(400, e.status(), e.body());
                return e.body();
            }
            try (IdStream stream = new IdStream(h.stack.kafka().bootstrapServers(), t.name, 1, 100)) {
                stream.finish();
            }
            return SinkHarness.causeLine(h.awaitFailure(connector, Duration.ofSeconds(90)));
        } finally {
            h.deleteQuietly(connector);
        }
    }
}
