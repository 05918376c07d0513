package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.events.CheckLine;
import io.chsink.it.events.Event;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.EventProducer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * exactly_once and offsets moved through Connect's REST API (KIP-875): the connector lands N events exactly;
 * stopped, its offsets reset (DELETE) and resumed, it lands every event once more (2N rows, N distinct, each
 * exactly twice): the re-ingest is not taken for a replay of the first one; stopped again, one partition moved
 * back to offset K (PATCH) and resumed, exactly that partition's records from K land once more. Connect calls
 * the connector's alterOffsets for both requests (one log line per altered partition, and Connect's answer says
 * the connector handled them).
 */
class OffsetsResetTest {
    private static final String STATE_TABLE = "chsink_exactly_once_state";
    private static final int PARTITIONS = 2;
    private final SinkHarness h = new SinkHarness();

    @Test
    void resetAndAlteredOffsetsAreIngestedAgainExactlyOnce() throws Exception {
        long n = 20_000;
        long seed = 41;
        long k = 7_777; // partition 0 goes back to here (inside a block: blocks hold up to 3,000 rows)
        String topic = SinkHarness.unique("eo_offsets");
        String connector = SinkHarness.unique("eo_sink");
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        Map<TopicPartition, Long> end = Map.of(p0, n / PARTITIONS, p1, n / PARTITIONS);
        h.stack.clickhouse().exec(EventsTable.createDedupSql(h.db, topic));
        h.stack.kafka().createTopic(topic, PARTITIONS);
        // event i goes to partition i % 2 at offset i / 2 (one idempotent producer, round robin)
        new EventProducer(h.stack.kafka().bootstrapServers()).produce(topic, PARTITIONS, new EventGenerator(seed), n,
                true, null);
        Map<String, String> o = SinkHarness.overrides(topic, 2);
        o.put("flush.max.rows", "3000"); // several recorded blocks per partition
        try {
            h.createConnector(connector, "clickhouse-sink-exactly-once.json", o);
            h.rest().waitForTasksRunning(connector, 2, Duration.ofSeconds(120));
            awaitCommitted(connector, end);
            assertEquals(n, count(topic, "count()"));
            assertEquals(n, count(topic, "uniqExact(*)"));
            long recorded = h.scalar(stateCount(connector, topic, "first_offset >= 0"));
            assertTrue(recorded >= 2 * PARTITIONS, "several recorded blocks per partition: " + recorded);

            // DELETE: every partition reset, consumed again from the start
            h.rest().stopConnector(connector, Duration.ofSeconds(60));
            long lines = alterLines(connector);
            String reset = h.rest().resetOffsets(connector);
            assertEquals("The offsets for this connector have been reset successfully", reset,
                    "Connect's answer when alterOffsets returned true");
            assertEquals(PARTITIONS, alterLines(connector) - lines, "one alterOffsets line per partition on DELETE");
            assertEquals(0, h.scalar(stateCount(connector, topic, "first_offset >= 0")), "recorded blocks deleted");
            long epoch0 = epoch(connector, p0);
            long epoch1 = epoch(connector, p1);
            assertTrue(epoch0 > 0 && epoch1 > 0, "epochs raised: " + epoch0 + ", " + epoch1);
            h.rest().resumeConnector(connector);
            h.rest().waitForTasksRunning(connector, 2, Duration.ofSeconds(120));
            awaitCommitted(connector, end);
            assertEquals(2 * n, count(topic, "count()"), "every event once more after the reset");
            assertEquals(n, count(topic, "uniqExact(*)"));
            assertEquals(0, h.scalar("SELECT count() FROM (SELECT count() AS c FROM `" + topic + "` GROUP BY "
                    + EventsTable.COLUMN_NAMES + ") WHERE c != 2"), "each event exactly twice");

            // PATCH: partition 0 back to offset k, partition 1 untouched
            h.rest().stopConnector(connector, Duration.ofSeconds(60));
            lines = alterLines(connector);
            String altered = h.rest().alterSinkOffsets(connector, Map.of(p0, k));
            assertEquals("The offsets for this connector have been altered successfully", altered);
            assertEquals(1, alterLines(connector) - lines, "one alterOffsets line on PATCH of one partition");
            assertEquals(0, h.scalar(stateCount(connector, topic, "first_offset >= 0 AND partition = 0")));
            assertTrue(h.scalar(stateCount(connector, topic, "first_offset >= 0 AND partition = 1")) > 0,
                    "partition 1's recorded blocks stay");
            assertTrue(epoch(connector, p0) > epoch0, "partition 0's epoch raised again");
            assertEquals(epoch1, epoch(connector, p1), "partition 1's epoch unchanged");
            assertEquals(Map.of(p0, k, p1, n / PARTITIONS), h.rest().sinkOffsets(connector));
            h.rest().resumeConnector(connector);
            h.rest().waitForTasksRunning(connector, 2, Duration.ofSeconds(120));
            awaitCommitted(connector, end);
            long again = n / PARTITIONS - k;
            assertEquals(2 * n + again, count(topic, "count()"), "partition 0's records from " + k + " once more");
            assertEquals(n, count(topic, "uniqExact(*)"));
            String counts = "SELECT c, count() FROM (SELECT count() AS c FROM `" + topic + "` GROUP BY "
                    + EventsTable.COLUMN_NAMES + ") GROUP BY c ORDER BY c FORMAT TSV";
            assertEquals("2\t" + (n - again) + "\n3\t" + again, h.ch().query(counts).trim());
            String thrice = topic + "_thrice";
            h.stack.clickhouse().exec(EventsTable.createSql(h.db, thrice));
            h.stack.clickhouse().exec("INSERT INTO `" + thrice + "` SELECT " + EventsTable.COLUMN_NAMES + " FROM `"
                    + topic + "` GROUP BY " + EventsTable.COLUMN_NAMES + " HAVING count() = 3");
            assertEquals(CheckLine.fromEvents(partitionFrom(seed, n, 0, k)), EventsTable.check(h.ch(), h.db, thrice),
                    "the rows inserted a third time are exactly partition 0's records from offset " + k);
            System.out.printf("OffsetsResetTest: %d events, %d recorded blocks; DELETE -> %d rows (%d distinct), "
                    + "epochs %d/%d; PATCH %s to %d -> %d rows; Connect: \"%s\" / \"%s\"%n", n, recorded, 2 * n, n,
                    epoch0, epoch1, p0, k, count(topic, "count()"), reset, altered);
        } finally {
            h.deleteQuietly(connector);
        }
    }

