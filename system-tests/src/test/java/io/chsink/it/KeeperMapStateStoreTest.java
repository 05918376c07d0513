package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ClickHouseServer;
import io.chsink.it.stack.RowWatcher;
import io.chsink.it.stack.Stack;
import io.chsink.it.stack.ZooKeeperNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The KeeperMap branch of the exactly-once state table, for real: one ZooKeeper (a child JVM) and two embedded
 * ClickHouse instances A and B configured with it (keeper_map_path_prefix set), on the shared Kafka and Connect
 * worker. The shared stack's ClickHouse has no Keeper and keeps the ReplacingMergeTree case.
 * <ul>
 *   <li>On A, the connector creates its state table as a KeeperMap; the worker is SIGKILLed while an insert runs;
 *       after the restart the tasks load exactly the blocks that the store held beyond the committed offsets, rebuild
 *       them, and prune the committed ones; the events land once.
 *   <li>A connector on A fails an insert (A "leaves": a constraint refuses every row, after the block was recorded)
 *       and is reconfigured to B's URL, as a load balancer moving to another replica would. Its task on B opens the
 *       same KeeperMap (created on B, same Keeper path), finds A's recorded block and rebuilds it into B; its prune
 *       through B is seen through A. Each node has its own plain MergeTree (no ReplicatedMergeTree here: a rebuild
 *       of a block that had landed on A would land on B again, as no deduplication window is shared), and a
 *       Distributed table over both counts the whole.
 * </ul>
 */
class KeeperMapStateStoreTest {
    private static final String STATE_TABLE = "chsink_exactly_once_state";
    private static final String EXAMPLE = "clickhouse-sink-exactly-once.json";
    private static ZooKeeperNode zookeeper;
    private static ClickHouseServer a;
    private static ClickHouseServer b;
    /** The work dir of this class's ZooKeeper and ClickHouses. */
    private static Path dir;

