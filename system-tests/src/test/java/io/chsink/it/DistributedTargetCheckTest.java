package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.stack.ClickHouseCluster;
import io.chsink.it.stack.ClickHouseServer;
import io.chsink.it.stack.ConnectRest;
import io.chsink.it.stack.Stack;
import java.nio.file.Path;
import java.time.Duration;
import io.chsink.it.kafka.EventProducer;
import java.util.ArrayList;
import java.util.List;
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
 * it alone, is refused too. auto.evolve without distributed DDL stops with the statement for the shards, and goes on
 * once it ran there.
 */
class DistributedTargetCheckTest {
    private static ClickHouseCluster cluster;
    private static Path dir;

    @BeforeAll
    static void startCluster() {
        Assumptions.assumeTrue(System.getProperty("chsink.connect.url") == null
                && System.getenv("CHSINK_CONNECT_URL") == null, "local ClickHouse servers the worker reaches");
        Stack.shared();
        dir = Stack.workDir("distributed-target-check");
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

    /**
     * auto.evolve on a Distributed target (at_least_once, config/clickhouse-sink-auto.json): a record with new fields
     * needs them on the shards' local tables first. This cluster has no distributed DDL, so the ON CLUSTER statement
     * fails and the task stops with the statement to run on every shard; once it ran there and the task restarts,
     * the connector adds the columns to the Distributed table and the new records land with their values on the
     * shards.
     */
    @Test
    void autoEvolveStopsWithTheShardStatementsThenAddsTheColumnsToTheDistributedTable() throws Exception {
        SinkHarness h = new SinkHarness(cluster.initiator());
        String topic = SinkHarness.unique("app_dist_evolve");
        String local = topic + "_local";
        String connector = SinkHarness.unique("dist_evolve");
        cluster.createLocalTables(ShardedTable.DB, local, "id Int64, name String", "id", 0);
        String quoted = "`" + ShardedTable.DB + "`.`" + topic + "`";
        cluster.initiator().exec("CREATE TABLE " + quoted + " (id Int64, name String) ENGINE = Distributed('two', '"
                + ShardedTable.DB + "', '" + local + "', cityHash64(id))");
        h.stack.kafka().createTopic(topic, 1);
        EventProducer producer = new EventProducer(h.stack.kafka().bootstrapServers());
        List<String> v1 = new ArrayList<>();
        for (long id = 0; id < 100; id++) {
            v1.add(AutoEvolveTest.v1(id));
        }
        producer.produceRaw(topic, 0, v1);
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("topics.regex", "");
        o.put("errors.deadletterqueue.topic.name", topic + "-dlq");
        try {
            h.createConnector(connector, "clickhouse-sink-auto.json", o);
            h.awaitRows(topic, 100, connector);
            List<String> v2 = new ArrayList<>();
            for (long id = 100; id < 200; id++) {
                v2.add(AutoEvolveTest.v2(id));
            }
            producer.produceRaw(topic, 0, v2);
            String message = SinkHarness.causeLine(h.awaitFailure(connector, Duration.ofSeconds(90)));
            System.out.println("DistributedTargetCheckTest (auto.evolve without distributed DDL): " + message);
            String marker = "on every shard: ";
            assertTrue(message.contains("auto.evolve could not add the record's new columns to the local tables")
                    && message.contains(marker), message);
            String statement = message.substring(message.indexOf(marker) + marker.length()).trim();
            assertTrue(statement.startsWith("ALTER TABLE `" + ShardedTable.DB + "`.`" + local + "` ADD COLUMN IF NOT "
                    + "EXISTS `note` Nullable(String), ADD COLUMN IF NOT EXISTS `region` String DEFAULT 'eu'"), statement);
            assertEquals("0", cluster.initiator().query("SELECT count() FROM system.columns WHERE database = '"
                    + ShardedTable.DB + "' AND table = '" + topic + "' AND name = 'note'").trim(),
                    "the Distributed table is left as it was");
            for (int shard = 1; shard <= 2; shard++) {
                cluster.shard(shard).exec(statement);
            }
            h.rest().restartConnector(connector, true, true);
            // The restart is asynchronous: until the task runs again its status is still the failure above, which
            // awaitRows would take for a new one (as ExactlyOnceTableCheckTest waits after its restart).
            h.rest().waitForTasksRunning(connector, 1, Duration.ofSeconds(120));
            h.awaitRows(topic, 200, connector);
            assertEquals("1", cluster.initiator().query("SELECT count() FROM system.columns WHERE database = '"
                    + ShardedTable.DB + "' AND table = '" + topic + "' AND name = 'note'").trim(),
                    "the connector added the column to the Distributed table");
            long withNote = 0;
            for (int shard = 1; shard <= 2; shard++) {
                withNote += Long.parseLong(cluster.shard(shard).query("SELECT countIf(note = concat('n', toString(id))"
                        + " AND region = concat('r', toString(id % 3))) FROM `" + ShardedTable.DB + "`.`" + local + "`")
                        .trim());
            }
            assertEquals(100, withNote, "the new records land on the shards with their values");
            assertFalse(h.rest().connectorStatus(connector).anyFailed());
        } finally {
            h.deleteQuietly(connector);
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
