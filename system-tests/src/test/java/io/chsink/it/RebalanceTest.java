package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ConnectWorker;
import io.chsink.it.stack.RowWatcher;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A second worker joins the Connect cluster mid-stream and leaves again: tasks move between workers and the
 * remaining tasks' partitions are revoked and reassigned while they hold open blocks. Every event lands.
 */
class RebalanceTest {
    private final SinkHarness h = new SinkHarness();

    @Test
    void noRowIsLostWhenTasksMoveBetweenWorkers() throws Exception {
        Assumptions.assumeTrue(System.getProperty("chsink.connect.url") == null && System.getenv("CHSINK_CONNECT_URL") == null,
                "needs the local Connect worker to add a second one to its group");
        long rows = 300_000;
        long seed = 5;
        String topic = SinkHarness.unique("rebalance");
        String connector = SinkHarness.unique("sink");
        h.stack.clickhouse().exec(EventsTable.createSql(h.db, topic));
        h.stack.kafka().createTopic(topic, 4);
        Map<String, String> o = SinkHarness.overrides(topic, 2);
        o.put("flush.max.rows", "5000");
        ConnectWorker second = new ConnectWorker();
        try {
            h.createConnector(connector, "clickhouse-sink.json", o);
            // Spread production over about 30 s so that the join and the departure both come mid-stream.
            CompletableFuture<Long> producing = CompletableFuture.supplyAsync(() -> {
                EventProducer producer = new EventProducer(h.stack.kafka().bootstrapServers());
                EventGenerator generator = new EventGenerator(seed);
                long chunk = rows / 30;
                for (long done = 0; done < rows; done += chunk) {
                    producer.produce(topic, 4, generator, chunk, true, null);
                    sleep(1000);
                }
                return generator.produced();
            });
            ConnectorFailure failure = new ConnectorFailure(h.rest(), connector);
            RowWatcher watcher = new RowWatcher(h.ch(), "`" + topic + "`");
            watcher.awaitRows(rows / 15, Duration.ofMinutes(3), Duration.ofSeconds(90), failure, null);
            second.start(Paths.get(System.getProperty("chsink.work.dir", "target/stack"), connector + "-worker2"),
                    h.stack.kafka().bootstrapServers());
            long joined = watcher.count();
            sleep(10_000);
            second.stop();
            long left = watcher.count();
            assertTrue(left < rows, "the second worker must leave mid-stream");
            assertEquals(rows, producing.get().longValue());
            new RowWatcher(h.ch(), "`" + topic + "`", "uniqExact(*)").awaitRows(rows, Duration.ofMinutes(5),
                    Duration.ofSeconds(120), failure, null);
            h.assertDistinctRowsAreTheDataset(topic, seed, rows);
            long total = h.scalar("SELECT count() FROM `" + topic + "`");
            System.out.printf("RebalanceTest: second worker joined at %d rows, left at %d; %d rows in the end "
                    + "(%d duplicates)%n", joined, left, total, total - rows);
            // Orderly rebalances re-insert nothing: the commit Connect makes before closing partitions waits for the
            // inserts in flight (ClosingCommit), so the next owner starts after every row that landed.
            assertEquals(rows, total, "rows inserted twice across the rebalances");
        } finally {
            second.close();
            h.deleteQuietly(connector);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
