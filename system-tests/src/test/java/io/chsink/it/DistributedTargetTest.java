package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.stack.ClickHouseCluster;
import io.chsink.it.stack.RowWatcher;
import io.chsink.it.stack.Stack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Distributed target on a cluster of an initiator and two shards ({@link ClickHouseCluster}, one ZooKeeper, so
 * the exactly-once state is a KeeperMap every server shares), written by the packaged plugin in the shared Connect
 * worker, while shard 2 is SIGKILLed during an insert and restarted, under exactly_once the Connect worker (the
 * restarted task rebuilds the block in flight), and then the initiator ({@link ClusterFaults});
 * {@code -Dchsink.dist.rows=N} and {@code -Dchsink.dist.shard.kills=K} (shards 2, 1, 2, ... in turn) scale it up.
 * Each fault is proven from the servers' query logs and the worker log: the insert the kill met failed on the
 * initiator (naming the killed shard), the connector logged the failed insert, and under exactly_once the same
 * token came again: with {@code cityHash64(id)}, shard 1 had committed its part of that block before shard 2 was
 * killed and deduplicated the retry while shard 2 wrote its part then; with {@code rand()} the block went whole to one
 * shard ({@code insert_shard_id}), the same one again, also when rebuilt after the worker kill. In the end, read from each shard directly:
 * <ul>
 *   <li>exactly_once: count() and uniqExact(id) over the shards are both N, every id 0..N-1 once (so no id on two
 *   shards); with cityHash64(id) every row on the shard the hash names; with rand() every block's rows (its
 *   token's offset range) whole on one shard;</li>
 *   <li>at_least_once: every id 0..N-1 at least once.</li>
 * </ul>
 * Every insert into the Distributed table was synchronous (distributed_foreground_insert), so the offsets the
 * connector committed mean rows on the shards: the counts are read right after the last commit, without waiting.
 * Without a sharding key (and no fault) every block goes whole to one shard too.
 */
class DistributedTargetTest {
    /** Events per run: {@code -Dchsink.dist.rows=N}. */
    private static final long ROWS = Long.getLong("chsink.dist.rows", 40_000);
    /** Shard kills per run before the initiator's, shards 2, 1, 2, ... in turn: {@code -Dchsink.dist.shard.kills=K}. */
    private static final int SHARD_KILLS = Integer.getInteger("chsink.dist.shard.kills", 1);
    private static final String CLUSTER = "two";
    private static ClickHouseCluster cluster;

