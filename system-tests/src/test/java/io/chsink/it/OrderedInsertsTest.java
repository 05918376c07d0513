package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.RowWatcher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * at_least_once into a ReplacingMergeTree without a version column, where the row inserted last wins: the task
 * gives that table one insert in flight at a time (and says so), so that successive updates of the same keys,
 * spread over many blocks of one partition, leave each key at its last update. A MergeTree table of the same
 * connector keeps two inserts in flight.
 *
 * <p>The outcome alone could pass by luck (two inserts in flight commit out of order only sometimes; blocks
 * alternate heavy and light to make that likelier); the log line and the unit tests of InsertOrder and
 * InsertPipeline are what fail when the limit is not applied.
 */
class OrderedInsertsTest {
    private static final int KEYS = 50;
    private static final int ROUNDS = 200;
    private static final int BLOCK_ROWS = 100; // two rounds per block
    private final SinkHarness h = new SinkHarness();

    @Test
    void aReplacingTableWithoutVersionGetsItsBlocksInOrderAndEachKeyEndsAtItsLastUpdate() throws Exception {
        String topic = SinkHarness.unique("ordered");
        String plain = SinkHarness.unique("unordered");
        String connector = SinkHarness.unique("sink");
        String table = "`" + h.db + "`.`" + topic + "`";
        h.stack.clickhouse().exec("CREATE TABLE " + table + " (id UInt32, v UInt32, pad String) "
                + "ENGINE = ReplacingMergeTree ORDER BY id");
        h.stack.clickhouse().exec("CREATE TABLE `" + h.db + "`.`" + plain + "` (id UInt32, v UInt32, pad String) "
                + "ENGINE = MergeTree ORDER BY id");
        // No background merges while the test runs: every block stays its own part, and FINAL alone applies the
        // engine's rule (the row of the part inserted last wins) to all parts at once. (Each block is still
        // replaced within itself on insert, optimize_on_insert: its last round of each key is what it adds.)
        h.stack.clickhouse().exec("SYSTEM STOP MERGES " + table);
        h.stack.kafka().createTopic(topic, 1);
        h.stack.kafka().createTopic(plain, 1);
        Map<String, String> o = SinkHarness.overrides(topic + "," + plain, 1);
        o.put("flush.max.rows", Integer.toString(BLOCK_ROWS));
        o.put("flush.interval.ms", "1000");
        o.put("value.converter.schemas.enable", "false");
        Path log = h.stack.connect().logFile();
        long mark = Files.size(log);
        try {
            h.createConnector(connector, "clickhouse-sink.json", o);
            List<String> values = new ArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                // Blocks alternate heavy and light: a light block sent while a heavy one is still being inserted
                // would commit first if the two were in flight together.
                String pad = (round / 2) % 2 == 0 ? "x".repeat(4000) : "";
                for (int id = 0; id < KEYS; id++) {
                    values.add("{\"id\":" + id + ",\"v\":" + round + ",\"pad\":\"" + pad + "\"}");
                }
            }
            EventProducer producer = new EventProducer(h.stack.kafka().bootstrapServers());
            producer.produceRaw(topic, 0, values);
            producer.produceRaw(plain, 0, values.subList(0, 10));
            int rows = KEYS * ROUNDS;
            // The last block holds the last round; the blocks before it landed before it (or are in flight with
            // it, were the table not limited to one insert: the pause lets such a straggler land too).
            new RowWatcher(h.ch(), table, "countIf(v = " + (ROUNDS - 1) + ")").awaitRows(KEYS, Duration.ofMinutes(5),
                    Duration.ofSeconds(90), new ConnectorFailure(h.rest(), connector), null);
            h.awaitRows(plain, 10, connector);
            Thread.sleep(2000);

            List<String> lines = WorkerLog.taskLines(log, mark, connector);
            String ordered = "Table " + h.db + "." + topic + " has engine ReplacingMergeTree: one insert in flight at "
                    + "a time, so that a partition's blocks land in order";
            assertEquals(1, lines.stream().filter(l -> l.contains(ordered)).count(),
                    "the ordered table's limit is logged once: " + lines);
            String unordered = "Table " + h.db + "." + plain + " has engine MergeTree: up to 2 inserts in flight";
            assertTrue(lines.stream().anyMatch(l -> l.contains(unordered)), "the MergeTree keeps two: " + lines);

            long parts = h.scalar("SELECT count() FROM system.parts WHERE database = '" + h.db + "' AND table = '"
                    + topic + "' AND active");
            assertTrue(parts >= rows / BLOCK_ROWS, "many blocks, each its own part: " + parts);
            assertEquals(KEYS, h.scalar("SELECT count() FROM " + table + " FINAL"));
            assertEquals(0, h.scalar("SELECT countIf(v != " + (ROUNDS - 1) + ") FROM " + table + " FINAL"),
                    "every key ends at its last update");
            System.out.printf("OrderedInsertsTest: %d rows in %d parts, each key at round %d%n",
                    h.scalar("SELECT count() FROM " + table), parts, ROUNDS - 1);
        } finally {
            h.deleteQuietly(connector);
            h.stack.clickhouse().exec("SYSTEM START MERGES " + table);
        }
    }
}
