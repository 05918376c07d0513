package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ConnectRest;
import io.chsink.it.stack.RowWatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Names with backticks, quotes, semicolons, spaces and SQL in them reach the right database, table and column, or
 * are refused cleanly; they never run other SQL. Kafka topic names only allow [a-zA-Z0-9._-], so the hostile names
 * come from where users can write anything: clickhouse.database, table.name.format (with ${topic} in it) and the
 * table's own column names (schemaless JSON fields map to columns by name).
 */
class IdentifierQuotingTest {
    private final SinkHarness h = new SinkHarness();

    /** ClickHouse identifier quoting, written independently of the connector's. */
    private static String q(String identifier) {
        return "`" + identifier.replace("\\", "\\\\").replace("`", "\\`") + "`";
    }

    @Test
    void hostileDatabaseTableAndColumnNamesReachTheRightTableAndRunNoOtherSql() throws Exception {
        String topic = SinkHarness.unique("quoting");
        String connector = SinkHarness.unique("sink");
        String canary = SinkHarness.unique("canary");
        String database = "chsink db `x` 'y'; DROP TABLE default." + canary + "; --";
        String format = "t`'; DROP TABLE default." + canary + "; -- \\ ${topic}";
        String table = format.replace("${topic}", topic);
        String column = "lev`el'; DROP TABLE default." + canary + " --";
        h.stack.clickhouse().exec("CREATE TABLE default." + canary + " (a UInt8) ENGINE = MergeTree ORDER BY a");
        h.stack.clickhouse().exec("INSERT INTO default." + canary + " VALUES (7)");
        h.stack.clickhouse().exec("CREATE DATABASE " + q(database));
        h.stack.clickhouse().exec("CREATE TABLE " + q(database) + "." + q(table) + " (id UInt32, " + q(column)
                + " UInt8) ENGINE = MergeTree ORDER BY id");
        h.stack.kafka().createTopic(topic, 1);
        List<String> values = new ArrayList<>();
        String field = column.replace("\\", "\\\\").replace("\"", "\\\"");
        for (int i = 0; i < 500; i++) {
            values.add("{\"id\":" + i + ",\"" + field + "\":" + (i % 100) + "}");
        }
        new EventProducer(h.stack.kafka().bootstrapServers()).produceRaw(topic, 0, values);

        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("clickhouse.database", database);
        o.put("table.name.format", format);
        o.put("errors.tolerance", "none");
        o.remove("errors.deadletterqueue.topic.name");
        try {
            h.rest().putConnectorConfig(connector, configFor(o));
            new RowWatcher(h.ch(), q(database) + "." + q(table)).awaitRows(500, Duration.ofMinutes(3),
                    Duration.ofSeconds(90), new ConnectorFailure(h.rest(), connector), null);
            assertEquals(500, h.scalar("SELECT count() FROM " + q(database) + "." + q(table)));
            assertEquals(5L * 4950, h.scalar("SELECT sum(" + q(column) + ") FROM " + q(database) + "." + q(table)));
            assertEquals(1, h.scalar("SELECT count() FROM system.tables WHERE database = '"
                    + database.replace("\\", "\\\\").replace("'", "\\'") + "'"), "tables in the hostile database");
            assertEquals(7, h.scalar("SELECT sum(a) FROM default." + canary), "the canary table is intact");
        } finally {
            h.deleteQuietly(connector);
        }
    }

    @Test
    void aHostileNameOfAMissingTableIsRefusedCleanly() {
        String topic = SinkHarness.unique("quoting_missing");
        String canary = SinkHarness.unique("canary");
        h.stack.clickhouse().exec("CREATE TABLE default." + canary + " (a UInt8) ENGINE = MergeTree ORDER BY a");
        h.stack.clickhouse().exec("INSERT INTO default." + canary + " VALUES (7)");
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("table.name.format", "x`; DROP TABLE default." + canary + "; SELECT `${topic}");
        String connector = SinkHarness.unique("sink");
        ConnectRest.RestException refused = assertThrows(ConnectRest.RestException.class,
                () -> h.rest().putConnectorConfig(connector, configFor(o)));
        assertEquals(400, refused.status());
        assertTrue(refused.body().contains("does not exist"), refused.body());
        assertTrue(refused.body().contains("x\\\\`; DROP TABLE default." + canary), refused.body());
        assertEquals(7, h.scalar("SELECT sum(a) FROM default." + canary), "the canary table is intact");
    }

    private Map<String, String> configFor(Map<String, String> overrides) {
        Map<String, String> o = new java.util.HashMap<>(overrides);
        o.putIfAbsent("clickhouse.url", h.stack.clickhouseUrl());
        o.putIfAbsent("clickhouse.database", h.db);
        Map<String, String> config = io.chsink.it.kafka.ConnectorConfigs.load("clickhouse-sink-schemaless.json", o);
        config.remove("name");
        config.remove("errors.deadletterqueue.topic.name");
        config.remove("errors.deadletterqueue.topic.replication.factor");
        config.remove("errors.deadletterqueue.context.headers.enable");
        return config;
    }
}