    /** The events of one partition from offset {@code from}: event i is at partition i % 2, offset i / 2. */
    private static List<Event> partitionFrom(long seed, long n, int partition, long from) {
        List<Event> out = new ArrayList<>();
        long i = 0;
        for (Event e : EventGenerator.events(seed, n)) {
            if (i % PARTITIONS == partition && i / PARTITIONS >= from) {
                out.add(e);
            }
            i++;
        }
        return out;
    }

    private long count(String table, String what) {
        return h.scalar("SELECT " + what + " FROM `" + table + "`");
    }

    private static String stateCount(String connector, String topic, String where) {
        return "SELECT count() FROM `" + STATE_TABLE + "` FINAL WHERE connector = '" + connector + "' AND topic = '"
                + topic + "' AND " + where;
    }

    private long epoch(String connector, TopicPartition tp) {
        return h.scalar("SELECT max(first_timestamp) FROM `" + STATE_TABLE + "` FINAL WHERE connector = '" + connector
                + "' AND topic = '" + tp.topic() + "' AND partition = " + tp.partition() + " AND first_offset = -1");
    }

    /** Waits until the connector's committed offsets are {@code expected}: every record consumed, its block verified. */
    private void awaitCommitted(String connector, Map<TopicPartition, Long> expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        Map<TopicPartition, Long> last = new HashMap<>();
        while (System.nanoTime() < deadline) {
            last = h.rest().sinkOffsets(connector);
            if (last.equals(expected)) {
                return;
            }
            String failed = new io.chsink.it.kafka.ConnectorFailure(h.rest(), connector).get();
            if (failed != null) {
                throw new AssertionError("connector failed: " + failed);
            }
            Thread.sleep(500);
        }
        throw new AssertionError("committed offsets " + last + ", expected " + expected);
    }

    /** The lines alterOffsets logged for this connector (one per altered partition). */
    private long alterLines(String connector) {
        try (Stream<String> lines = Files.lines(h.stack.connect().logFile())) {
            return lines.filter(l -> l.contains("Connector " + connector + ": offsets of ")
                    && l.contains("through the REST API (exactly_once)")).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
