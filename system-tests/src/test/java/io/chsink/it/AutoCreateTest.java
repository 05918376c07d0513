package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ConnectWorker;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * auto.create through the worker (config/clickhouse-sink-auto.json, and the exactly-once and schemaless examples
 * with auto.create=true): a new topic under topics.regex whose table does not exist gets a table with the
 * documented column types (read from system.columns) and every record with its values; schemaless records cannot
 * create a table and go to the dead-letter queue naming the topic; exactly_once creates a deduplicating table
 * (auto.create.settings) and lands every event once.
 */
class AutoCreateTest {
    private final SinkHarness h = new SinkHarness();

    /** Every Connect type of the mapping table in docs/tables.md, and the column type auto.create makes of it. */
    private static final String[][] FIELDS = {
        {"{\"field\":\"id\",\"type\":\"int64\",\"optional\":false}", "id", "Int64"},
        {"{\"field\":\"i8\",\"type\":\"int8\",\"optional\":false}", "i8", "Int8"},
        {"{\"field\":\"i16\",\"type\":\"int16\",\"optional\":false}", "i16", "Int16"},
        {"{\"field\":\"i32\",\"type\":\"int32\",\"optional\":false}", "i32", "Int32"},
        {"{\"field\":\"f32\",\"type\":\"float\",\"optional\":false}", "f32", "Float32"},
        {"{\"field\":\"f64\",\"type\":\"double\",\"optional\":false}", "f64", "Float64"},
        {"{\"field\":\"ok\",\"type\":\"boolean\",\"optional\":false}", "ok", "Bool"},
        {"{\"field\":\"name\",\"type\":\"string\",\"optional\":false}", "name", "String"},
        {"{\"field\":\"raw\",\"type\":\"bytes\",\"optional\":false}", "raw", "String"},
        {"{\"field\":\"amount\",\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\",\"version\":1,"
                + "\"parameters\":{\"scale\":\"2\",\"connect.decimal.precision\":\"12\"},\"optional\":false}",
            "amount", "Decimal(12, 2)"},
        {"{\"field\":\"day\",\"type\":\"int32\",\"name\":\"org.apache.kafka.connect.data.Date\",\"version\":1,"
                + "\"optional\":false}", "day", "Date32"},
        {"{\"field\":\"tod\",\"type\":\"int32\",\"name\":\"org.apache.kafka.connect.data.Time\",\"version\":1,"
                + "\"optional\":false}", "tod", "Time64(3)"},
        {"{\"field\":\"at\",\"type\":\"int64\",\"name\":\"org.apache.kafka.connect.data.Timestamp\",\"version\":1,"
                + "\"optional\":false}", "at", "DateTime64(3, 'UTC')"},
        {"{\"field\":\"note\",\"type\":\"string\",\"optional\":true}", "note", "Nullable(String)"},
        {"{\"field\":\"tags\",\"type\":\"array\",\"items\":{\"type\":\"int32\",\"optional\":true},\"optional\":true}",
            "tags", "Array(Nullable(Int32))"},
        {"{\"field\":\"attrs\",\"type\":\"map\",\"keys\":{\"type\":\"string\",\"optional\":false},"
                + "\"values\":{\"type\":\"int64\",\"optional\":false},\"optional\":false}", "attrs", "Map(String, Int64)"},
        {"{\"field\":\"pos\",\"type\":\"struct\",\"fields\":[{\"field\":\"x\",\"type\":\"int32\",\"optional\":false},"
                + "{\"field\":\"y\",\"type\":\"string\",\"optional\":true}],\"optional\":false}",
            "pos", "Tuple(x Int32, y Nullable(String))"},
    };

    private static String schema() {
        StringBuilder sb = new StringBuilder("{\"type\":\"struct\",\"name\":\"app.Order\",\"optional\":false,\"fields\":[");
        for (int i = 0; i < FIELDS.length; i++) {
            sb.append(i == 0 ? "" : ",").append(FIELDS[i][0]);
        }
        return sb.append("]}").toString();
    }

    private static String record(String schema, long id) {
        String raw = Base64.getEncoder().encodeToString(("r" + id).getBytes(StandardCharsets.UTF_8));
        String amount = Base64.getEncoder().encodeToString(BigInteger.valueOf(id * 100 + 25).toByteArray());
        return "{\"schema\":" + schema + ",\"payload\":{\"id\":" + id + ",\"i8\":" + (id % 100) + ",\"i16\":" + (id % 30000)
                + ",\"i32\":" + (id * 3) + ",\"f32\":0.5,\"f64\":" + id + ".25,\"ok\":" + (id % 2 == 0) + ",\"name\":\"n"
                + id + "\",\"raw\":\"" + raw + "\",\"amount\":\"" + amount + "\",\"day\":" + (19000 + id % 100)
                + ",\"tod\":" + (id % 86_400) * 1000 + ",\"at\":" + (1_700_000_000_000L + id) + ",\"note\":"
                + (id % 2 == 0 ? "null" : "\"o" + id + "\"") + ",\"tags\":[" + id + ",null],\"attrs\":{\"k\":" + id
                + "},\"pos\":{\"x\":" + id + ",\"y\":\"p\"}}}";
    }

