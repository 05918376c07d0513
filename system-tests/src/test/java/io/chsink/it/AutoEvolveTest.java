package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ClickHouseServer;
import io.chsink.it.stack.ConnectWorker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * auto.evolve through the worker (config/clickhouse-sink-auto.json): records of a v1 schema create the table; v2
 * records (a new optional field, a new field with a default) add the columns and land with their values while v1
 * records keep landing (the default fills their new column); a v3 record with a new required field without a
 * default goes to the dead-letter queue with a message naming field and table while later good records land.
 * A second table gets, mid-stream, required fields with defaults of every Debezium and Connect kind (dates before
 * 1970, µs and ns timestamps and times, ZonedTimestamp, decimals, UUID, enum, JSON, bits, arrays, escaped strings):
 * each column's DEFAULT is the value itself, for an INSERT that omits it as for the rows written before; its
 * double field carries JsonConverter's "NaN", "Infinity", "-Infinity" into nan, inf, -inf.
 * validate() names the grants a user lacks for auto.create and auto.evolve.
 */
class AutoEvolveTest {
    private final SinkHarness h = new SinkHarness();

    static final String V1 = "{\"type\":\"struct\",\"name\":\"app.Customer\",\"optional\":false,\"fields\":["
            + "{\"field\":\"id\",\"type\":\"int64\",\"optional\":false},"
            + "{\"field\":\"name\",\"type\":\"string\",\"optional\":false}]}";
    static final String V2 = "{\"type\":\"struct\",\"name\":\"app.Customer\",\"optional\":false,\"fields\":["
            + "{\"field\":\"id\",\"type\":\"int64\",\"optional\":false},"
            + "{\"field\":\"name\",\"type\":\"string\",\"optional\":false},"
            + "{\"field\":\"note\",\"type\":\"string\",\"optional\":true},"
            + "{\"field\":\"region\",\"type\":\"string\",\"optional\":false,\"default\":\"eu\"}]}";
    static final String V3 = "{\"type\":\"struct\",\"name\":\"app.Customer\",\"optional\":false,\"fields\":["
            + "{\"field\":\"id\",\"type\":\"int64\",\"optional\":false},"
            + "{\"field\":\"name\",\"type\":\"string\",\"optional\":false},"
            + "{\"field\":\"note\",\"type\":\"string\",\"optional\":true},"
            + "{\"field\":\"region\",\"type\":\"string\",\"optional\":false,\"default\":\"eu\"},"
            + "{\"field\":\"priority\",\"type\":\"int32\",\"optional\":false}]}";

    static String v1(long id) {
        return "{\"schema\":" + V1 + ",\"payload\":{\"id\":" + id + ",\"name\":\"c" + id + "\"}}";
    }

    static String v2(long id) {
        return "{\"schema\":" + V2 + ",\"payload\":{\"id\":" + id + ",\"name\":\"c" + id + "\",\"note\":\"n" + id
                + "\",\"region\":\"r" + (id % 3) + "\"}}";
    }

    static String v3(long id) {
        return "{\"schema\":" + V3 + ",\"payload\":{\"id\":" + id + ",\"name\":\"c" + id + "\",\"note\":\"n" + id
                + "\",\"region\":\"us\",\"priority\":1}}";
    }

