package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ClickHouseServer;
import io.chsink.it.stack.RowWatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Past {@code retry.timeout.ms} of failing inserts the task hands batches back to Connect (RetriableException)
 * instead of taking them: Connect redelivers them, and once ClickHouse is back every record lands exactly once
 * (none lost, none buffered twice), and the task never FAILED.
 */
class RetryTimeoutTest {
    private final SinkHarness h = new SinkHarness();

    private static List<String> values(int from, int n) {
        List<String> v = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            v.add("{\"id\":" + i + ",\"level\":" + (i % 100) + "}");
        }
        return v;
    }

    @Test
    void pastTheRetryBudgetBatchesGoBackToConnectAndNothingIsLostOrDoubled() throws Exception {
        String topic = SinkHarness.unique("retry_budget");
        String connector = SinkHarness.unique("sink");
        ClickHouseServer clickhouse = h.stack.clickhouse();
        clickhouse.exec("CREATE TABLE `" + topic + "` (id UInt32, level UInt8) ENGINE = MergeTree ORDER BY id");
        h.stack.kafka().createTopic(topic, 1);
        EventProducer producer = new EventProducer(h.stack.kafka().bootstrapServers());
        producer.produceRaw(topic, 0, values(0, 1000));
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("retry.timeout.ms", "2000");
        o.put("retry.backoff.ms", "200");
        ConnectorFailure failure = new ConnectorFailure(h.rest(), connector);
        try {
            h.createConnector(connector, "clickhouse-sink-schemaless.json", o);
            h.rest().waitForTasksRunning(connector, 1, Duration.ofSeconds(60));
            RowWatcher rows = new RowWatcher(h.ch(), "`" + topic + "`");
            rows.awaitRows(1000, Duration.ofMinutes(3), Duration.ofSeconds(90), failure, null);
            try (TaskMetrics m = TaskMetrics.attach(h.stack.connect().logFile().getParent(), connector, 1)) {
                assertEquals(137, clickhouse.kill());
                try {
                    // These records are taken into a block whose insert fails, until the budget is spent ...
                    producer.produceRaw(topic, 0, values(1000, 5000));
                    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
                    while (m.sinkTask("FailingForMs") < 3000 && System.nanoTime() < deadline) {
                        Thread.sleep(250);
                    }
                    assertTrue(m.sinkTask("FailingForMs") >= 3000, m.describe("FailingForMs"));
                    // ... and these are handed back to Connect, again and again, while ClickHouse stays down.
                    producer.produceRaw(topic, 0, values(6000, 3000));
                    while (m.sinkTask("RetriableExceptions") < 3 && System.nanoTime() < deadline) {
                        assertEquals(null, failure.get(), "task failed while ClickHouse was down");
                        Thread.sleep(250);
                    }
                    assertTrue(m.sinkTask("RetriableExceptions") >= 3, "RetriableExceptions "
                            + m.sinkTask("RetriableExceptions"));
                } finally {
                    clickhouse.start();
                }
                rows.awaitRows(9000, Duration.ofMinutes(3), Duration.ofSeconds(90), failure, null);
                Thread.sleep(2000); // late duplicates would show now
                assertEquals(9000, h.scalar("SELECT count() FROM `" + topic + "`"), "rows (none doubled)");
                assertEquals(9000, h.scalar("SELECT uniqExact(id) FROM `" + topic + "`"), "distinct ids (none lost)");
                assertEquals(null, failure.get(), "task failed");
                assertTrue(m.sinkTask("Retries") > 0);
                System.out.printf("RetryTimeoutTest: %d batches handed back to Connect, %d retries; 9000 rows, "
                        + "none lost or doubled%n", m.sinkTask("RetriableExceptions"), m.sinkTask("Retries"));
            }
        } finally {
            if (!clickhouse.isRunning()) {
                clickhouse.start();
            }
            h.deleteQuietly(connector);
        }
    }
}
