package io.chsink.it;

import static io.chsink.it.Mentions.assertMentions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.kafka.EventProducer;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a user sees when data or configuration is wrong: failures that name what to fix, and nothing else lost. */
class FailureReportingTest {
    private final SinkHarness h = new SinkHarness();

    @Test
    void aMissingTableIsRefusedAtCreationAndFailsTheTaskWhenATopicAppearsLater() throws Exception {
        String topic = SinkHarness.unique("no_such_table");
        String connector = SinkHarness.unique("sink");
        h.stack.kafka().createTopic(topic, 1);
        new EventProducer(h.stack.kafka().bootstrapServers()).produceRaw(topic, 0, Arrays.asList("{\"a\":1}"));
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("value.converter.schemas.enable", "false");
        // Listed topics are checked by validate(): Connect refuses the connector, naming the table.
        io.chsink.it.stack.ConnectRest.RestException refused = org.junit.jupiter.api.Assertions.assertThrows(
                io.chsink.it.stack.ConnectRest.RestException.class, () -> h.createConnector(connector, "clickhouse-sink.json", o));
        assertEquals(400, refused.status());
        assertMentions(refused.body(), "`default`.`" + topic + "`", "does not exist");
        // With topics.regex the table is known only when records arrive: the task fails, naming it.
        o.remove("topics");
        o.put("topics", "");
        o.put("topics.regex", java.util.regex.Pattern.quote(topic));
        try {
            h.createConnector(connector, "clickhouse-sink.json", o);
            String trace = h.awaitFailure(connector, Duration.ofSeconds(60));
            assertMentions(trace, "`default`.`" + topic + "`", "does not exist", "topic '" + topic + "'");
        } finally {
            h.deleteQuietly(connector);
        }
    }

    @Test
    void anUnwritableFieldFailsTheTaskNamingRecordFieldColumnAndType() throws Exception {
        String topic = SinkHarness.unique("bad_field");
        String connector = SinkHarness.unique("sink");
        h.stack.clickhouse().exec("CREATE TABLE `" + topic + "` (id UInt32, level UInt8) ENGINE = MergeTree ORDER BY id");
        h.stack.kafka().createTopic(topic, 1);
        new EventProducer(h.stack.kafka().bootstrapServers()).produceRaw(topic, 0, Arrays.asList(
                "{\"id\":1,\"level\":3}", "{\"id\":2,\"level\":4}", "{\"id\":3,\"level\":300}"));
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("value.converter.schemas.enable", "false");
        try {
            h.createConnector(connector, "clickhouse-sink.json", o);
            String trace = h.awaitFailure(connector, Duration.ofSeconds(60));
            assertMentions(trace, "topic=" + topic, "partition=0", "offset=2", "field 'level'", "column 'level'",
                    "ClickHouse type UInt8", "value is Long", "out of range for UInt8");
            assertEquals(0, h.scalar("SELECT count() FROM `" + topic + "`"), "the task failed before inserting");
        } finally {
            h.deleteQuietly(connector);
        }
    }

    @Test
    void withToleranceAllExactlyTheBadRecordsGoToTheDeadLetterQueue() throws Exception {
        String topic = SinkHarness.unique("dlq_src");
        String connector = SinkHarness.unique("sink");
        Map<String, String> o = LevelRecords.prepare(h, topic);
        try {
            h.createConnector(connector, "clickhouse-sink-schemaless.json", o);
            h.awaitRows(topic, LevelRecords.GOOD, connector);
            LevelRecords.assertOnlyTheBadOnesWereDeadLettered(h, topic);
        } finally {
            h.deleteQuietly(connector);
        }
    }

    @Test
    void validateReportsUnreachableServersBadCredentialsAndMissingTables() {
        String topic = SinkHarness.unique("validate");
        Map<String, String> base = new HashMap<>();
        base.put("topics", topic);
        base.put("clickhouse.url", h.stack.clickhouseUrl());

        Map<String, List<String>> missing = h.rest().validate(io.chsink.it.stack.ConnectWorker.CONNECTOR_CLASS,
                ConnectorConfigs.load("clickhouse-sink.json", base));
        assertMentions(String.valueOf(missing.get("table.name.format")), "`default`.`" + topic + "`", "does not exist");

        Map<String, String> down = new HashMap<>(base);
        down.put("clickhouse.url", "http://127.0.0.1:" + io.chsink.it.stack.LocalPorts.free());
        Map<String, List<String>> unreachable = h.rest().validate(io.chsink.it.stack.ConnectWorker.CONNECTOR_CLASS,
                ConnectorConfigs.load("clickhouse-sink.json", down));
        assertMentions(String.valueOf(unreachable.get("clickhouse.url")), "unreachable");

        Map<String, String> badUser = new HashMap<>(base);
        badUser.put("clickhouse.user", "nobody");
        badUser.put("clickhouse.password", "Secret-Passw0rd");
        Map<String, List<String>> auth = h.rest().validate(io.chsink.it.stack.ConnectWorker.CONNECTOR_CLASS,
                ConnectorConfigs.load("clickhouse-sink.json", badUser));
        assertMentions(String.valueOf(auth.get("clickhouse.password")), "Authentication failed", "nobody");
        assertTrue(!auth.toString().contains("Secret-Passw0rd"), auth.toString());

        h.stack.clickhouse().exec("CREATE TABLE `" + topic + "` (a UInt8) ENGINE = MergeTree ORDER BY a");
        Map<String, List<String>> fine = h.rest().validate(io.chsink.it.stack.ConnectWorker.CONNECTOR_CLASS,
                ConnectorConfigs.load("clickhouse-sink.json", base));
        assertTrue(fine.isEmpty(), fine.toString());
    }
}