    private Map<String, String> columns(String table) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : h.ch().query("SELECT name, type, default_kind, default_expression FROM system.columns "
                + "WHERE database = 'default' AND table = '" + table + "' ORDER BY position FORMAT TabSeparatedRaw")
                .split("\n")) {
            if (!line.isEmpty()) {
                String[] f = line.split("\t", -1);
                out.put(f[0], f[1] + (f[2].isEmpty() ? "" : " " + f[2] + " " + f[3]));
            }
        }
        return out;
    }

    @Test
    void v2FieldsBecomeColumnsV1KeepsLandingAndARequiredV3FieldIsABadRecord() throws Exception {
        String topic = SinkHarness.unique("app_customers");
        String connector = SinkHarness.unique("sink");
        String dlq = topic + "-dlq";
        String q = "`" + topic + "`";
        h.stack.kafka().createTopic(topic, 1);
        EventProducer producer = new EventProducer(h.stack.kafka().bootstrapServers());
        List<String> phase1 = new ArrayList<>();
        for (long id = 0; id < 400; id++) {
            phase1.add(v1(id));
        }
        producer.produceRaw(topic, 0, phase1);
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("topics.regex", "");
        o.put("errors.deadletterqueue.topic.name", dlq);
        long logStart = Files.size(h.stack.connect().logFile());
        try {
            h.createConnector(connector, "clickhouse-sink-auto.json", o);
            AutoTables.awaitRows(h, topic, 400, connector);
            assertEquals(Map.of("id", "Int64", "name", "String"), columns(topic), "v1 made the table");

            // v2 records, every third record still v1
            List<String> phase2 = new ArrayList<>();
            for (long id = 400; id < 1000; id++) {
                phase2.add(id % 3 == 0 ? v1(id) : v2(id));
            }
            producer.produceRaw(topic, 0, phase2);
            h.awaitRows(topic, 1000, connector);
            Map<String, String> expected = new LinkedHashMap<>();
            expected.put("id", "Int64");
            expected.put("name", "String");
            expected.put("note", "Nullable(String)");
            expected.put("region", "String DEFAULT 'eu'");
            assertEquals(expected, columns(topic), "the optional field and the field with a default were added");
            long v2Rows = 0;
            for (long id = 400; id < 1000; id++) {
                v2Rows += id % 3 == 0 ? 0 : 1;
            }
            assertEquals(v2Rows, h.scalar("SELECT countIf(note = concat('n', toString(id)) AND region = concat('r', "
                    + "toString(id % 3))) FROM " + q), "v2 records land with their values");
            assertEquals(1000 - v2Rows, h.scalar("SELECT countIf(note IS NULL AND region = 'eu') FROM " + q),
                    "v1 records, before and after the change, read the default");
            assertEquals(0, h.scalar("SELECT countIf(name != concat('c', toString(id))) FROM " + q));

            // a v3 record with a new required field without default, then good records
            List<String> phase3 = new ArrayList<>();
            phase3.add(v3(1000));
            for (long id = 1001; id < 1300; id++) {
                phase3.add(v2(id));
            }
            producer.produceRaw(topic, 0, phase3);
            h.awaitRows(topic, 1299, connector);
            List<ConsumerRecord<byte[], byte[]>> dead = DeadLetterReader.readAll(h.stack.kafka().bootstrapServers(), dlq, 1);
            assertEquals(1, dead.size(), "exactly the v3 record is dead-lettered");
            String m = DeadLetterReader.header(dead.get(0), "__connect.errors.exception.message");
            assertTrue(m.contains("field 'priority'") && m.contains("cannot add required column 'priority'")
                    && m.contains("default." + topic) && m.contains("Int32"), m);
            assertEquals("1000", DeadLetterReader.header(dead.get(0), "__connect.errors.offset"));
            Thread.sleep(1500);
            assertEquals(1299, h.scalar("SELECT count() FROM " + q));
            assertEquals(0, h.scalar("SELECT countIf(id = 1000) FROM " + q));
            assertFalse(columns(topic).containsKey("priority"), "no column for the refused field");
            assertEquals(1299, h.scalar("SELECT uniqExact(id) FROM " + q));
            assertFalse(h.rest().connectorStatus(connector).anyFailed());

            String log = Files.readString(h.stack.connect().logFile()).substring((int) logStart);
            assertTrue(log.contains("auto.evolve of default." + topic + " for topic '" + topic + "': ALTER TABLE `default`.`"
                    + topic + "` ADD COLUMN IF NOT EXISTS `note` Nullable(String), ADD COLUMN IF NOT EXISTS `region` "
                    + "String DEFAULT 'eu'"), "the ALTER is logged");
            System.out.printf("AutoEvolveTest: %s evolved to %s; v3 refused: %s%n", topic, columns(topic), m);
        } finally {
            h.deleteQuietly(connector);
        }
    }

    /** A required field of V2_DEFAULTS: its name, Connect schema JSON with the default, and ClickHouse's column text. */
    private static final String[][] DEFAULTED = {
        {"created", "\"type\":\"int32\",\"name\":\"io.debezium.time.Date\",\"default\":18262", "Date32", "'2020-01-01'",
            "toDate32('2020-01-01')"},
        {"born", "\"type\":\"int32\",\"name\":\"io.debezium.time.Date\",\"default\":-3653", "Date32", "'1960-01-01'",
            "toDate32('1960-01-01')"},
        {"at_ms", "\"type\":\"int64\",\"name\":\"io.debezium.time.Timestamp\",\"default\":1577836800123",
            "DateTime64(3, 'UTC')", "'2020-01-01 00:00:00.123'", "toDateTime64('2020-01-01 00:00:00.123', 3, 'UTC')"},
        {"at_us", "\"type\":\"int64\",\"name\":\"io.debezium.time.MicroTimestamp\",\"default\":-1",
            "DateTime64(6, 'UTC')", "'1969-12-31 23:59:59.999999'", "toDateTime64('1969-12-31 23:59:59.999999', 6, 'UTC')"},
        {"at_ns", "\"type\":\"int64\",\"name\":\"io.debezium.time.NanoTimestamp\",\"default\":1577836800123456789",
            "DateTime64(9, 'UTC')", "'2020-01-01 00:00:00.123456789'",
            "toDateTime64('2020-01-01 00:00:00.123456789', 9, 'UTC')"},
        {"zoned", "\"type\":\"string\",\"name\":\"io.debezium.time.ZonedTimestamp\","
            + "\"default\":\"2020-01-01T10:15:30.123456+02:00\"", "DateTime64(9, 'UTC')", "'2020-01-01 08:15:30.123456000'",
            "toDateTime64('2020-01-01 08:15:30.123456', 9, 'UTC')"},
        {"t_ms", "\"type\":\"int32\",\"name\":\"io.debezium.time.Time\",\"default\":45296789", "Time64(3)",
            "'12:34:56.789'", "toTime64('12:34:56.789', 3)"},
        {"t_us", "\"type\":\"int64\",\"name\":\"io.debezium.time.MicroTime\",\"default\":86400000000", "Time64(6)",
            "'24:00:00.000000'", "toTime64('24:00:00', 6)"},
        {"t_ns", "\"type\":\"int64\",\"name\":\"io.debezium.time.NanoTime\",\"default\":3600000000001", "Time64(9)",
            "'01:00:00.000000001'", "toTime64('01:00:00.000000001', 9)"},
        {"price", "\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\",\"version\":1,"
            + "\"parameters\":{\"scale\":\"2\",\"connect.decimal.precision\":\"10\"},\"default\":\"AeJA\"",
            "Decimal(10, 2)", "'1234.56'", "toDecimal64('1234.56', 2)"},
        {"uid", "\"type\":\"string\",\"name\":\"io.debezium.data.Uuid\",\"default\":\"76019d1a-ad2e-4b22-96e9-1a6d6543c818\"",
            "UUID", "'76019d1a-ad2e-4b22-96e9-1a6d6543c818'", "toUUID('76019d1a-ad2e-4b22-96e9-1a6d6543c818')"},
        {"status", "\"type\":\"string\",\"name\":\"io.debezium.data.Enum\",\"parameters\":{\"allowed\":\"new,old\"},"
            + "\"default\":\"new\"", "String", "'new'", "'new'"},
        {"doc", "\"type\":\"string\",\"name\":\"io.debezium.data.Json\",\"default\":\"{\\\"a\\\": \\\"it's\\\"}\"", "String",
            "'{\"a\": \"it\\'s\"}'", "'{\"a\": \"it\\'s\"}'"},
        {"flag", "\"type\":\"boolean\",\"default\":true", "Bool", "true", "true"},
        {"quote", "\"type\":\"string\",\"default\":\"it's a \\\"q\\\" \\\\ \\n\\t line\"", "String",
            "'it\\'s a \"q\" \\\\ \\n\\t line'", "'it\\'s a \"q\" \\\\ \\n\\t line'"},
        {"bits", "\"type\":\"bytes\",\"name\":\"io.debezium.data.Bits\",\"parameters\":{\"length\":\"3\"},\"default\":\"Bg==\"",
            "String", "'\u0006'", "unhex('06')"},
        {"tags", "\"type\":\"array\",\"items\":{\"type\":\"string\",\"optional\":false},\"default\":[\"a\",\"b'c\"]",
            "Array(String)", "['a', 'b\\'c']", "['a', 'b\\'c']"},
        {"days", "\"type\":\"array\",\"items\":{\"type\":\"int32\",\"name\":\"io.debezium.time.Date\",\"optional\":false},"
            + "\"default\":[18262,-1]", "Array(Date32)", "['2020-01-01', '1969-12-31']",
            "[toDate32('2020-01-01'), toDate32('1969-12-31')]"},
        {"yr", "\"type\":\"int32\",\"name\":\"io.debezium.time.Year\",\"default\":2024", "Int32", "2024", "2024"},
        {"cdate", "\"type\":\"int32\",\"name\":\"org.apache.kafka.connect.data.Date\",\"version\":1,\"default\":18262",
            "Date32", "'2020-01-01'", "toDate32('2020-01-01')"},
        {"cts", "\"type\":\"int64\",\"name\":\"org.apache.kafka.connect.data.Timestamp\",\"version\":1,\"default\":-1000",
            "DateTime64(3, 'UTC')", "'1969-12-31 23:59:59.000'", "toDateTime64('1969-12-31 23:59:59', 3, 'UTC')"},
    };

    static String v2Defaults() {
        StringBuilder sb = new StringBuilder("{\"type\":\"struct\",\"name\":\"app.Order\",\"optional\":false,\"fields\":["
                + "{\"field\":\"id\",\"type\":\"int64\",\"optional\":false},"
                + "{\"field\":\"name\",\"type\":\"string\",\"optional\":false}");
        for (String[] f : DEFAULTED) {
            sb.append(",{\"field\":\"").append(f[0]).append("\",").append(f[1]).append(",\"optional\":false}");
        }
        return sb.append(",{\"field\":\"score\",\"type\":\"double\",\"optional\":true}]}").toString();
    }

    /** A v2 record: its own created date, a score that is NaN, Infinity, -Infinity or 1.5; the rest absent (defaults). */
    static String v2WithDefaults(long id) {
        String[] scores = {"\"NaN\"", "\"Infinity\"", "\"-Infinity\"", "1.5"};
        return "{\"schema\":" + v2Defaults() + ",\"payload\":{\"id\":" + id + ",\"name\":\"c" + id + "\",\"created\":"
                + (19000 + id % 7) + ",\"score\":" + scores[(int) (id % 4)] + "}}";
    }

    @Test
    void debeziumAndConnectDefaultsBecomeColumnDefaults() throws Exception {
        String topic = SinkHarness.unique("app_orders");
        String connector = SinkHarness.unique("sink");
        String q = "`" + topic + "`";
        h.stack.kafka().createTopic(topic, 1);
        EventProducer producer = new EventProducer(h.stack.kafka().bootstrapServers());
        List<String> phase1 = new ArrayList<>();
        for (long id = 0; id < 100; id++) {
            phase1.add(v1(id));
        }
        producer.produceRaw(topic, 0, phase1);
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("topics.regex", "");
        o.put("errors.deadletterqueue.topic.name", topic + "-dlq");
        try {
            h.createConnector(connector, "clickhouse-sink-auto.json", o);
            AutoTables.awaitRows(h, topic, 100, connector);

            // v2 records add every defaulted field mid-stream; every third record is still v1
            List<String> phase2 = new ArrayList<>();
            long v1Rows = 100;
            for (long id = 100; id < 400; id++) {
                phase2.add(id % 3 == 0 ? v1(id) : v2WithDefaults(id));
                v1Rows += id % 3 == 0 ? 1 : 0;
            }
            producer.produceRaw(topic, 0, phase2);
            h.awaitRows(topic, 400, connector);
            Map<String, String> expected = new LinkedHashMap<>();
            expected.put("id", "Int64");
            expected.put("name", "String");
            for (String[] f : DEFAULTED) {
                expected.put(f[0], f[2] + " DEFAULT " + f[3]);
            }
            expected.put("score", "Nullable(Float64)");
            assertEquals(expected, columns(topic), "every field added with its default as ClickHouse shows it");

            // an INSERT that omits the columns, next to the v1 rows written before and after the ALTER
            h.ch().exec("INSERT INTO " + q + " (id, name) VALUES (-1, 'manual')");
            for (String[] f : DEFAULTED) {
                String same = "`" + f[0] + "` = " + f[4];
                assertEquals(1, h.scalar("SELECT countIf(" + same + ") FROM " + q + " WHERE id = -1"),
                        f[0] + ": an INSERT without it gets " + f[4]);
                assertEquals(100, h.scalar("SELECT countIf(" + same + ") FROM " + q + " WHERE id BETWEEN 0 AND 99"),
                        f[0] + ": rows written before the ALTER read the default");
                if (!f[2].startsWith("Array(")) { // an Array column cannot travel as Nullable: a v1 record writes []
                    assertEquals(v1Rows - 100, h.scalar("SELECT countIf(" + same + ") FROM " + q + " WHERE id >= 100 "
                            + "AND id % 3 = 0"), f[0] + ": v1 records after the ALTER get the default");
                }
                if (!f[0].equals("created")) {
                    assertEquals(400 - v1Rows, h.scalar("SELECT countIf(" + same + ") FROM " + q + " WHERE id >= 100 "
                            + "AND id % 3 != 0"), f[0] + ": v2 records without it carry the same default");
                }
            }
            assertEquals(400 - v1Rows, h.scalar("SELECT countIf(created = toDate32(19000 + id % 7)) FROM " + q
                    + " WHERE id >= 100 AND id % 3 != 0"), "v2 records land with their own date");
            long[] scores = new long[4];
            for (long id = 100; id < 400; id++) {
                scores[(int) (id % 4)] += id % 3 == 0 ? 0 : 1;
            }
            assertEquals(scores[0], h.scalar("SELECT countIf(isNaN(score)) FROM " + q), "\"NaN\" lands as nan");
            assertEquals(scores[1], h.scalar("SELECT countIf(score = inf) FROM " + q), "\"Infinity\" lands as inf");
            assertEquals(scores[2], h.scalar("SELECT countIf(score = -inf) FROM " + q), "\"-Infinity\" lands as -inf");
            assertEquals(scores[3], h.scalar("SELECT countIf(score = 1.5) FROM " + q));
            assertEquals(v1Rows + 1, h.scalar("SELECT countIf(score IS NULL) FROM " + q));
            assertEquals(0, h.scalar("SELECT count() FROM " + q + " WHERE score = 0"), "never JsonConverter's 0.0");
            assertFalse(h.rest().connectorStatus(connector).anyFailed());
            System.out.printf("AutoEvolveTest: %s evolved to %s%n", topic, columns(topic));
        } finally {
            h.deleteQuietly(connector);
        }
    }

    @Test
    void validateNamesTheGrantsAutoCreateAndAutoEvolveNeed() throws Exception {
        Path work = Path.of(System.getProperty("chsink.work.dir", System.getProperty("java.io.tmpdir")), "auto-grants");
        try (ClickHouseServer server = ClickHouseServer.builder(work)
                .withRestrictedUser("inserter", "Ins3rter-Secret", "INSERT ON default.*").start()) {
            server.exec("CREATE TABLE default.granted (id Int64) ENGINE = MergeTree ORDER BY id");
            Map<String, String> o = SinkHarness.overrides("granted,not_there", 1);
            o.put("topics.regex", "");
            o.put("clickhouse.url", server.url());
            o.put("clickhouse.user", "inserter");
            o.put("clickhouse.password", "Ins3rter-Secret");
            Map<String, List<String>> errors = h.rest().validate(ConnectWorker.CONNECTOR_CLASS,
                    ConnectorConfigs.load("clickhouse-sink-auto.json", o));
            String create = String.valueOf(errors.get("auto.create"));
            String evolve = String.valueOf(errors.get("auto.evolve"));
            assertTrue(create.contains("needs CREATE TABLE ON `default`.`not_there`")
                    && create.contains("GRANT CREATE TABLE ON `default`.`not_there` TO `inserter`"), errors.toString());
            assertTrue(evolve.contains("needs ALTER ADD COLUMN ON `default`.`granted`"), errors.toString());
            assertFalse(errors.toString().contains("Ins3rter-Secret"), "no password in the answer");

            Map<String, String> regex = new LinkedHashMap<>(o);
            regex.put("topics", "");
            regex.put("topics.regex", "app_.*");
            Map<String, List<String>> onDb = h.rest().validate(ConnectWorker.CONNECTOR_CLASS,
                    ConnectorConfigs.load("clickhouse-sink-auto.json", regex));
            assertTrue(String.valueOf(onDb.get("auto.create")).contains("CREATE TABLE ON `default`.*"), onDb.toString());
            assertTrue(String.valueOf(onDb.get("auto.evolve")).contains("ALTER ADD COLUMN ON `default`.*"), onDb.toString());

            Map<String, String> plain = new LinkedHashMap<>(o);
            plain.put("auto.create", "false");
            plain.put("auto.evolve", "false");
            plain.put("topics", "granted");
            assertTrue(h.rest().validate(ConnectWorker.CONNECTOR_CLASS,
                    ConnectorConfigs.load("clickhouse-sink-auto.json", plain)).isEmpty(), "INSERT is enough without them");
        }
    }
}
