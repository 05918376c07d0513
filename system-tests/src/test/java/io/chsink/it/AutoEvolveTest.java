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
