package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.RowWatcher;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A column the connector writes is dropped while records stream in: blocks encoded for the old table are
 * rejected by the server, the connector re-reads the table, replays those records for the new columns, and every
 * record lands exactly once, without the task failing.
 */
class TableChangeTest {
    private final SinkHarness h = new SinkHarness();

    @Test
    void aColumnDroppedMidStreamCostsNoRowAndNoTaskFailure() throws Exception {
        int rows = 60_000;
        String topic = SinkHarness.unique("table_change");
        String connector = SinkHarness.unique("sink");
        h.stack.clickhouse().exec("CREATE TABLE `" + topic + "` (id UInt32, a String, extra String) "
                + "ENGINE = MergeTree ORDER BY id");
        h.stack.kafka().createTopic(topic, 2);
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("flush.max.rows", "1000");
        o.put("value.converter.schemas.enable", "false");
        try {
            h.createConnector(connector, "clickhouse-sink.json", o);
            CompletableFuture<Void> producing = CompletableFuture.runAsync(() -> {
                EventProducer p = new EventProducer(h.stack.kafka().bootstrapServers());
                for (int chunk = 0; chunk < 20; chunk++) {
                    List<String> values = new ArrayList<>();
                    for (int i = chunk * rows / 20; i < (chunk + 1) * rows / 20; i++) {
                        values.add("{\"id\":" + i + ",\"a\":\"v" + i + "\",\"extra\":\"x\"}");
                    }
                    p.produceRaw(topic, chunk % 2, values);
                    try {
                        Thread.sleep(400);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            });
            ConnectorFailure failure = new ConnectorFailure(h.rest(), connector);
            RowWatcher watcher = new RowWatcher(h.ch(), "`" + topic + "`");
            watcher.awaitRows(rows / 5, Duration.ofMinutes(2), Duration.ofSeconds(60), failure, null);
            h.stack.clickhouse().exec("ALTER TABLE `" + topic + "` DROP COLUMN extra");
            long atDrop = watcher.count();
            producing.get();
            watcher.awaitRows(rows, Duration.ofMinutes(3), Duration.ofSeconds(90), failure, null);
            Thread.sleep(2000);
            assertTrue(atDrop < rows, "the column must be dropped mid-stream");
            assertEquals(rows, h.scalar("SELECT count() FROM `" + topic + "`"), "every record exactly once");
            assertEquals(rows, h.scalar("SELECT uniqExact(id) FROM `" + topic + "`"));
            assertEquals(0, h.scalar("SELECT countIf(a != concat('v', toString(id))) FROM `" + topic + "`"));
            String log = Files.readString(h.stack.connect().logFile());
            assertTrue(log.contains("changed while a block was on its way"), "the replay is logged");
            System.out.printf("TableChangeTest: column dropped at %d rows; %d rows in the end%n", atDrop,
                    h.scalar("SELECT count() FROM `" + topic + "`"));
        } finally {
            h.deleteQuietly(connector);
        }
    }
}
