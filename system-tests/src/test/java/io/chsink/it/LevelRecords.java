package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.kafka.EventProducer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The dead-letter case several tests run (on each Connect version): 1000 plain-JSON records for a table (id UInt32,
 * level UInt8), of which the 10 with id % 100 = 7 have a level that is not a number. With
 * config/clickhouse-sink-schemaless.json (errors.tolerance=all) exactly those 10 go to the DLQ and the 990 others
 * land.
 */
final class LevelRecords {
    static final int GOOD = 990;

    private LevelRecords() {
    }

    /** Creates the table and the one-partition topic {@code topic}, produces the records; the sink's overrides. */
    static Map<String, String> prepare(SinkHarness h, String topic) {
        h.stack.clickhouse().exec("CREATE TABLE `" + topic + "` (id UInt32, level UInt8) ENGINE = MergeTree ORDER BY id");
        h.stack.kafka().createTopic(topic, 1);
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            values.add(i % 100 == 7 ? "{\"id\":" + i + ",\"level\":\"high\"}" : "{\"id\":" + i + ",\"level\":" + (i % 200) + "}");
        }
        new EventProducer(h.stack.kafka().bootstrapServers()).produceRaw(topic, 0, values);
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("errors.deadletterqueue.topic.name", dlq(topic));
        return o;
    }

    static String dlq(String topic) {
        return topic + "_dlq";
    }

    /**
     * Once the good rows are in (and a moment after): exactly the good ones in the table, exactly the 10 bad ones in
     * the DLQ, each with a reason naming the field, the ClickHouse type and the parse error.
     */
    static void assertOnlyTheBadOnesWereDeadLettered(SinkHarness h, String topic) throws InterruptedException {
        Thread.sleep(1500); // a late duplicate or a wrongly dropped row would show by now
        assertEquals(GOOD, h.scalar("SELECT count() FROM `" + topic + "`"));
        assertEquals(0, h.scalar("SELECT countIf(id % 100 = 7) FROM `" + topic + "`"));
        List<ConsumerRecord<byte[], byte[]>> dead = DeadLetterReader.readAll(h.stack.kafka().bootstrapServers(),
                dlq(topic), 10);
        assertEquals(10, dead.size());
        for (ConsumerRecord<byte[], byte[]> r : dead) {
            String value = new String(r.value(), StandardCharsets.UTF_8);
            assertTrue(value.matches("\\{\"id\":(\\d*0)?7,\"level\":\"high\"\\}"), value);
            String reason = DeadLetterReader.header(r, "__connect.errors.exception.message");
            Mentions.assertMentions(reason, "field 'level'", "UInt8", "string is not a number");
        }
    }
}
