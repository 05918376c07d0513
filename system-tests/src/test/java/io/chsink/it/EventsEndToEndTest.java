package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.events.CheckLine;
import io.chsink.it.events.DirectLoader;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.EventProducer;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The demo's job at a smaller N: events through Kafka, a Connect worker loading the plugin from the unpacked
 * archive, into ClickHouse; exactly N rows, all distinct, and the same check line as the same dataset inserted
 * directly with client-v2. The example config reads the values with the connector's JsonEnvelopeConverter (loaded
 * by the worker from the plugin archive), which must read every record itself; and again with Kafka's JsonConverter.
 */
class EventsEndToEndTest {
    private final SinkHarness h = new SinkHarness();

    private void run(boolean kafkaJsonConverter, boolean withSchema, long rows, long seed) throws Exception {
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
        if (kafkaJsonConverter) {
            o.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        }
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
        if (!kafkaJsonConverter) {
            assertConverterReadAllWithoutFallback(connector, rows);
        }
        // Inside the worker's plugin class loader too, inserts were compressed by lz4-java's native binding.
        String log = java.nio.file.Files.readString(h.stack.connect().logFile());
        assertTrue(log.contains("LZ4 compression of inserts: LZ4JNICompressor (lz4-java's native library)"),
                "the worker log names the JNI compressor");
    }

    /**
     * The worker's tasks used JsonEnvelopeConverter and its fast path: each task's converter logs, when the task
     * stops, how many records it read and how many went to JsonConverter instead.
     */
    private void assertConverterReadAllWithoutFallback(String connector, long rows) throws Exception {
        Pattern line = Pattern.compile("\\[" + Pattern.quote(connector) + "\\|task-(\\d+)\\] JsonEnvelopeConverter read "
                + "(\\d+) records, (\\d+) of them by JsonConverter");
        Map<String, long[]> byTask = new java.util.HashMap<>();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120);
        while (byTask.size() < 2 && System.nanoTime() < deadline) {
            byTask.clear();
            for (String l : java.nio.file.Files.readAllLines(h.stack.connect().logFile())) {
                Matcher m = line.matcher(l);
                if (m.find()) {
                    byTask.put(m.group(1), new long[] {Long.parseLong(m.group(2)), Long.parseLong(m.group(3))});
                }
            }
            Thread.sleep(500);
        }
        assertEquals(2, byTask.size(), "both tasks' converters logged their counts: " + byTask.keySet());
        long read = byTask.values().stream().mapToLong(c -> c[0]).sum();
        assertTrue(read >= rows, "the converters read every record: " + read);
        assertEquals(0, byTask.values().stream().mapToLong(c -> c[1]).sum(), "no record needed JsonConverter");
    }

    @Test
    void schemaJsonLandsExactlyTheDirectlyLoadedDataset() throws Exception {
        run(false, true, 150_000, 7);
    }

    @Test
    void schemalessJsonLandsExactlyTheDirectlyLoadedDataset() throws Exception {
        run(false, false, 100_000, 11);
    }

    @Test
    void kafkaJsonConverterWithSchemasLandsExactlyTheDirectlyLoadedDataset() throws Exception {
        run(true, true, 150_000, 13);
    }

    @Test
    void kafkaJsonConverterWithoutSchemasLandsExactlyTheDirectlyLoadedDataset() throws Exception {
        run(true, false, 100_000, 17);
    }
}