    @Test
    void aNewTopicUnderTopicsRegexGetsItsTableWithTheDocumentedTypesAndEveryRecord() throws Exception {
        String prefix = SinkHarness.unique("app");
        String topic = prefix + "_orders";
        String connector = SinkHarness.unique("sink");
        int n = 3000;
        h.stack.kafka().createTopic(topic, 2);
        String schema = schema();
        for (int p = 0; p < 2; p++) {
            List<String> values = new ArrayList<>();
            for (long id = p; id < n; id += 2) {
                values.add(record(schema, id));
            }
            new EventProducer(h.stack.kafka().bootstrapServers()).produceRaw(topic, p, values);
        }
        Map<String, String> o = SinkHarness.overrides("", 2);
        o.put("topics.regex", Pattern.quote(prefix) + ".*");
        o.put("errors.deadletterqueue.topic.name", "dlq_" + prefix); // not matched by the regex

        // validate(): a listed topic without table is fine with auto.create (the default user has the grants)
        Map<String, String> listed = new LinkedHashMap<>(o);
        listed.put("clickhouse.url", h.clickhouse.url());
        listed.put("topics", topic);
        listed.put("topics.regex", "");
        Map<String, List<String>> errors = h.rest().validate(ConnectWorker.CONNECTOR_CLASS,
                ConnectorConfigs.load("clickhouse-sink-auto.json", listed));
        assertTrue(errors.isEmpty(), "no error for a missing table with auto.create: " + errors);
        Map<String, String> off = new LinkedHashMap<>(listed);
        off.put("auto.create", "false");
        assertTrue(String.valueOf(h.rest().validate(ConnectWorker.CONNECTOR_CLASS,
                ConnectorConfigs.load("clickhouse-sink-auto.json", off)).get("table.name.format")).contains("does not exist"),
                "without auto.create the missing table is reported");
        assertEquals("0", h.ch().scalar("SELECT count() FROM system.tables WHERE database = 'default' AND name = '"
                + topic + "'"), "validate() creates nothing");

        try {
            h.createConnector(connector, "clickhouse-sink-auto.json", o);
            AutoTables.awaitRows(h, topic, n, connector);
            Thread.sleep(1500);
            Map<String, String> types = new LinkedHashMap<>();
            for (String line : h.ch().query("SELECT name, type FROM system.columns WHERE database = 'default' AND "
                    + "table = '" + topic + "' ORDER BY position FORMAT TabSeparatedRaw").split("\n")) {
                if (!line.isEmpty()) {
                    String[] kv = line.split("\t");
                    types.put(kv[0], kv[1]);
                }
            }
            Map<String, String> expected = new LinkedHashMap<>();
            for (String[] f : FIELDS) {
                expected.put(f[1], f[2]);
            }
            assertEquals(expected, types, "the documented column types, in field order");
            String q = "`" + topic + "`";
            assertEquals(n, h.scalar("SELECT count() FROM " + q));
            assertEquals(n, h.scalar("SELECT uniqExact(id) FROM " + q));
            long sumIds = (long) n * (n - 1) / 2;
            assertEquals(sumIds, h.scalar("SELECT sum(id) FROM " + q));
            assertEquals(0, h.scalar("SELECT countIf(amount != toDecimal64(id, 2) + toDecimal64('0.25', 2) OR "
                    + "name != concat('n', toString(id)) OR raw != concat('r', toString(id)) OR i32 != id * 3 OR "
                    + "f64 != id + 0.25 OR f32 != 0.5 OR ok != (id % 2 = 0) OR i8 != id % 100 OR i16 != id % 30000 OR "
                    + "day != toDate32(19000 + id % 100) OR toUnixTimestamp64Milli(at) != 1700000000000 + id OR "
                    + "tod != toTime64(id % 86400, 3) OR tags != [toInt32(id), NULL] OR attrs['k'] != id OR "
                    + "pos.x != id OR pos.y != 'p') FROM " + q), "every value as sent");
            assertEquals(n / 2, h.scalar("SELECT countIf(note IS NULL) FROM " + q));
            assertEquals(0, h.scalar("SELECT countIf(note IS NOT NULL AND note != concat('o', toString(id))) FROM " + q));
            String create = h.ch().scalar("SHOW CREATE TABLE " + q + " FORMAT TabSeparatedRaw");
            assertTrue(create.contains("ENGINE = MergeTree") && create.contains("ORDER BY tuple()"), create);
            String log = Files.readString(h.stack.connect().logFile());
            assertTrue(log.contains("auto.create of default." + topic + " for topic '" + topic
                    + "': CREATE TABLE IF NOT EXISTS `default`.`" + topic + "` (`id` Int64, "), "the DDL is logged");
            System.out.printf("AutoCreateTest: %s created with %d columns, %d rows%n", topic, types.size(), n);
        } finally {
            h.deleteQuietly(connector);
        }
    }

