package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.EventProducer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * When the partitions go quiet, the open blocks are inserted at once instead of after {@code flush.interval.ms} if
 * together they hold a tenth of a full block (the end of a burst, to one table or to many), while a trickle keeps
 * waiting for its interval (it still collects into one insert per interval).
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

    @Test
    void theEndOfABurstOverManyTablesLandsThoughEachBlockIsSmall() throws Exception {
        String prefix = SinkHarness.unique("idle_many");
        String connector = SinkHarness.unique("sink");
        java.util.List<String> topics = new java.util.ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String topic = prefix + "_" + i;
            topics.add(topic);
            h.stack.clickhouse().exec(EventsTable.createSql(h.db, topic));
            h.stack.kafka().createTopic(topic, 1);
        }
        Map<String, String> o = SinkHarness.overrides(String.join(",", topics), 1);
        o.put("flush.interval.ms", "600000"); // ten minutes: no block is due during this test
        o.put("flush.max.rows", "100000"); // each table's 2,000 rows are 2%, all ten together 20%
        EventProducer producer = new EventProducer(h.stack.kafka().bootstrapServers());
        try {
            h.createConnector(connector, "clickhouse-sink.json", o);
            for (int i = 0; i < topics.size(); i++) {
                producer.produce(topics.get(i), 1, new EventGenerator(100 + i), 2_000, true, null);
            }
            for (String topic : topics) {
                h.awaitRows(topic, 2_000, connector); // well before the ten minutes: the quiet poll sent them all
            }
            for (int i = 0; i < topics.size(); i++) {
                producer.produce(topics.get(i), 1, new EventGenerator(200 + i), 5, true, null); // 0.05% in all
            }
            Thread.sleep(15_000);
            for (String topic : topics) {
                assertEquals(2_000, h.scalar("SELECT count() FROM `" + topic + "`"),
                        "a trickle over many tables must keep collecting until flush.interval.ms: " + topic);
            }
        } finally {
            h.deleteQuietly(connector);
        }
    }
}
