package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.EventProducer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.transforms.SetSchemaMetadata;
import org.junit.jupiter.api.Test;

/**
 * A transform that hands the sink a new schema instance with every record (Kafka's SetSchemaMetadata always; its
 * InsertField, ReplaceField, Cast and others once their caches of 16 schemas thrash over more topics) must not make
 * the task keep every schema it saw: the worker's heap would grow with the records until it runs out. The task works
 * out a record plan per schema instance; those memos are bounded (SchemaMemo). Checked on the worker itself: after
 * 200,000 records through SetSchemaMetadata, its live ConnectSchema objects (a class histogram, which collects
 * first) stay far below one per record.
 */
class SchemaPerRecordTest {
    private static final long EVENTS = 200_000;
    private static final long SEED = 77;
    private static final Pattern CONNECT_SCHEMA = Pattern.compile(
            "^\\s*\\d+:\\s+(\\d+)\\s+\\d+\\s+org\\.apache\\.kafka\\.connect\\.data\\.ConnectSchema\\b", Pattern.MULTILINE);
    private final SinkHarness h = new SinkHarness();

    @Test
    void aTransformMakingASchemaPerRecordLeavesTheWorkersHeapFlat() throws Exception {
        // The fault: SetSchemaMetadata really makes a new schema for each record, equal but not the same instance.
        try (SetSchemaMetadata.Value<SinkRecord> meta = new SetSchemaMetadata.Value<>()) {
            meta.configure(Map.of("schema.name", "events.Value"));
            Schema s = SchemaBuilder.struct().name("e").field("id", Schema.INT64_SCHEMA).build();
            Struct v = new Struct(s).put("id", 1L);
            Schema a = meta.apply(new SinkRecord("t", 0, null, null, s, v, 0)).valueSchema();
            Schema b = meta.apply(new SinkRecord("t", 0, null, null, s, v, 1)).valueSchema();
            assertEquals(a, b);
            assertNotSame(a, b, "a new schema instance per record");
        }
        long pid = h.stack.connect().pid();
        assertTrue(pid > 0, "the test needs the stack's own worker (its class histogram)");
        String topic = SinkHarness.unique("schema_per_record");
        String connector = SinkHarness.unique("sink");
        h.stack.clickhouse().exec(EventsTable.createSql(h.db, topic));
        h.stack.kafka().createTopic(topic, 2);
        new EventProducer(h.stack.kafka().bootstrapServers()).produce(topic, 2, new EventGenerator(SEED), EVENTS, true,
                null);
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("transforms", "meta");
        o.put("transforms.meta.type", "org.apache.kafka.connect.transforms.SetSchemaMetadata$Value");
        o.put("transforms.meta.schema.name", "events.Value");
        try {
            h.createConnector(connector, "clickhouse-sink.json", o);
            h.awaitRows(topic, EVENTS, connector);
            h.assertDistinctRowsAreTheDataset(topic, SEED, EVENTS);
            long schemas = liveConnectSchemas(pid);
            System.out.printf("SchemaPerRecordTest: %d records through SetSchemaMetadata; the worker holds %d "
                    + "ConnectSchema objects%n", EVENTS, schemas);
            assertTrue(schemas < EVENTS / 10, "the worker holds " + schemas + " ConnectSchema objects after " + EVENTS
                    + " records: the task keeps the schemas it saw");
        } finally {
            h.deleteQuietly(connector);
        }
    }

    /** Live instances of ConnectSchema in JVM {@code pid}: {@code jcmd PID GC.class_histogram} (a full GC first). */
    private static long liveConnectSchemas(long pid) throws Exception {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.class_histogram")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "jcmd GC.class_histogram: " + out);
        Matcher m = CONNECT_SCHEMA.matcher(out);
        assertTrue(m.find(), "no ConnectSchema line in the histogram:\n" + out.substring(0, Math.min(2000, out.length())));
        return Long.parseLong(m.group(1));
    }
}