    @BeforeAll
    static void startKeeperAndTwoClickHouses() {
        Assumptions.assumeTrue(System.getProperty("chsink.connect.url") == null
                && System.getenv("CHSINK_CONNECT_URL") == null, "kills the local worker; needs local ClickHouses");
        Stack.shared(); // Kafka and the Connect worker (its ClickHouse stays the Keeper-less one)
        dir = Stack.workDir("keeper");
        zookeeper = new ZooKeeperNode().start(dir.resolve("zookeeper"));
        a = ClickHouseServer.builder(dir.resolve("clickhouse-a")).zookeeper(zookeeper).start();
        b = ClickHouseServer.builder(dir.resolve("clickhouse-b")).zookeeper(zookeeper).cluster("pair", a).start();
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[] {b, a, zookeeper}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                System.err.println("KeeperMapStateStoreTest: cannot stop " + c + ": " + e);
            }
        }
    }

    /** How many times the worker kill is aimed at an insert before the test gives up (see the loop). */
    private static final int KILL_ATTEMPTS = 3;

    @Test
    void workerKilledDuringAnInsertRebuildsFromTheKeeperMap() throws Exception {
        long rows = 200_000; // room for up to three kills mid-stream
        long seed = 71;
        long t0 = System.nanoTime();
        SinkHarness h = new SinkHarness(a);
        String topic = SinkHarness.unique("km_crash");
        String connector = SinkHarness.unique("km_sink");
        Set<TopicPartition> partitions = createTopicAndTable(h, topic, a);
        Map<String, String> o = SinkHarness.overrides(topic, 2);
        o.put("flush.max.rows", "5000"); // 20 blocks or more: the kill meets inserts, and committed blocks lie behind it
        FaultInjector injector = new FaultInjector(h, connector, 2, List.of(topic), partitions, STATE_TABLE, seed,
                Duration.ofSeconds(5));
        try {
            h.createConnector(connector, EXAMPLE, o);
            // The second task's consumer may join seconds after the first took both partitions (the test broker's
            // group.initial.rebalance.delay.ms=0); that hand-over loads the store and prunes what was committed, which
            // would leave nothing committed in the store at the kill. The stream starts once the group is settled.
            h.awaitSettledGroup(connector, 2, Duration.ofSeconds(60));
            CompletableFuture<Long> producing = CompletableFuture.supplyAsync(() -> new EventProducer(
                    h.stack.kafka().bootstrapServers()).produce(topic, 2, new EventGenerator(seed), rows, true, null));
            RowWatcher watcher = new RowWatcher(a.http(), "`" + topic + "`");
            watcher.awaitRows(rows / 5, Duration.ofMinutes(3), Duration.ofSeconds(90),
                    new ConnectorFailure(h.rest(), connector), null);
            assertEquals("KeeperMap", engine(a));

            Path log = h.stack.connect().logFile();
            long mark = 0; // the log's size at the last kill, set in the loop
            // The kill must meet an insert whose block is recorded beyond the committed offsets. An insert seen
            // running may still finish and have its offsets committed before the SIGKILL lands (a fast machine):
            // then the worker is started again and the kill aimed at the next insert, at most three times.
            String running = "";
            long atKill = 0;
            Map<TopicPartition, Long> committed = Map.of();
            Map<TopicPartition, String> pending = Map.of();
            Map<TopicPartition, Long> prunable = Map.of();
            int attempts = 0;
            for (int attempt = 1; attempt <= KILL_ATTEMPTS && pending.isEmpty(); attempt++) {
                attempts = attempt;
                if (attempt > 1) {
                    System.out.printf("KeeperMapStateStoreTest: attempt %d missed (%s: nothing recorded beyond the"
                            + " committed offsets %s); again%n", attempt - 1, running, committed);
                    h.stack.connect().start();
                    h.rest().waitForTasksRunning(connector, 2, Duration.ofMinutes(3));
                }
                // Inserts 0.3 s longer while aiming (FaultInjector.slowInserts): one seen running is still running
                // at the kill.
                try (FaultInjector.SlowInserts slow = injector.slowInserts()) {
                    running = injector.awaitInsert();
                    for (int i = 0; i < 3 && !running.startsWith("insert into"); i++) {
                        running = injector.awaitInsert(); // 5 s each: a slow machine's stream may pause between blocks
                    }
                    assertTrue(running.startsWith("insert into"), "the kill must meet an insert: " + running);
                    mark = Files.size(log); // the loads after this kill's restart are the ones checked
                    assertEquals(137, h.stack.connect().kill(), "SIGKILL");
                }
                Thread.sleep(500); // what the dead worker had sent (a state write, an offset commit) is handled by now
                atKill = watcher.count();
                assertTrue(atKill < rows, "the kill must come mid-stream, but all rows were in already");
                committed = injector.committedOffsets();
                pending = pending(a, connector, partitions, committed);
                prunable = prunable(a, connector, partitions, committed);
            }
            assertTrue(!pending.isEmpty(), "the insert running at the kill is recorded beyond the committed offsets "
                    + committed + ": " + running + " (" + KILL_ATTEMPTS + " attempts)");
            // After a missed attempt the restarted tasks pruned what lay below their start: then nothing may be left.
            assertTrue(attempts > 1 || prunable.values().stream().mapToLong(Long::longValue).sum() > 0,
                    "blocks committed before the kill are still in the store: " + prunable);

            h.stack.connect().start();
            h.rest().waitForTasksRunning(connector, 2, Duration.ofMinutes(3));
            String restart = injector.inject(FaultInjector.Kind.TASK_RESTART).what(); // a second fault: a clean hand-over
            assertEquals(rows, producing.get().longValue());
            new RowWatcher(a.http(), "`" + topic + "`", "uniqExact(*)").awaitRows(rows, Duration.ofMinutes(3),
                    Duration.ofSeconds(90), new ConnectorFailure(h.rest(), connector), null);
            injector.awaitCommittedToEnd(Duration.ofMinutes(2));

            assertEquals(rows, h.scalar("SELECT count() FROM `" + topic + "`"));
            assertEquals(rows, h.scalar("SELECT uniqExact(*) FROM `" + topic + "`"));
            h.assertDistinctRowsAreTheDataset(topic, seed, rows);
            List<String> lines = WorkerLog.taskLines(log, mark, connector);
            int rebuilt = assertLoadedFromTheStore(lines, pending);
            Map<TopicPartition, Long> end = injector.endOffsets();
            for (TopicPartition tp : partitions) {
                if (committed.getOrDefault(tp, 0L) < end.get(tp)) { // records redelivered: the partition was loaded
                    assertEquals(0, countBefore(a, connector, tp, committed.getOrDefault(tp, 0L)),
                            tp + ": blocks before the offset committed at the kill are pruned");
                }
            }
            System.out.printf("KeeperMapStateStoreTest (worker kill): %d rows, %d at SIGKILL (%s); recorded beyond "
                    + "the committed offsets %s: %s; committed blocks pruned %s; %d \"Rebuilt\" lines; then %s; "
                    + "%.1f s%n", rows, atKill, running, committed, pending, prunable, rebuilt, restart,
                    (System.nanoTime() - t0) / 1e9);
        } finally {
            restartWorkerIfDown(h);
            h.deleteQuietly(connector);
        }
    }

    /** A failure between the kill and the restart must not leave the shared stack without its worker. */
    private static void restartWorkerIfDown(SinkHarness h) {
        if (!h.stack.connect().isRunning()) {
            h.stack.connect().start();
        }
    }

    @Test
    void blocksRecordedThroughOneInstanceAreRebuiltThroughAnother() throws Exception {
        long first = 40_000;
        long second = 20_000;
        long seed = 72;
        long t0 = System.nanoTime();
        SinkHarness h = new SinkHarness(a);
        String topic = SinkHarness.unique("km_move");
        String connector = SinkHarness.unique("km_sink");
        String all = topic + "_all";
        Set<TopicPartition> partitions = createTopicAndTable(h, topic, a);
        b.exec(EventsTable.createDedupSql(h.db, topic));
        b.exec("CREATE TABLE `" + all + "` AS `" + topic + "` ENGINE = Distributed(pair, default, `" + topic + "`)");
        EventGenerator generator = new EventGenerator(seed);
        EventProducer producer = new EventProducer(h.stack.kafka().bootstrapServers());
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("flush.max.rows", "5000");
        FaultInjector injector = new FaultInjector(h, connector, 1, List.of(topic), partitions, STATE_TABLE, seed,
                Duration.ofSeconds(10));
        try {
            producer.produce(topic, 2, generator, first, true, null);
            h.createConnector(connector, EXAMPLE, o);
            h.awaitRows(topic, first, connector);
            injector.awaitCommittedToEnd(Duration.ofMinutes(2));

            // A leaves: from now on its table refuses every block, after the block's composition was recorded.
            a.exec("ALTER TABLE `" + topic + "` ADD CONSTRAINT a_is_leaving CHECK 0 = 1");
            producer.produce(topic, 2, generator, second, true, null);
            String trace = h.awaitFailure(connector, Duration.ofMinutes(2));
            assertTrue(trace.contains("a_is_leaving"), SinkHarness.causeLine(trace));
            Map<TopicPartition, Long> committed = injector.committedOffsets();
            Map<TopicPartition, String> pending = pending(a, connector, partitions, committed);
            Map<TopicPartition, Long> prunable = prunable(a, connector, partitions, committed);
            assertTrue(!pending.isEmpty(), "the refused block is recorded beyond the committed offsets " + committed);
            assertTrue(prunable.values().stream().mapToLong(Long::longValue).sum() > 0,
                    "the first part's committed blocks are in the store: " + prunable);
            assertEquals("", engine(b), "B has no state table before the move");

            Path log = h.stack.connect().logFile();
            long mark = Files.size(log);
            Map<String, String> onB = new HashMap<>(o);
            onB.put("clickhouse.url", b.url());
            h.createConnector(connector, EXAMPLE, onB); // PUT config: the task restarts against B
            h.rest().waitForTasksRunning(connector, 1, Duration.ofMinutes(2));
            new RowWatcher(b.http(), "`" + all + "`").awaitRows(first + second, Duration.ofMinutes(3),
                    Duration.ofSeconds(90), new ConnectorFailure(h.rest(), connector), null);
            injector.awaitCommittedToEnd(Duration.ofMinutes(2));

            assertEquals("KeeperMap", engine(b), "the task on B created the state table as a KeeperMap");
            List<String> lines = WorkerLog.taskLines(log, mark, connector);
            assertTrue(lines.stream().anyMatch(l -> l.contains("ClickHouse sink task started: " + b.url())),
                    "the task after the move writes to B: " + lines);
            int rebuilt = assertLoadedFromTheStore(lines, pending);
            for (TopicPartition tp : partitions) { // both partitions got records of the second part
                assertEquals(0, countBefore(a, connector, tp, committed.getOrDefault(tp, 0L)),
                        tp + ": the prune through B is seen through A");
            }
            SinkHarness hb = new SinkHarness(b);
            assertEquals(first, h.scalar("SELECT count() FROM `" + topic + "`"), "A kept the first part, once");
            assertEquals(second, hb.scalar("SELECT count() FROM `" + topic + "`"),
                    "B holds the rebuilt block and the rest of the second part, once");
            assertEquals(first + second, hb.scalar("SELECT count() FROM `" + all + "`"));
            assertEquals(first + second, hb.scalar("SELECT uniqExact(*) FROM `" + all + "`"));
            hb.assertDistinctRowsAreTheDataset(all, seed, first + second);
            System.out.printf("KeeperMapStateStoreTest (A to B): %d rows on A, then refused there (%s); recorded "
                    + "through A beyond the committed offsets %s: %s; pruned through B %s; %d \"Rebuilt\" lines on B; "
                    + "Distributed count %d; %.1f s%n", first, SinkHarness.causeLine(trace), committed, pending,
                    prunable, rebuilt, first + second, (System.nanoTime() - t0) / 1e9);
        } finally {
            h.deleteQuietly(connector);
        }
    }

    /** max_block_size of the server of the reset test: a DELETE on a KeeperMap reads its matches in blocks of it. */
    private static final int BLOCK = 1_000;
    /** Recorded blocks before that reset: more than a block of them. */
    private static final int RECORDED = 3 * BLOCK;

    /**
     * A reset through Connect's REST API deletes every recorded block of the partition, also when there are more than
     * one DELETE removes on a server before ClickHouse's fix #112777 (a KeeperMap DELETE left the matched rows beyond
     * its first block of max_block_size rows, 65,409 by default, and reported success); an unpruned state of an
     * earlier connector version could hold that many. A third server, on the same ZooKeeper, reads in blocks of
     * {@value #BLOCK} rows (its profile), so that a few thousand rows show it without a Keeper request over
     * ZooKeeper's 1 MB limit. The test first measures what one DELETE does on this server (a probe table), then
     * fills the state with more recorded blocks than a block and resets.
     */
    @Test
    void aResetDeletesMoreRecordedBlocksThanOneKeeperMapDeleteRemoves() throws Exception {
        try (ClickHouseServer c = ClickHouseServer.builder(dir.resolve("clickhouse-c")).zookeeper(zookeeper)
                .profileSetting("max_block_size", String.valueOf(BLOCK)).start()) {
            SinkHarness h = new SinkHarness(c);
            String probe = SinkHarness.unique("km_delete_probe");
            c.exec("CREATE TABLE `" + probe + "` (key UInt64, v String) ENGINE = KeeperMap('/chsink_probe/" + probe
                    + "') PRIMARY KEY key");
            c.exec("INSERT INTO `" + probe + "` SELECT number, 'x' FROM numbers(" + RECORDED + ")");
            assertEquals(RECORDED, h.scalar("SELECT count() FROM `" + probe + "`"));
            c.exec("DELETE FROM `" + probe + "` WHERE 1");
            long leftByOneDelete = h.scalar("SELECT count() FROM `" + probe + "`");
            c.exec("DROP TABLE `" + probe + "` SYNC");

            String topic = SinkHarness.unique("km_reset");
            String connector = SinkHarness.unique("km_sink");
            Set<TopicPartition> partitions = createTopicAndTable(h, topic, c);
            FaultInjector injector = new FaultInjector(h, connector, 1, List.of(topic), partitions, STATE_TABLE, 73,
                    Duration.ofSeconds(10));
            try {
                new EventProducer(h.stack.kafka().bootstrapServers()).produce(topic, 2, new EventGenerator(73), 2_000,
                        true, null);
                h.createConnector(connector, EXAMPLE, SinkHarness.overrides(topic, 1));
                h.awaitRows(topic, 2_000, connector);
                injector.awaitCommittedToEnd(Duration.ofMinutes(2));
                h.rest().stopConnector(connector, Duration.ofSeconds(60));
                // recorded blocks of partition 0 beyond anything consumed, as an unpruned state would hold them
                c.exec("INSERT INTO `" + STATE_TABLE + "` SELECT concat('" + connector + "/" + topic + "/0/', "
                        + "toString(1000000000 + number * 10)), '" + connector + "', '" + topic + "', 0, "
                        + "1000000000 + number * 10, 1000000000 + number * 10 + 9, 'default', '" + topic + "', 10, 0, "
                        + "concat('t', toString(number)), 1 FROM numbers(" + RECORDED + ")");
                String blocks = "SELECT count() FROM `" + STATE_TABLE + "` WHERE connector = '" + connector
                        + "' AND first_offset >= 0";
                assertTrue(h.scalar(blocks) >= RECORDED, "the state holds the blocks before the reset");
                Path log = h.stack.connect().logFile();
                long mark = Files.size(log);

                h.rest().resetOffsets(connector);

                assertEquals(0, h.scalar(blocks), "every recorded block is gone after the reset");
                boolean repeated = WorkerLog.linesSince(log, mark).stream()
                        .anyMatch(l -> l.contains("DELETE statements to remove the rows of one"));
                if (leftByOneDelete > 0) {
                    assertTrue(repeated, "this server's KeeperMap DELETE left " + leftByOneDelete + " of " + RECORDED
                            + " rows, so the reset had to delete again, and says so in the log");
                }
                System.out.printf("KeeperMapStateStoreTest (reset): one DELETE of %d KeeperMap rows (blocks of %d) "
                        + "left %d on this server; the reset of %d recorded blocks left none (repeated DELETE "
                        + "logged: %s)%n", RECORDED, BLOCK, leftByOneDelete, RECORDED, repeated);
            } finally {
                h.deleteQuietly(connector);
            }
        }
    }

    /**
     * Asserts that for every partition with recorded blocks beyond its committed offset, the first load after
     * {@code lines} began said it found exactly those blocks; returns how many rebuilds were sealed.
     */
    private static int assertLoadedFromTheStore(List<String> lines, Map<TopicPartition, String> pending) {
        pending.forEach((tp, expected) -> {
            String line = lines.stream().filter(l -> l.contains("] " + tp + ": ") && l.contains(" recorded blocks from"))
                    .findFirst().orElseThrow(() -> new AssertionError(tp + ": no \"recorded blocks\" line in " + lines));
            assertTrue(line.contains("] " + tp + ": " + expected + " are rebuilt before new ones"),
                    "loaded what the store held (" + expected + "): " + line);
        });
        int rebuilt = (int) lines.stream().filter(l -> l.contains("] Rebuilt ")).count();
        int loaded = pending.values().stream().mapToInt(s -> Integer.parseInt(s.substring(0, s.indexOf(' ')))).sum();
        assertTrue(rebuilt >= loaded, rebuilt + " \"Rebuilt\" lines for " + loaded + " loaded blocks: " + lines);
        return rebuilt;
    }

    /** The topic (2 partitions) and its exactly-once target table on {@code s}; returns the partitions. */
    private static Set<TopicPartition> createTopicAndTable(SinkHarness h, String topic, ClickHouseServer s) {
        s.exec(EventsTable.createDedupSql(h.db, topic));
        h.stack.kafka().createTopic(topic, 2);
        return Set.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
    }

    private static String engine(ClickHouseServer s) {
        return s.query("SELECT engine FROM system.tables WHERE database = 'default' AND name = '" + STATE_TABLE + "'")
                .trim();
    }

    /**
     * Per partition with recorded blocks at or beyond what is handled (its committed offset, or its handled mark when
     * that is higher: records below it are dropped when redelivered), what the task's load log line must say:
     * {@code "<n> recorded blocks from offset <first> to <last>"}.
     */
    private static Map<TopicPartition, String> pending(ClickHouseServer s, String connector,
            Set<TopicPartition> partitions, Map<TopicPartition, Long> committed) {
        Map<TopicPartition, String> out = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            long handled = Math.max(committed.getOrDefault(tp, 0L), Long.parseLong(s.query("SELECT max(last_offset) "
                    + "FROM `" + STATE_TABLE + "` WHERE " + where(connector, tp) + " AND first_offset = -2").trim()));
            String[] f = s.query("SELECT count(), min(first_offset), max(last_offset) FROM `" + STATE_TABLE
                    + "` WHERE " + where(connector, tp) + " AND first_offset >= 0 AND last_offset >= " + handled
                    + " FORMAT TSV").trim().split("\t");
            if (!f[0].equals("0")) {
                out.put(tp, f[0] + " recorded blocks from offset " + f[1] + " to " + f[2]);
            }
        }
        return out;
    }

    /** Per partition, the recorded blocks wholly before its committed offset: the ones a load prunes. */
    private static Map<TopicPartition, Long> prunable(ClickHouseServer s, String connector,
            Set<TopicPartition> partitions, Map<TopicPartition, Long> committed) {
        Map<TopicPartition, Long> out = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            out.put(tp, countBefore(s, connector, tp, committed.getOrDefault(tp, 0L)));
        }
        return out;
    }

    private static long countBefore(ClickHouseServer s, String connector, TopicPartition tp, long offset) {
        return Long.parseLong(s.query("SELECT count() FROM `" + STATE_TABLE + "` WHERE " + where(connector, tp)
                + " AND first_offset >= 0 AND last_offset < " + offset).trim());
    }

    private static String where(String connector, TopicPartition tp) {
        return "connector = '" + connector + "' AND topic = '" + tp.topic() + "' AND partition = " + tp.partition();
    }
}
