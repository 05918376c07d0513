package io.chsink.it;

import static io.chsink.it.Mentions.assertMentions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.kafka.EventProducer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * Bad composite values: a map key of the wrong type, an array element of the wrong type, a Struct (or map) whose
 * shape does not match a Tuple or a Nested column. With errors.tolerance=none the task fails naming topic,
 * partition, offset, field, column, ClickHouse type and the value's kind; with errors.tolerance=all exactly the bad
 * records reach the dead-letter queue and every other record of the same blocks lands whole (no partial Nested rows).
 */
class CompositeBadInputTest {
    private static final String COLUMNS = "id UInt32, m Map(UInt32, String), a Array(UInt8), t Tuple(x Int32, y String), "
            + "n Nested(a UInt32, b String)";

    private final SinkHarness h = new SinkHarness();

    private static String good(int id) {
        return "{\"id\":" + id + ",\"m\":{\"1\":\"one\",\"" + (id + 1000) + "\":\"id\"},\"a\":[1,2," + (id % 200) + "],"
                + "\"t\":{\"x\":" + id + ",\"y\":\"y\"},\"n\":[{\"a\":" + id + ",\"b\":\"p\"},{\"a\":1,\"b\":\"q\"}]}";
    }

    /** Bad record of class {@code k} with id {@code id}: each is well-formed except for one composite value. */
    private static String bad(int k, int id) {
        String g = good(id);
        switch (k) {
            case 0: return g.replace("\"m\":{\"1\"", "\"m\":{\"one\""); // map key not a UInt32
            case 1: return g.replace("\"a\":[1,2,", "\"a\":[1,\"two\","); // array element not a UInt8
            case 2: return g.replace("\"y\":\"y\"}", "\"z\":\"y\"}"); // Tuple element 'y' missing, unknown 'z'
            default: return g.replace("{\"a\":1,\"b\":\"q\"}", "{\"a\":1,\"c\":\"q\"}"); // Nested element shape
        }
    }

    private String failWith(int badClass) throws Exception {
        String topic = SinkHarness.unique("composite_bad_" + badClass);
        String connector = SinkHarness.unique("sink");
        h.stack.clickhouse().exec("CREATE TABLE `" + topic + "` (" + COLUMNS + ") ENGINE = MergeTree ORDER BY id");
        h.stack.kafka().createTopic(topic, 1);
        new EventProducer(h.stack.kafka().bootstrapServers()).produceRaw(topic, 0,
                Arrays.asList(good(1), good(2), bad(badClass, 3), good(4)));
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("value.converter.schemas.enable", "false");
        try {
            h.createConnector(connector, "clickhouse-sink.json", o);
            String trace = h.awaitFailure(connector, Duration.ofSeconds(90));
            assertMentions(trace, "topic=" + topic, "partition=0", "offset=2");
            assertEquals(0, h.scalar("SELECT count() FROM `" + topic + "`"), "the task failed before inserting");
            return trace;
        } finally {
            h.deleteQuietly(connector);
        }
    }

    @Test
    void aMapKeyOfTheWrongTypeFailsTheTaskNamingIt() throws Exception {
        assertMentions(failWith(0), "field 'm'", "column 'm'", "ClickHouse type Map(UInt32, String)", "value is HashMap",
                "map key ", "(string of length 3): string is not a number");
    }

    @Test
    void anArrayElementOfTheWrongTypeFailsTheTaskNamingIt() throws Exception {
        assertMentions(failWith(1), "field 'a'", "column 'a'", "ClickHouse type Array(UInt8)", "value is ArrayList",
                "array element 1 (string of length 3): string is not a number");
    }

    @Test
    void aStructShapeThatDoesNotMatchATupleFailsTheTaskNamingIt() throws Exception {
        assertMentions(failWith(2), "field 't'", "column 't'", "ClickHouse type Tuple(x Int32, y String)",
                "value is HashMap", "map key 'z' does not match any element of Tuple(x Int32, y String)");
    }

    @Test
    void aStructShapeThatDoesNotMatchANestedColumnFailsTheTaskNamingIt() throws Exception {
        assertMentions(failWith(3), "column 'n.a'", "ClickHouse type Array(UInt32)", "value is ArrayList",
                "element 1 of 'n' has field 'c', which does not match any Nested column n.*");
    }

    @Test
    void withToleranceAllExactlyTheBadCompositeRecordsGoToTheDeadLetterQueue() throws Exception {
        String topic = SinkHarness.unique("composite_dlq");
        String dlq = topic + "_dlq";
        String connector = SinkHarness.unique("sink");
        h.stack.clickhouse().exec("CREATE TABLE `" + topic + "` (" + COLUMNS + ") ENGINE = MergeTree ORDER BY id");
        h.stack.kafka().createTopic(topic, 1);
        List<String> values = new ArrayList<>();
        int bad = 0;
        long goodElements = 0;
        for (int i = 0; i < 400; i++) {
            if (i % 25 == 5) {
                values.add(bad(bad % 4, i));
                bad++;
            } else {
                values.add(good(i));
                goodElements += 2;
            }
        }
        new EventProducer(h.stack.kafka().bootstrapServers()).produceRaw(topic, 0, values);
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("errors.deadletterqueue.topic.name", dlq);
        try {
            h.createConnector(connector, "clickhouse-sink-schemaless.json", o);
            h.awaitRows(topic, 400 - bad, connector);
            assertEquals(16, bad);
            assertEquals(384, h.scalar("SELECT count() FROM `" + topic + "`"));
            assertEquals(0, h.scalar("SELECT countIf(id % 25 = 5) FROM `" + topic + "`"));
            // whole rows only: every landed row has both Nested arrays, equally long, and its map and tuple
            assertEquals(goodElements, h.scalar("SELECT sum(length(n.a)) FROM `" + topic + "`"));
            assertEquals(goodElements, h.scalar("SELECT sum(length(n.b)) FROM `" + topic + "`"));
            assertEquals(0, h.scalar("SELECT countIf(m[1] != 'one' OR length(a) != 3 OR t.x != id OR n.a[1] != id) "
                    + "FROM `" + topic + "`"));
            List<ConsumerRecord<byte[], byte[]>> dead = DeadLetterReader.readAll(h.stack.kafka().bootstrapServers(), dlq, 16);
            assertEquals(16, dead.size());
            String[] reasons = {"map key ", "array element 1", "does not match any element of Tuple", "Nested column n.*"};
            for (int k = 0; k < dead.size(); k++) {
                ConsumerRecord<byte[], byte[]> r = dead.get(k);
                int id = 5 + 25 * k;
                assertEquals(bad(k % 4, id), new String(r.value(), StandardCharsets.UTF_8));
                assertMentions(DeadLetterReader.header(r, "__connect.errors.exception.message"), reasons[k % 4],
                        "offset=" + id);
            }
        } finally {
            h.deleteQuietly(connector);
        }
    }
}
