package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.stack.ClickHouseCluster;
import io.chsink.it.stack.ClickHouseServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The test cluster of {@link ClickHouseCluster}: an initiator and two shards (embedded servers on one ZooKeeper).
 * The initiator's cluster holds the two shards and not itself; ClickHouse deduplicates a synchronous insert through
 * a Distributed table shard by shard (a hashed key sent twice with its token lands once) and an insert with
 * {@code insert_shard_id} lands whole on that shard, once; a shard SIGKILLed and started again keeps its rows and
 * ports and the initiator reaches it again; a KeeperMap written through one server is read through another.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClickHouseClusterTest {
    private static final String COLUMNS = "id UInt64, v String";
    private ClickHouseCluster cluster;

    @BeforeAll
    void start() throws Exception {
        cluster = ClickHouseCluster.start(ClickHouseServerTest.workDir(getClass()), "two", 2);
    }

    @AfterAll
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theClusterIsTheTwoShardsWithoutTheInitiator() {
        String shards = cluster.initiator().query("SELECT shard_num, port, shard_weight FROM system.clusters WHERE "
                + "cluster = 'two' ORDER BY shard_num FORMAT TSV").trim();
        assertEquals("1\t" + cluster.shard(1).tcpPort() + "\t1\n2\t" + cluster.shard(2).tcpPort() + "\t1", shards);
        String ports = cluster.initiator().query("SELECT shardNum(), tcpPort() FROM cluster('two', system.one) "
                + "ORDER BY 1 FORMAT TSV").trim();
        assertEquals("1\t" + cluster.shard(1).tcpPort() + "\n2\t" + cluster.shard(2).tcpPort(), ports);
        assertEquals("127.0.0.1:" + cluster.shard(2).tcpPort(), cluster.address(2));
    }

    @Test
    void hashedInsertsWithATokenLandOnceShardByShard() {
        String local = SinkHarness.unique("cl_local");
        String dist = SinkHarness.unique("cl_dist");
        cluster.createLocalTables("default", local, COLUMNS, "id", 100);
        cluster.createDistributed("default", dist, COLUMNS, local, "cityHash64(id)");
        String insert = "INSERT INTO `" + dist + "` SETTINGS distributed_foreground_insert = 1, "
                + "insert_deduplication_token = 'tok-1' SELECT number, 'x' FROM numbers(1000)";
        cluster.initiator().exec(insert);
        cluster.initiator().exec(insert);
        long one = count(cluster.shard(1), local);
        long two = count(cluster.shard(2), local);
        assertEquals(1000, one + two, "the same block twice lands once in all");
        assertTrue(one > 0 && two > 0, "both shards took a part: " + one + " + " + two);
        for (int s = 1; s <= 2; s++) {
            assertEquals(0, Long.parseLong(cluster.shard(s).query("SELECT countIf(cityHash64(id) % 2 != " + (s - 1)
                    + ") FROM `" + local + "`").trim()), "shard " + s + " holds only the ids cityHash64 sends it");
        }
    }

    @Test
    void anInsertWithAShardIdLandsWholeOnThatShardOnce() {
        String local = SinkHarness.unique("cl_local");
        String dist = SinkHarness.unique("cl_dist");
        cluster.createLocalTables("default", local, COLUMNS, "id", 100);
        cluster.createDistributed("default", dist, COLUMNS, local, "rand()");
        String insert = "INSERT INTO `" + dist + "` SETTINGS distributed_foreground_insert = 1, insert_shard_id = 2, "
                + "insert_deduplication_token = 'tok-2' SELECT number, 'x' FROM numbers(500)";
        cluster.initiator().exec(insert);
        cluster.initiator().exec(insert);
        assertEquals(0, count(cluster.shard(1), local));
        assertEquals(500, count(cluster.shard(2), local));
    }

    @Test
    void aKilledShardComesBackWithItsRowsOnItsPorts() {
        String local = SinkHarness.unique("cl_local");
        String dist = SinkHarness.unique("cl_dist");
        cluster.createLocalTables("default", local, COLUMNS, "id", 100);
        cluster.createDistributed("default", dist, COLUMNS, local, "cityHash64(id)");
        cluster.initiator().exec("INSERT INTO `" + dist + "` SETTINGS distributed_foreground_insert = 1 "
                + "SELECT number, 'x' FROM numbers(1000)");
        long before = count(cluster.shard(2), local);
        int port = cluster.shard(2).tcpPort();
        assertEquals(137, cluster.shard(2).kill(), "SIGKILL");
        cluster.shard(2).start();
        assertEquals(port, cluster.shard(2).tcpPort());
        assertEquals(before, count(cluster.shard(2), local));
        assertEquals(1000, Long.parseLong(cluster.initiator().query("SELECT count() FROM `" + dist + "`").trim()),
                "the initiator reads the restarted shard again");
    }

    @Test
    void aKeeperMapIsSharedByTheServers() {
        String km = SinkHarness.unique("cl_km");
        String ddl = "CREATE TABLE `" + km + "` (k UInt64, v String) ENGINE = KeeperMap('/chsink_cluster_test/" + km
                + "') PRIMARY KEY k";
        cluster.initiator().exec(ddl);
        cluster.shard(1).exec(ddl);
        cluster.initiator().exec("INSERT INTO `" + km + "` VALUES (1, 'a'), (2, 'b')");
        assertEquals("2", cluster.shard(1).query("SELECT count() FROM `" + km + "`").trim());
    }

    private static long count(ClickHouseServer s, String table) {
        return Long.parseLong(s.query("SELECT count() FROM `" + table + "`").trim());
    }
}
