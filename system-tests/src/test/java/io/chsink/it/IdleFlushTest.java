package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.EventProducer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * When the partitions go quiet, a large open block is inserted at once instead of after {@code flush.interval.ms},
 * while a small one keeps waiting for its interval (a trickle still collects into one insert per interval).
 */
class IdleFlushTest {
    private final SinkHarness h = new SinkHarness();

    @Test
    void theEndOfABurstLandsWithoutWaitingForTheIntervalButATrickleWaits() throws Exception {
        String topic = SinkHarness.unique("idle");
        String connector = SinkHarness.unique("sink");
        h.stack.clickhouse().exec(EventsTable.createSql(h.db, topic));
        h.stack.kafka().createTopic(topic, 2);
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("flush.interval.ms", "600000"); // ten minutes: no block is due during this test
        o.put("flush.max.rows", "100000"); // a block of 10,000 rows or more counts as large
        EventProducer producer = new EventProducer(h.stack.kafka().bootstrapServers());
        EventGenerator generator = new EventGenerator(3);
        try {
            h.createConnector(connector, "clickhouse-sink.json", o);
            producer.produce(topic, 2, generator, 30_000, true, null); // a burst of 30% of flush.max.rows
            h.awaitRows(topic, 30_000, connector); // well before the ten minutes: the quiet poll sent it
            producer.produce(topic, 2, generator, 50, true, null); // a trickle: 0.05% of flush.max.rows
            Thread.sleep(15_000);
            assertEquals(30_000, h.scalar("SELECT count() FROM `" + topic + "`"),
                    "a small block must keep collecting until flush.interval.ms");
        } finally {
            h.deleteQuietly(connector);
        }
    }
}
