package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.cdc.CdcWorkload;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The change events around the main stream, on real PostgreSQL and Debezium: a malformed change event goes to the
 * dead-letter queue named as such while the stream goes on; deletes under REPLICA IDENTITY DEFAULT (key only, the
 * other required fields as Debezium's placeholders, e.g. "" for a UUID) and FULL remove the row, and their rows carry
 * the key with defaults elsewhere; the flattened form of Debezium's ExtractNewRecordState transform
 * (delete.tombstone.handling.mode=rewrite, add.fields=op,lsn: __deleted, __op, __lsn) converges like the envelope;
 * a truncate is skipped with a WARN and later rows land.
 */
class CdcEdgeCasesTest {
    private static final String MALFORMED = "{\"schema\":{\"type\":\"struct\",\"optional\":false,\"name\":\"x.Envelope\","
            + "\"fields\":[{\"type\":\"struct\",\"optional\":true,\"field\":\"after\",\"fields\":[{\"type\":\"int64\","
            + "\"optional\":false,\"field\":\"id\"}]},{\"type\":\"string\",\"optional\":false,\"field\":\"op\"},"
            + "{\"type\":\"struct\",\"optional\":true,\"field\":\"source\",\"fields\":[{\"type\":\"string\",\"optional\":"
            + "false,\"field\":\"connector\"},{\"type\":\"int64\",\"optional\":true,\"field\":\"lsn\"}]}]},"
            + "\"payload\":{\"after\":null,\"op\":\"c\",\"source\":{\"connector\":\"postgresql\",\"lsn\":1}}}";

    @Test
    void malformedEventsReplicaIdentityFlattenedFormAndTruncates() throws Exception {
        CdcHarness c = new CdcHarness("cdc_edge", 77);
        String flat = c.prefix + "_flat";
        String dlq = c.prefix + "_dlq";
        try {
            c.createTables(false);
            c.h.stack.clickhouse().exec("CREATE DATABASE `" + flat + "`");
            c.workload.createTargetTables(c.h.ch(), flat, false);
            c.workload.seed(100);
            String ordersTopic = c.workload.topics(c.prefix).get(0);
            produce(c, ordersTopic, MALFORMED);
            c.startSource();
            Map<String, String> dead = new HashMap<>();
            dead.put("errors.tolerance", "all");
            dead.put("errors.deadletterqueue.topic.name", dlq);
            dead.put("errors.deadletterqueue.topic.replication.factor", "1");
            dead.put("errors.deadletterqueue.context.headers.enable", "true");
            c.startSink(c.sink, c.h.db, dead);
            Map<String, String> unwrap = new HashMap<>();
            unwrap.put("transforms", "unwrap");
            unwrap.put("transforms.unwrap.type", "io.debezium.transforms.ExtractNewRecordState");
            unwrap.put("transforms.unwrap.delete.tombstone.handling.mode", "rewrite");
            unwrap.put("transforms.unwrap.add.fields", "op,lsn");
            unwrap.put("errors.tolerance", "all"); // the malformed record is the transform's to drop here
            c.startSink(c.prefix + "_flat_sink", flat, unwrap);

            io.chsink.it.cdc.ChangeMix.Stats stats = c.workload.run(3000, 5, 0);
            System.out.println("cdc_edge: " + stats);
            c.assertConverges(c.h.db, "envelope form");
            c.assertConverges(flat, "flattened form (ExtractNewRecordState)");

            List<ConsumerRecord<byte[], byte[]>> dl = DeadLetterReader.readAll(c.h.stack.kafka().bootstrapServers(), dlq, 1);
            assertEquals(1, dl.size(), "exactly the malformed event reaches the DLQ");
            String why = DeadLetterReader.header(dl.get(0), "__connect.errors.exception.message");
            assertTrue(why.contains("malformed Debezium change event") && why.contains("op 'c' without an after image")
                    && why.contains("topic=" + ordersTopic) && why.contains("offset=0"), why);

            String orders = "`" + c.h.db + "`.`" + c.prefix + "_orders`";
            String people = "`" + c.h.db + "`.`" + c.prefix + "_people`";
            long defaultDeletes = c.scalar("SELECT count() FROM " + orders + " WHERE _is_deleted = 1");
            assertTrue(defaultDeletes > 0, "orders (REPLICA IDENTITY DEFAULT) has delete rows");
            // The delete of a primary-key change carries the row's values for the new key's create; every other
            // delete carries the key only: at most one delete row with values per primary-key update.
            long carrying = c.scalar("SELECT countIf(note IS NOT NULL OR updated IS NOT NULL OR attrs IS NOT NULL) "
                    + "FROM " + orders + " WHERE _is_deleted = 1");
            assertTrue(carrying <= stats.keyUpdates, "REPLICA IDENTITY DEFAULT: a delete carries the key only, but "
                    + "for a primary-key change: " + carrying + " delete rows with values, " + stats.keyUpdates
                    + " primary-key updates");
            long fullDeletes = c.scalar("SELECT count() FROM " + people + " WHERE _is_deleted = 1");
            assertTrue(fullDeletes > 0, "people (REPLICA IDENTITY FULL) has delete rows");
            long carryingFull = c.scalar("SELECT countIf(name != '' OR token IS NOT NULL) FROM " + people
                    + " WHERE _is_deleted = 1");
            assertTrue(carryingFull <= stats.keyUpdates, "a delete row carries the key, its other columns their "
                    + "defaults, but for a primary-key change: " + carryingFull + " delete rows with values, "
                    + stats.keyUpdates + " primary-key updates");

            String lines = "`" + c.h.db + "`.`" + c.prefix + "_lines`";
            long before = c.scalar("SELECT count() FROM " + lines + " FINAL");
            assertTrue(before > 0);
            try (Connection pg = c.h.stack.postgres().connect(); Statement st = pg.createStatement()) {
                st.execute("TRUNCATE " + c.prefix + "_lines");
                st.execute("INSERT INTO " + c.prefix + "_lines VALUES (999999, 1, 'after-truncate', 1, 1.5, NULL, NULL)");
            }
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (c.scalar("SELECT count() FROM " + lines + " FINAL WHERE order_id = 999999") == 0) {
                assertTrue(System.nanoTime() < deadline, "the row inserted after the truncate did not land");
                String f = c.failures().get();
                assertTrue(f == null, String.valueOf(f));
                Thread.sleep(500);
            }
            assertEquals(before, c.scalar("SELECT count() FROM " + lines + " FINAL WHERE order_id != 999999"),
                    "cdc.truncate.behavior=skip leaves the rows in ClickHouse");
            String log = Files.readString(c.h.stack.connect().logFile());
            assertTrue(log.contains("Skipping a truncate event (op 't') at topic=" + c.workload.topics(c.prefix).get(1)),
                    "the skipped truncate is logged");
            assertTrue(c.h.rest().connectorStatus(c.sink).runningWith(2), "the sink keeps running");

            // The comparison itself can fail: the skipped truncate left ClickHouse's lines rows behind, and a row
            // changed in ClickHouse alone differs in its text.
            long tampered = c.scalar("SELECT min(id) FROM " + orders + " FINAL WHERE _is_deleted = 0");
            c.h.stack.clickhouse().exec("ALTER TABLE " + orders + " UPDATE note = 'tampered' WHERE id = " + tampered
                    + " SETTINGS mutations_sync = 1");
            List<CdcWorkload.TableComparison> cmp = c.workload.compare(c.h.ch(), c.h.db);
            assertFalse(cmp.get(0).equal());
            assertEquals(1, cmp.get(0).differing, cmp.get(0).toString());
            assertTrue(cmp.get(0).differences.get(0).startsWith("key " + tampered + ": PostgreSQL ")
                    && cmp.get(0).differences.get(0).contains("tampered"),
                    cmp.get(0).differences.get(0));
            assertEquals(before, cmp.get(1).differing, cmp.get(1).toString());
            assertTrue(cmp.get(1).differences.get(0).endsWith(": only in ClickHouse"), cmp.get(1).toString());
            assertTrue(cmp.get(2).equal(), cmp.get(2).toString());
        } finally {
            c.deleteConnectors();
        }
    }

    private static void produce(CdcHarness c, String topic, String value) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, c.h.stack.kafka().bootstrapServers());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, 0, null, value)).get();
        }
    }
}
