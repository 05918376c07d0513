package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.RowWatcher;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * SIGKILL of the Connect worker while events stream in, then a restart: every event lands (at-least-once:
 * duplicates are allowed, loss is not), and the distinct rows are exactly the generated dataset.
 */
class WorkerCrashTest {
    private final SinkHarness h = new SinkHarness();

    @Test
    void noRowIsLostWhenTheWorkerIsKilledMidStream() throws Exception {
        long rows = 300_000;
        long seed = 99;
        String topic = SinkHarness.unique("crash");
        String connector = SinkHarness.unique("sink");
        h.stack.clickhouse().exec(EventsTable.createSql(h.db, topic));
        h.stack.kafka().createTopic(topic, 4);
        Map<String, String> o = SinkHarness.overrides(topic, 2);
        o.put("value.converter.schemas.enable", "true");
        // Small blocks and frequent flushes: many inserts, so the kill lands between some of them.
        o.put("flush.max.rows", "5000");
        try {
            h.createConnector(connector, "clickhouse-sink.json", o);
            CompletableFuture<Long> producing = CompletableFuture.supplyAsync(() -> new EventProducer(
                    h.stack.kafka().bootstrapServers()).produce(topic, 4, new EventGenerator(seed), rows, true, null));
            RowWatcher watcher = new RowWatcher(h.ch(), "`" + topic + "`");
            long before = watcher.awaitRows(rows / 5, Duration.ofMinutes(3), Duration.ofSeconds(90),
                    new ConnectorFailure(h.rest(), connector), null);
            assertEquals(137, h.stack.connect().kill(), "SIGKILL");
            assertFalse(h.stack.connect().isRunning());
            long atKill = watcher.count();
            assertTrue(atKill < rows, "the kill must come mid-stream, but all rows were in already");
            h.stack.connect().start();
            assertEquals(rows, producing.get().longValue());
            new RowWatcher(h.ch(), "`" + topic + "`", "uniqExact(*)").awaitRows(rows, Duration.ofMinutes(5),
                    Duration.ofSeconds(120), new ConnectorFailure(h.rest(), connector), null);
            h.assertDistinctRowsAreTheDataset(topic, seed, rows);
            System.out.printf("WorkerCrashTest: %d rows before the kill (%d at SIGKILL), %d rows in the end "
                    + "(%d duplicates from redelivery)%n", before, atKill, h.scalar("SELECT count() FROM `" + topic + "`"),
                    h.scalar("SELECT count() FROM `" + topic + "`") - rows);
        } finally {
            h.deleteQuietly(connector);
        }
    }
}
