package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.kafka.EventProducer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The connector's JMX metrics, read from the worker JVM, agree with what reached ClickHouse: rows and blocks per
 * task and per table, records received, records sent to the dead-letter queue, and nothing held or behind at rest.
 */
class MetricsTest {
    private static final int TASKS = 2;
    private final SinkHarness h = new SinkHarness();

    @Test
    void metricsPerTaskAndPerTableMatchTheRowsWritten() throws Exception {
        String a = SinkHarness.unique("metrics_a");
        String b = SinkHarness.unique("metrics_b");
        String connector = SinkHarness.unique("sink");
        for (String t : List.of(a, b)) {
            h.stack.clickhouse().exec("CREATE TABLE `" + t + "` (id UInt32, level UInt8) ENGINE = MergeTree ORDER BY id");
        }
        h.stack.kafka().createTopic(a, 2);
        h.stack.kafka().createTopic(b, 1);
        EventProducer producer = new EventProducer(h.stack.kafka().bootstrapServers());
        int badInA = 0;
        for (int p = 0; p < 2; p++) {
            List<String> values = new ArrayList<>();
            for (int i = 0; i < 3000; i++) {
                boolean bad = i % 100 == 42;
                badInA += bad ? 1 : 0;
                values.add(bad ? "{\"id\":" + i + ",\"level\":\"high\"}" : "{\"id\":" + i + ",\"level\":" + (i % 200) + "}");
            }
            producer.produceRaw(a, p, values);
        }
        List<String> inB = new ArrayList<>();
        for (int i = 0; i < 2500; i++) {
            inB.add("{\"id\":" + i + ",\"level\":1}");
        }
        producer.produceRaw(b, 0, inB);
        long rowsA = 6000 - badInA;
        long rowsB = 2500;

        Map<String, String> o = SinkHarness.overrides(a + "," + b, TASKS);
        o.put("errors.deadletterqueue.topic.name", a + "_dlq");
        o.put("flush.max.rows", "1000");
        try (AutoCloseable cleanup = () -> h.deleteQuietly(connector)) {
            h.createConnector(connector, "clickhouse-sink-schemaless.json", o);
            h.rest().waitForTasksRunning(connector, TASKS, Duration.ofSeconds(60));
            try (TaskMetrics m = TaskMetrics.attach(h.stack.connect().logFile().getParent(), connector, TASKS)) {
                assertEquals(TASKS, m.sinkTaskBeans(), m.describe("RowsInserted"));
                h.awaitRows(a, rowsA, connector);
                h.awaitRows(b, rowsB, connector);
                // The counters move when the task collects the completed insert: shortly after the rows are visible.
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while ((m.sinkTask("RowsInserted") < rowsA + rowsB || m.sinkTask("RecordsBehind") > 0)
                        && System.nanoTime() < deadline) {
                    Thread.sleep(250);
                }
                long countA = h.scalar("SELECT count() FROM `" + a + "`");
                long countB = h.scalar("SELECT count() FROM `" + b + "`");
                assertEquals(rowsA, countA);
                assertEquals(rowsB, countB);

                assertEquals(countA + countB, m.sinkTask("RowsInserted"), m.describe("RowsInserted"));
                assertEquals(countA, m.sinkTable(h.db + "." + a, "RowsInserted"));
                assertEquals(countB, m.sinkTable(h.db + "." + b, "RowsInserted"));
                assertEquals(6000 + 2500, m.sinkTask("RecordsReceived"));
                assertEquals(badInA, m.sinkTask("DlqRecords"));
                assertEquals(badInA, m.sinkTable(h.db + "." + a, "DlqRecords"));
                assertEquals(0, m.sinkTable(h.db + "." + b, "DlqRecords"));

                long blocks = m.sinkTask("BlocksInserted");
                assertEquals(blocks, m.sinkTable(h.db + "." + a, "BlocksInserted") + m.sinkTable(h.db + "." + b, "BlocksInserted"));
                // flush.max.rows=1000: at least one block per 1000 rows of a table
                assertTrue(m.sinkTable(h.db + "." + b, "BlocksInserted") >= 3, m.describe("BlocksInserted"));
                long bytes = m.sinkTask("BytesSent");
                assertEquals(bytes, m.sinkTable(h.db + "." + a, "BytesSent") + m.sinkTable(h.db + "." + b, "BytesSent"));
                // Native: a UInt32 and a UInt8 column are 5 bytes a row, plus block and column headers.
                assertTrue(bytes >= 5 * (countA + countB) && bytes < 5 * (countA + countB) + 200 * blocks,
                        "BytesSent " + bytes + " for " + (countA + countB) + " rows in " + blocks + " blocks");
                assertTrue(m.sinkTask("InsertLatencyMaxMs") >= 0);
                assertEquals(0, m.sinkTask("Retries"));
                assertEquals(0, m.sinkTask("RecordsBehind"), m.describe("RecordsBehind"));
                assertEquals(0, m.sinkTask("BufferedBytes"), m.describe("BufferedBytes"));
                assertEquals(0, m.sinkTask("FailingForMs"));
                System.out.printf("MetricsTest: %d rows in %d blocks, %d bytes (%.1f bytes/row), %d to the DLQ; "
                        + "insert latency max %d ms%n", countA + countB, blocks, bytes,
                        bytes / (double) (countA + countB), badInA, m.sinkTask("InsertLatencyMaxMs"));

                // The MBeans go away with the tasks.
                h.rest().deleteConnector(connector);
                String all = "io.chsink.connect:connector=" + javax.management.ObjectName.quote(connector) + ",*";
                long deadline2 = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (m.beans(all) > 0 && System.nanoTime() < deadline2) {
                    Thread.sleep(250);
                }
                assertEquals(0, m.beans(all), "MBeans left after the connector was deleted");
            }
        }
    }
}
