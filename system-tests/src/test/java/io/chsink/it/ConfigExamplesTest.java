package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.stack.ConnectWorker;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every connector example in config/ passes the connector's validate() as a user would send it, through the worker's
 * {@code PUT /connector-plugins/{class}/config/validate}: only {@code clickhouse.url} and {@code clickhouse.database}
 * point at this stack, over the tables the examples name (created beforehand as their pages say: the events table
 * with a deduplication window, as exactly_once asks; the CDC tables as ReplacingMergeTree(_version, _is_deleted)).
 * The worker's own config (connect-distributed.properties) is not a connector's and is left out.
 */
class ConfigExamplesTest {
    private final SinkHarness h = new SinkHarness();

    @Test
    void everyConnectorExamplePassesValidate() throws IOException {
        String db = SinkHarness.unique("config_examples");
        h.ch().exec("CREATE DATABASE `" + db + "`");
        h.ch().exec(EventsTable.createDedupSql(db, "events"));
        for (String cdcTable : List.of("orders", "order_lines", "customers")) {
            h.ch().exec("CREATE TABLE `" + db + "`.`" + cdcTable + "` (id Int64, note Nullable(String), _version UInt64,"
                    + " _is_deleted UInt8) ENGINE = ReplacingMergeTree(_version, _is_deleted) ORDER BY id");
        }
        Map<String, String> stack = Map.of("clickhouse.url", h.clickhouse.url(), "clickhouse.database", db);

        Map<String, Map<String, List<String>>> errors = new TreeMap<>();
        int validated = 0;
        for (Path example : examples()) {
            String file = example.getFileName().toString();
            Map<String, String> config = file.endsWith(".json") ? ConnectorConfigs.load(file, stack) : properties(example, stack);
            assertTrue(config.containsKey("connector.class"), file + " names no connector.class");
            Map<String, List<String>> refused = h.rest().validate(config.get("connector.class"), config);
            validated++;
            if (!refused.isEmpty()) {
                errors.put(file, refused);
            }
        }
        assertTrue(validated >= 7, "validated " + validated + " examples: is config/ where the test looks?");
        assertEquals(Map.of(), errors, "examples in config/ that validate() refuses");

        // The check can fail: the same example against a database without its table is refused, naming it.
        Map<String, String> missing = new HashMap<>(stack);
        missing.put("clickhouse.database", "default");
        missing.put("topics", SinkHarness.unique("no_such_table"));
        Map<String, List<String>> refused = h.rest().validate(ConnectWorker.CONNECTOR_CLASS,
                ConnectorConfigs.load("clickhouse-sink.json", missing));
        assertFalse(refused.isEmpty(), "a topic without its table passed validate()");
        assertTrue(refused.toString().contains(missing.get("topics")), refused.toString());
    }

    /**
     * The sink connector configs of config/: the REST examples (*.json) and the standalone worker's (*.properties).
     * The Debezium source examples (debezium-*.json) are not this connector's: the CDC system tests run them.
     */
    private static List<Path> examples() throws IOException {
        try (Stream<Path> s = Files.list(ConnectorConfigs.configDir())) {
            return s.filter(p -> !p.getFileName().toString().startsWith("debezium-"))
                    .filter(p -> p.toString().endsWith(".json")
                    || (p.toString().endsWith(".properties") && !p.getFileName().toString().startsWith("connect-")))
                    .sorted().collect(Collectors.toList());
        }
    }

    private static Map<String, String> properties(Path file, Map<String, String> overrides) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        }
        Map<String, String> config = new LinkedHashMap<>();
        p.stringPropertyNames().forEach(k -> config.put(k, p.getProperty(k)));
        config.putAll(overrides);
        return config;
    }
}