    @BeforeAll
    static void startCluster() {
        Assumptions.assumeTrue(System.getProperty("chsink.connect.url") == null
                && System.getenv("CHSINK_CONNECT_URL") == null, "kills local ClickHouse servers");
        Stack.shared();
        cluster = ClickHouseCluster.start(Stack.workDir("distributed-target"), CLUSTER, 2);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void exactlyOnceWithAHashedKeyUnderShardAndInitiatorKills() throws Exception {
        new Run(true, "cityHash64(id)").go();
    }

    @Test
    void exactlyOnceWithRandUnderShardAndInitiatorKills() throws Exception {
        new Run(true, "rand()").go();
    }

    @Test
    void atLeastOnceWithRandUnderShardAndInitiatorKills() throws Exception {
        new Run(false, "rand()").go();
    }

    @Test
    void atLeastOnceWithAHashedKeyUnderShardAndInitiatorKills() throws Exception {
        new Run(false, "cityHash64(id)").go();
    }

    /**
     * No sharding key (allowed by ClickHouse only with one shard for inserts without insert_shard_id): under
     * exactly_once every block goes whole to one shard, both shards take blocks, every row lands once.
     */
    @Test
    void exactlyOnceWithoutAShardingKeySendsWholeBlocks() throws Exception {
        long rows = 10_000;
        SinkHarness h = new SinkHarness(cluster.initiator());
        String name = SinkHarness.unique("eo_nokey");
        String connector = SinkHarness.unique("dist_sink");
        ShardedTable table = new ShardedTable(cluster, name).create(null, 1000);
        h.stack.kafka().createTopic(name, 2);
        Map<String, String> o = SinkHarness.overrides(name, 1);
        o.putAll(ShardedTable.TRANSFORM);
        o.put("flush.max.rows", "500");
        try (IdStream stream = new IdStream(h.stack.kafka().bootstrapServers(), name, 2, rows)) {
            assertEquals(rows, stream.finish());
            h.createConnector(connector, "clickhouse-sink-exactly-once.json", o);
            h.awaitCommittedToEnd(connector, Set.of(new TopicPartition(name, 0), new TopicPartition(name, 1)),
                    Duration.ofMinutes(2));
            long[] count = table.perShard("count()");
            assertEquals(rows, Arrays.stream(count).sum(), "count() over the shards " + Arrays.toString(count));
            assertEquals(rows, table.overShards("uniqExact(id)"));
            assertTrue(count[0] > 0 && count[1] > 0, "both shards take blocks: " + Arrays.toString(count));
            List<InsertLog.Entry> inserts = InsertLog.of(cluster.initiator(), ShardedTable.DB, name);
            assertTrue(!inserts.isEmpty() && inserts.stream().allMatch(e -> !e.shardId().isEmpty() && e.foreground()),
                    "every insert synchronous, whole to one shard (insert_shard_id): " + inserts);
            List<String> tokens = ShardedTable.blockTokens(inserts.stream().filter(e -> !e.failed())
                    .map(InsertLog.Entry::token).distinct().toList(), name);
            assertTrue(tokens.size() >= 10, "blocks to check: " + tokens.size());
            List<String> split = table.blocksNotWholeOnOneShard(tokens);
            assertTrue(split.isEmpty(), split.size() + " of " + tokens.size() + " blocks not whole on one shard: " + split);
            System.out.printf("DistributedTargetTest %s (exactly_once, no sharding key): %d rows, per shard %s, %d "
                    + "blocks whole on one shard%n", name, rows, Arrays.toString(count), tokens.size());
        } finally {
            h.deleteQuietly(connector);
        }
    }

    /** One stream into one Distributed table under the two kills, and its checks. */
    private static final class Run {
        final boolean exactlyOnce;
        final String key;
        final boolean hashed;
        final SinkHarness h = new SinkHarness(cluster.initiator());
        final String name;
        final String connector;
        final ShardedTable table;
        final Path log = h.stack.connect().logFile();
        /** The initiator's ended inserts into the Distributed table, gathered before its kill and at the end. */
        final List<InsertLog.Entry> initiatorInserts = new ArrayList<>();
        final List<String> proofs = new ArrayList<>();

        Run(boolean exactlyOnce, String key) {
            this.exactlyOnce = exactlyOnce;
            this.key = key;
            this.hashed = key.startsWith("cityHash64");
            this.name = SinkHarness.unique((exactlyOnce ? "eo" : "alo") + (hashed ? "_hash" : "_rand"));
            this.connector = SinkHarness.unique("dist_sink");
            this.table = new ShardedTable(cluster, name);
        }

        void go() throws Exception {
            long t0 = System.nanoTime();
            table.create(key, 1000);
            h.stack.kafka().createTopic(name, 2);
            Set<TopicPartition> partitions = Set.of(new TopicPartition(name, 0), new TopicPartition(name, 1));
            Map<String, String> o = SinkHarness.overrides(name, 1);
            o.putAll(ShardedTable.TRANSFORM);
            o.put("flush.max.rows", "1000");
            o.put("flush.interval.ms", "500");
            ClusterFaults faults = new ClusterFaults(table, Duration.ofSeconds(20));
            try (IdStream stream = new IdStream(h.stack.kafka().bootstrapServers(), name, 2, ROWS)) {
                h.createConnector(connector, exactlyOnce ? "clickhouse-sink-exactly-once.json" : "clickhouse-sink.json", o);
                h.rest().waitForTasksRunning(connector, 1, Duration.ofMinutes(2));
                stream.pace(Math.max(1_200, ROWS / 30), ROWS - 4_000);
                RowWatcher rows = new RowWatcher(cluster.initiator().http(), table.quotedName());
                rows.awaitRows(ROWS / 10, Duration.ofMinutes(2), Duration.ofSeconds(60),
                        new ConnectorFailure(h.rest(), connector), null);

                for (int k = 0; k < SHARD_KILLS; k++) {
                    long markA = Files.size(log);
                    ClusterFaults.Kill a = faults.killShardMidInsert(k % 2 == 0 ? 2 : 1, Duration.ofSeconds(1));
                    System.out.println(name + ": " + a.what());
                    assertTrue(a.hit(), a.what());
                    proveShardKill(a, markA);
                    long now = rows.count();
                    rows.awaitRows(now + 1_000, Duration.ofMinutes(2), Duration.ofSeconds(60),
                            new ConnectorFailure(h.rest(), connector), null); // flowing again
                }
                if (exactlyOnce) {
                    long markW = Files.size(log);
                    ClusterFaults.Kill w = faults.killWorkerMidInsert(h.stack.connect());
                    System.out.println(name + ": " + w.what());
                    assertTrue(w.hit(), w.what());
                    h.rest().waitForTasksRunning(connector, 1, Duration.ofMinutes(3));
                    proveWorkerKill(w, markW);
                    long now = rows.count();
                    rows.awaitRows(now + 1_000, Duration.ofMinutes(2), Duration.ofSeconds(90),
                            new ConnectorFailure(h.rest(), connector), null); // flowing again
                }
                initiatorInserts.addAll(InsertLog.of(cluster.initiator(), ShardedTable.DB, name));
                long markB = Files.size(log);
                ClusterFaults.Kill b = faults.killInitiatorMidInsert(Duration.ofSeconds(1));
                System.out.println(name + ": " + b.what());
                assertTrue(b.hit(), b.what());

                assertEquals(ROWS, stream.finish());
                h.awaitCommittedToEnd(connector, partitions, Duration.ofMinutes(3));
                long[] count = table.perShard("count()"); // right after the commit: synchronous inserts
                long[] distinct = table.perShard("uniqExact(id)");
                proveInitiatorKill(b, markB);
                initiatorInserts.addAll(InsertLog.of(cluster.initiator(), ShardedTable.DB, name));
                verify(count, distinct);
                System.out.printf("DistributedTargetTest %s (%s, %s): %d rows, per shard count() %s uniqExact(id) %s;"
                        + " %d inserts into the Distributed table logged by the initiator; %.1f s%n  %s%n", name,
                        exactlyOnce ? "exactly_once" : "at_least_once", key, ROWS, Arrays.toString(count),
                        Arrays.toString(distinct), initiatorInserts.size(), (System.nanoTime() - t0) / 1e9,
                        String.join("\n  ", proofs));
            } finally {
                if (!h.stack.connect().isRunning()) {
                    h.stack.connect().start(); // the shared worker outlives a failure between kill and restart
                }
                for (int s = 0; s <= cluster.shardCount(); s++) {
                    io.chsink.it.stack.ClickHouseServer server = s == 0 ? cluster.initiator() : cluster.shard(s);
                    if (!server.isRunning()) {
                        server.start();
                    }
                }
                h.deleteQuietly(connector);
            }
        }

        /**
         * The task restarted after the worker kill rebuilt the block in flight and sent it with its recorded token,
         * through the initiator again (with rand(), to the same shard), and the shard that ran it saw the token again.
         */
        void proveWorkerKill(ClusterFaults.Kill w, long mark) throws Exception {
            InsertLog.Entry resent = awaitEntry(cluster.initiator(), name, e -> e.token().equals(w.token())
                    && !e.failed() && !e.queryId().equals(w.initialQueryId()), "the rebuilt block's insert, token "
                    + w.token());
            List<InsertLog.Entry> sent = InsertLog.withToken(InsertLog.of(cluster.initiator(), ShardedTable.DB, name),
                    w.token());
            long rebuilt = WorkerLog.taskLines(log, mark, connector).stream().filter(l -> l.contains("] Rebuilt "))
                    .count();
            assertTrue(rebuilt > 0, "the restarted task rebuilt the blocks in flight");
            if (!hashed) {
                assertTrue(sent.stream().allMatch(e -> e.shardId().equals(String.valueOf(w.shard()))),
                        "the rebuilt block went whole to shard " + w.shard() + " again: " + sent);
            }
            List<InsertLog.Entry> there = InsertLog.withToken(InsertLog.of(cluster.shard(w.shard()), ShardedTable.DB,
                    table.local), w.token());
            assertTrue(there.stream().anyMatch(e -> e.initialQueryId().equals(w.initialQueryId()))
                    && there.stream().anyMatch(e -> e.initialQueryId().equals(resent.queryId())),
                    "shard " + w.shard() + " ran the token before the kill and again after it: " + there);
            proofs.add("worker kill: " + rebuilt + " blocks rebuilt; shard " + w.shard() + " saw the token twice: "
                    + there);
        }

        /**
         * The insert the shard kill met failed on the initiator, naming the shard; the connector logged the failure;
         * under exactly_once its token landed later, and with the hashed key the other shard deduplicated it (it had
         * committed its part) while the killed shard wrote its part only then; with rand() it went to the killed shard
         * each time.
         */
        void proveShardKill(ClusterFaults.Kill a, long mark) throws Exception {
            int killed = a.shard();
            int other = 3 - killed;
            String address = cluster.address(killed);
            InsertLog.Entry met = awaitEntry(cluster.initiator(), name, e -> e.queryId().equals(a.initialQueryId()),
                    "the initiator's insert " + a.initialQueryId() + " met by the kill");
            assertTrue(met.failed() && met.exception().contains(address), "the insert met by the kill failed, naming "
                    + address + ": " + met);
            proofs.add("shard kill: initiator " + met);
            proofs.add("shard kill: connector logged " + awaitFailedInsertLine(mark));
            if (!exactlyOnce) {
                return;
            }
            assertFalse(a.token().isEmpty(), "exactly_once inserts carry a token: " + a);
            InsertLog.Entry retried = awaitEntry(cluster.initiator(), name,
                    e -> e.token().equals(a.token()) && !e.failed(), "the retry of token " + a.token());
            proofs.add("shard kill: retried with the same token: " + retried);
            List<InsertLog.Entry> there = InsertLog.withToken(InsertLog.of(cluster.shard(killed), ShardedTable.DB,
                    table.local), a.token());
            assertTrue(there.stream().anyMatch(e -> !e.failed() && e.writtenRows() > 0 && e.duplicatedBlocks() == 0),
                    "shard " + killed + " had not committed the block at its kill: the retry wrote it there: " + there);
            if (hashed) {
                List<InsertLog.Entry> survivor = InsertLog.withToken(InsertLog.of(cluster.shard(other), ShardedTable.DB,
                        table.local), a.token());
                assertTrue(survivor.stream().anyMatch(e -> !e.failed() && e.writtenRows() > 0
                        && e.duplicatedBlocks() == 0) && survivor.stream().anyMatch(e -> !e.failed()
                        && e.duplicatedBlocks() > 0), "shard " + other + " committed its part before shard " + killed
                        + "'s kill and deduplicated the retry: " + survivor);
                proofs.add("shard kill: shard " + other + " saw the token twice: " + survivor);
            } else {
                List<InsertLog.Entry> sent = InsertLog.withToken(InsertLog.of(cluster.initiator(), ShardedTable.DB, name),
                        a.token());
                assertTrue(sent.stream().allMatch(e -> e.shardId().equals(String.valueOf(killed))),
                        "the block went whole to shard " + killed + ", each time (insert_shard_id): " + sent);
            }
            proofs.add("shard kill: shard " + killed + " after its restart: " + there);
        }

        /**
         * The connector logged the failed insert the initiator kill met; under exactly_once the shard that ran it saw
         * its token again, from a later query of the restarted initiator.
         */
        void proveInitiatorKill(ClusterFaults.Kill b, long mark) throws Exception {
            proofs.add("initiator kill: connector logged " + awaitFailedInsertLine(mark));
            if (!exactlyOnce) {
                return;
            }
            List<InsertLog.Entry> seen = InsertLog.withToken(InsertLog.of(cluster.shard(b.shard()), ShardedTable.DB,
                    table.local), b.token());
            assertTrue(seen.stream().anyMatch(e -> e.initialQueryId().equals(b.initialQueryId()))
                    && seen.stream().anyMatch(e -> !e.failed() && !e.initialQueryId().equals(b.initialQueryId())),
                    "shard " + b.shard() + " ran token " + b.token() + " through the killed initiator and again through "
                    + "the restarted one: " + seen);
            proofs.add("initiator kill: shard " + b.shard() + " saw the token twice: " + seen);
        }

        void verify(long[] count, long[] distinct) {
            long total = Arrays.stream(count).sum();
            assertEquals(ROWS, table.overShards("uniqExact(id)"), "every id over the shards");
            assertEquals(0, table.overShards("min(id)"));
            assertEquals(ROWS - 1, table.overShards("max(id)"));
            if (exactlyOnce) {
                assertEquals(ROWS, total, "count() over the shards, per shard " + Arrays.toString(count));
                assertEquals(ROWS, Arrays.stream(distinct).sum(), "uniqExact(id) summed over the shards: no id on two"
                        + " shards, per shard " + Arrays.toString(distinct));
            } else {
                assertTrue(total >= ROWS, "count() over the shards " + total);
            }
            for (int s = 1; s <= cluster.shardCount(); s++) {
                assertTrue(count[s - 1] > 0, "shard " + s + " holds rows: " + Arrays.toString(count));
                if (hashed) {
                    assertEquals(0, table.misplacedByHash(s), "rows on shard " + s + " that cityHash64(id) sends elsewhere");
                }
            }
            assertFalse(initiatorInserts.isEmpty(), "the initiator logged the connector's inserts");
            assertTrue(initiatorInserts.stream().allMatch(InsertLog.Entry::foreground),
                    "every insert into the Distributed table is synchronous (distributed_foreground_insert=1): "
                            + initiatorInserts.stream().filter(e -> !e.foreground()).findFirst().orElse(null));
            if (exactlyOnce && hashed) {
                assertTrue(initiatorInserts.stream().allMatch(e -> e.shardId().isEmpty()),
                        "a deterministic key goes through the Distributed table's own split, no insert_shard_id");
            }
            if (exactlyOnce && !hashed) {
                assertTrue(initiatorInserts.stream().allMatch(e -> !e.shardId().isEmpty()),
                        "with rand() every block goes whole to one shard (insert_shard_id): " + initiatorInserts.stream()
                                .filter(e -> e.shardId().isEmpty()).findFirst().orElse(null));
                List<String> tokens = ShardedTable.blockTokens(initiatorInserts.stream().filter(e -> !e.failed())
                        .map(InsertLog.Entry::token).distinct().toList(), name);
                assertTrue(tokens.size() >= 10, "blocks to check: " + tokens.size());
                List<String> split = table.blocksNotWholeOnOneShard(tokens);
                assertTrue(split.isEmpty(), split.size() + " of " + tokens.size() + " blocks not whole on one shard: "
                        + split.subList(0, Math.min(5, split.size())));
                proofs.add(tokens.size() + " blocks checked whole on one shard");
            }
        }

        /** The connector's "Insert of N rows into ... failed (attempt k)" line about this table after {@code mark}. */
        String awaitFailedInsertLine(long mark) throws Exception {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (true) {
                String line = WorkerLog.linesSince(log, mark).stream()
                        .filter(l -> l.contains("Insert of ") && l.contains(name) && l.contains(" failed (attempt"))
                        .findFirst().orElse(null);
                if (line != null) {
                    return line.length() > 400 ? line.substring(0, 400) + "..." : line;
                }
                String failed = new ConnectorFailure(h.rest(), connector).get();
                assertEquals(null, failed == null ? null : SinkHarness.causeLine(failed),
                        "the connector failed on the kill instead of retrying the insert");
                assertTrue(System.nanoTime() < deadline, "the connector logged no failed insert into " + name
                        + " after the kill");
                Thread.sleep(250);
            }
        }

        /** Waits (60 s) for an ended insert into {@code table} on {@code server} that {@code which} accepts. */
        InsertLog.Entry awaitEntry(io.chsink.it.stack.ClickHouseServer server, String table,
                Predicate<InsertLog.Entry> which, String what) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (true) {
                List<InsertLog.Entry> all = InsertLog.of(server, ShardedTable.DB, table);
                InsertLog.Entry e = all.stream().filter(which).findFirst().orElse(null);
                if (e != null) {
                    return e;
                }
                assertTrue(System.nanoTime() < deadline, "not in the query log within 60 s: " + what + "; " + all);
                Thread.sleep(500);
            }
        }
    }
}