    @Test
    void schemalessRecordsCannotCreateATableAndGoToTheDeadLetterQueueNamingTheTopic() throws Exception {
        String topic = SinkHarness.unique("app_plain");
        String connector = SinkHarness.unique("sink");
        String dlq = topic + "-dlq";
        h.stack.kafka().createTopic(topic, 1);
        new EventProducer(h.stack.kafka().bootstrapServers()).produceRaw(topic, 0,
                List.of("{\"id\":1}", "{\"id\":2}", "{\"id\":3}"));
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("auto.create", "true");
        o.put("errors.deadletterqueue.topic.name", dlq);
        try {
            h.createConnector(connector, "clickhouse-sink-schemaless.json", o);
            List<ConsumerRecord<byte[], byte[]>> dead = DeadLetterReader.readAll(h.stack.kafka().bootstrapServers(), dlq, 3);
            assertEquals(3, dead.size(), "each schemaless record is a bad record");
            for (ConsumerRecord<byte[], byte[]> r : dead) {
                String m = DeadLetterReader.header(r, "__connect.errors.exception.message");
                assertTrue(m.contains("auto.create cannot create it from topic '" + topic + "'")
                        && m.contains("no value schema") && m.contains("`default`.`" + topic + "`"), m);
            }
            assertEquals("0", h.ch().scalar("SELECT count() FROM system.tables WHERE database = 'default' AND name = '"
                    + topic + "'"), "no table was created");
            assertFalse(h.rest().connectorStatus(connector).anyFailed(), "the task goes on");
        } finally {
            h.deleteQuietly(connector);
        }
    }

    @Test
    void exactlyOnceCreatesADeduplicatingTableAndLandsEveryEventOnce() throws Exception {
        String topic = SinkHarness.unique("app_eo");
        String connector = SinkHarness.unique("sink");
        long rows = 20_000;
        Map<String, String> o = SinkHarness.overrides(topic, 2);
        o.put("auto.create", "true");

        Map<String, String> v = new LinkedHashMap<>(o);
        v.put("clickhouse.url", h.clickhouse.url());
        Map<String, List<String>> errors = h.rest().validate(ConnectWorker.CONNECTOR_CLASS,
                ConnectorConfigs.load("clickhouse-sink-exactly-once.json", v));
        assertTrue(String.valueOf(errors.get("auto.create.settings")).contains("non_replicated_deduplication_window=1000"),
                "exactly_once refuses created tables that would not deduplicate: " + errors);

        o.put("auto.create.settings", "non_replicated_deduplication_window=1000");
        h.stack.kafka().createTopic(topic, 2);
        new EventProducer(h.stack.kafka().bootstrapServers()).produce(topic, 2, new EventGenerator(5), rows, true, null);
        try {
            h.createConnector(connector, "clickhouse-sink-exactly-once.json", o);
            AutoTables.awaitRows(h, topic, rows, connector);
            Thread.sleep(2000);
            assertEquals(rows, h.scalar("SELECT count() FROM `" + topic + "`"));
            assertEquals(rows, h.scalar("SELECT uniqExact(*) FROM `" + topic + "`"));
            assertEquals(EventsTable.expected(5, rows), EventsTable.check(h.ch(), h.db, topic));
            String create = h.ch().scalar("SHOW CREATE TABLE `" + topic + "` FORMAT TabSeparatedRaw");
            assertTrue(create.contains("non_replicated_deduplication_window = 1000"), create);
            assertEquals(rows, h.scalar("SELECT sum(rows) FROM `chsink_exactly_once_state` FINAL WHERE connector = '"
                    + connector + "' AND topic = '" + topic + "'"), "the recorded blocks cover every row once");
        } finally {
            h.deleteQuietly(connector);
        }
    }
}
