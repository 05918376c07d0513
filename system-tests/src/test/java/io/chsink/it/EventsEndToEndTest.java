package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.chsink.it.events.CheckLine;
import io.chsink.it.events.DirectLoader;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.EventProducer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The demo's job at a smaller N: events through Kafka, a Connect worker loading the plugin from the unpacked
 * archive, into ClickHouse; exactly N rows, all distinct, and the same check line as the same dataset inserted
 * directly with client-v2.
 */
class EventsEndToEndTest {
    private final SinkHarness h = new SinkHarness();

    private void run(boolean withSchema, long rows, long seed) throws Exception {
        String topic = SinkHarness.unique("events");
        String connector = SinkHarness.unique("sink");
        String direct = topic + "_direct";
        h.stack.clickhouse().exec(EventsTable.createSql(h.db, topic));
        h.stack.clickhouse().exec(EventsTable.createSql(h.db, direct));
        h.stack.kafka().createTopic(topic, 4);
        new EventProducer(h.stack.kafka().bootstrapServers()).produce(topic, 4, new EventGenerator(seed), rows,
                withSchema, null);
        Map<String, String> o = SinkHarness.overrides(topic, 2);
        o.put("value.converter.schemas.enable", Boolean.toString(withSchema));
        try {
            h.createConnector(connector, "clickhouse-sink.json", o);
            h.awaitRows(topic, rows, connector);
            Thread.sleep(2000); // anything beyond N (a duplicate) would show up by now
            try (com.clickhouse.client.api.Client client = h.stack.clickhouse().newClient()) {
                new DirectLoader(client).load(h.db, direct, new EventGenerator(seed), rows);
            }
            assertEquals(rows, h.scalar("SELECT count() FROM `" + topic + "`"));
            assertEquals(rows, h.scalar("SELECT uniqExact(*) FROM `" + topic + "`"));
            CheckLine viaConnector = EventsTable.check(h.ch(), h.db, topic);
            CheckLine viaClient = EventsTable.check(h.ch(), h.db, direct);
            assertEquals(viaClient, viaConnector);
            assertEquals(EventsTable.expected(seed, rows), viaConnector);
            // Not just the aggregate: every row equal, column by column.
            assertEquals(0, h.scalar("SELECT count() FROM (SELECT * FROM `" + topic + "` EXCEPT SELECT * FROM `"
                    + direct + "`)"));
        } finally {
            h.deleteQuietly(connector);
        }
    }

    @Test
    void schemaJsonLandsExactlyTheDirectlyLoadedDataset() throws Exception {
        run(true, 150_000, 7);
    }

    @Test
    void schemalessJsonLandsExactlyTheDirectlyLoadedDataset() throws Exception {
        run(false, 100_000, 11);
    }
}
