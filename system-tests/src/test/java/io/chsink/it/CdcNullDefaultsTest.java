package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.cdc.NullsTable;
import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.stack.ConnectRest;
import io.chsink.it.stack.ConnectWorker;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * cdc.mode=debezium and columns with defaults set to NULL in PostgreSQL, with the sink's converter key
 * value.converter.replace.null.with.default left out: JsonEnvelopeConverter reads the change events' nulls as nulls,
 * so ClickHouse's FINAL rows hold NULL where the source does and the defaults where the source took them; and
 * validate() refuses Kafka's JsonConverter without the key (it would write the defaults), naming the key to set,
 * unless cdc.null.defaults=allow.
 */
class CdcNullDefaultsTest {
    private static final String KEY = "value.converter.replace.null.with.default";
    private static final String KAFKA_JSON = "org.apache.kafka.connect.json.JsonConverter";
    private final SinkHarness h = new SinkHarness();

    /** The sink's config from config/clickhouse-sink-cdc.json for one table, without the converter key. */
    private Map<String, String> sinkConfig(NullsTable t, Map<String, String> overrides) {
        Map<String, String> o = new HashMap<>();
        o.put("clickhouse.url", h.clickhouse.url());
        o.put("clickhouse.database", h.db);
        o.put("topics", t.topic());
        o.put("topic.to.table.map", t.topic() + ":" + h.db + "." + t.name);
        o.put("tasks.max", "1");
        o.putAll(overrides);
        Map<String, String> config = ConnectorConfigs.load("clickhouse-sink-cdc.json", o);
        config.remove("name");
        config.remove(KEY);
        return config;
    }

    @Test
    void nullsSetInTheSourceLandAsNullWithoutTheConverterKey() throws Exception {
        assertTrue(h.stack.connect().hasDebeziumPostgres(), "the worker lists Debezium's PostgreSQL connector");
        String prefix = SinkHarness.unique("cdc_nulls").toLowerCase(java.util.Locale.ROOT);
        NullsTable t = new NullsTable(h.stack.postgres(), prefix);
        String source = prefix + "_source";
        String sink = prefix + "_sink";
        try {
            t.createSource();
            t.createTarget(h.ch(), h.db);
            h.stack.kafka().createTopic(t.topic(), 1);
            t.insertValues(1, 20); // the snapshot
            h.rest().putConnectorConfig(source, t.debeziumConfig());
            h.rest().waitForTasksRunning(source, 1, Duration.ofMinutes(2));
            Map<String, String> config = sinkConfig(t, Map.of());
            assertEquals("io.chsink.connect.convert.JsonEnvelopeConverter", config.get("value.converter"));
            h.rest().putConnectorConfig(sink, config);
            h.rest().waitForTasksRunning(sink, 1, Duration.ofMinutes(2));
            String table = "`" + h.db + "`.`" + t.name + "`";
            String counts = "SELECT count(), countIf(status IS NULL), countIf(amount IS NULL), countIf(qty IS NULL), "
                    + "countIf(status = 'new'), countIf(amount = 0), countIf(qty = 7), "
                    + "countIf(status = 'paid' AND amount = 12.5 AND qty = 3) FROM " + table + " FINAL "
                    + "WHERE _is_deleted = 0 FORMAT TSV";
            await(counts, "20\t0\t0\t0\t0\t0\t0\t20", sink, source);

            t.updateToNull(1, 10); // UPDATE ... SET status = NULL, amount = NULL
            t.insertNulls(21, 25); // INSERT with explicit NULLs
            t.insertDefaults(26, 30); // INSERT leaving the columns out: their defaults
            // 1-10: NULL, NULL, 3; 11-20: paid, 12.50, 3; 21-25: NULL, NULL, NULL; 26-30: new, 0, 7.
            await(counts, "30\t15\t15\t5\t5\t5\t5\t10", sink, source);
            assertEquals("1\t\\N\t\\N\t3\n21\t\\N\t\\N\t\\N\n", h.ch().query("SELECT id, status, amount, qty FROM "
                    + table + " FINAL WHERE id IN (1, 21) ORDER BY id FORMAT TSV"));
        } finally {
            h.deleteQuietly(sink);
            h.deleteQuietly(source);
        }
    }

    @Test
    void kafkasJsonConverterWithoutTheKeyIsRefusedAtCreation() {
        String prefix = SinkHarness.unique("cdc_nulls_validate").toLowerCase(java.util.Locale.ROOT);
        NullsTable t = new NullsTable(h.stack.postgres(), prefix);
        t.createTarget(h.ch(), h.db);
        h.stack.kafka().createTopic(t.topic(), 1);
        Map<String, String> kafkaJson = sinkConfig(t, Map.of("value.converter", KAFKA_JSON));

        Map<String, List<String>> errors = h.rest().validate(ConnectWorker.CONNECTOR_CLASS, kafkaJson);
        String onMode = String.valueOf(errors.get("cdc.mode"));
        assertTrue(onMode.contains(KEY + "=false") && onMode.contains("cdc.null.defaults=allow"), errors.toString());
        assertEquals(List.of("cdc.mode"), List.copyOf(errors.keySet()), "only the converter is wrong: " + errors);

        String connector = prefix + "_sink";
        try {
            ConnectRest.RestException refused = assertThrows(ConnectRest.RestException.class,
                    () -> h.rest().putConnectorConfig(connector, kafkaJson));
            assertEquals(400, refused.status());
            assertTrue(refused.body().contains(KEY + "=false"), refused.body());
        } finally {
            h.deleteQuietly(connector);
        }

        Map<String, String> withKey = new HashMap<>(kafkaJson);
        withKey.put(KEY, "false");
        assertEquals(Map.of(), h.rest().validate(ConnectWorker.CONNECTOR_CLASS, withKey), "JsonConverter keeping nulls");
        assertEquals(Map.of(), h.rest().validate(ConnectWorker.CONNECTOR_CLASS, sinkConfig(t, Map.of())),
                "JsonEnvelopeConverter without the key");
        assertEquals(Map.of(), h.rest().validate(ConnectWorker.CONNECTOR_CLASS,
                sinkConfig(t, Map.of("value.converter", KAFKA_JSON, "cdc.null.defaults", "allow"))), "the opt-in");
    }

    /** Polls {@code sql} until it gives {@code expected}; fails at once when a connector fails. */
    private void await(String sql, String expected, String... connectors) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        String last = null;
        while (System.nanoTime() < deadline) {
            last = h.ch().query(sql).trim();
            if (last.equals(expected)) {
                return;
            }
            for (String c : connectors) {
                String f = new ConnectorFailure(h.rest(), c).get();
                assertTrue(f == null, c + " failed: " + f);
            }
            Thread.sleep(300);
        }
        assertEquals(expected, last, sql);
    }
}
