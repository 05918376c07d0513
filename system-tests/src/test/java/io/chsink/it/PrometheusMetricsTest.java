package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ConnectRest;
import io.chsink.it.stack.ConnectWorker;
import io.chsink.it.stack.RowWatcher;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The connector's metrics where users look: a Connect worker of its own started with the Prometheus JMX exporter
 * agent and config/jmx-prometheus.yml, as docs/operations.md says, serves the connector's task and table metrics on
 * its /metrics endpoint under their chsink_* names while records flow, and at rest they agree with the rows in
 * ClickHouse.
 */
class PrometheusMetricsTest {
    private final SinkHarness h = new SinkHarness();

    @Test
    void theWorkersExporterServesTheConnectorsMetrics() throws Exception {
        String topic = SinkHarness.unique("prometheus");
        String connector = SinkHarness.unique("sink");
        h.stack.clickhouse().exec(EventsTable.createSql(h.db, topic));
        h.stack.kafka().createTopic(topic, 2);
        int port = freePort();
        Path rules = ConnectorConfigs.configDir().resolve("jmx-prometheus.yml");
        ConnectWorker worker = new ConnectWorker().jvmOptions("-Xmx1g", "-javaagent:" + agentJar() + "=127.0.0.1:" + port + ":" + rules);
        Path work = Paths.get(System.getProperty("chsink.work.dir", "target/stack"), connector + "-worker").toAbsolutePath();
        try {
            worker.start(work, h.stack.kafka().bootstrapServers(), ConnectWorker.isolatedGroup(connector + "-cluster"));
            Map<String, String> o = new HashMap<>(SinkHarness.overrides(topic, 2));
            o.put("clickhouse.url", h.clickhouse.url());
            o.put("clickhouse.database", h.db);
            Map<String, String> config = ConnectorConfigs.load("clickhouse-sink.json", o);
            config.remove("name");
            ConnectRest rest = worker.rest();
            rest.putConnectorConfig(connector, config);

            EventProducer producer = new EventProducer(h.stack.kafka().bootstrapServers());
            long rows = producer.produce(topic, 2, new EventGenerator(7), 20_000, true, null);
            // While records flow: the first scrape that shows the connector's rows.
            String labels = "connector=\"" + connector + "\"";
            String flowing = awaitScrape(port, Duration.ofMinutes(2), text -> sum(text, "chsink_table_rows_inserted_total", labels) > 0);
            assertTrue(flowing.contains("chsink_task_records_received_total{"), "no task metric:\n" + head(flowing));
            assertTrue(flowing.contains("# TYPE chsink_table_rows_inserted_total counter")
                    || flowing.contains("# TYPE chsink_table_rows_inserted counter"), "rows inserted not typed a counter:\n" + head(flowing));
            assertTrue(flowing.contains("jvm_memory"), "no JVM metric from the agent");
            assertTrue(flowing.contains("kafka_connect_sink_task_metrics_"), "no Connect task metric:\n" + flowing.substring(0, Math.min(flowing.length(), 3000)));

            new RowWatcher(h.ch(), "`" + h.db + "`.`" + topic + "`").awaitRows(rows, Duration.ofMinutes(3),
                    Duration.ofSeconds(90), new ConnectorFailure(rest, connector), null);
            String atRest = awaitScrape(port, Duration.ofMinutes(1), text -> sum(text, "chsink_table_rows_inserted_total", labels) == rows
                    && sum(text, "chsink_task_records_behind", labels) == 0);
            assertEquals(rows, sum(atRest, "chsink_task_records_received_total", labels), "records received");
            assertEquals(rows, sum(atRest, "chsink_table_rows_inserted_total", labels), "rows inserted = the rows in ClickHouse");
            assertTrue(sum(atRest, "chsink_table_blocks_inserted_total", labels) >= 2, "blocks (one task per partition at least)");
            assertTrue(atRest.contains("table=\"`default`.`" + topic + "`\"") || atRest.contains("table=\"default." + topic + "\""),
                    "the table label names the table:\n" + head(atRest));
            assertEquals(0, sum(atRest, "chsink_table_dlq_records_total", labels));
            rest.deleteConnector(connector);
        } finally {
            worker.close();
        }
    }

    /** The sum over every series of {@code name} whose labels include {@code label}; -1 when none is there. */
    static double sum(String exposition, String name, String label) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{([^}]*)\\} (\\S+)").matcher(exposition);
        double total = 0;
        boolean any = false;
        while (m.find()) {
            if (m.group(1).contains(label)) {
                total += Double.parseDouble(m.group(2));
                any = true;
            }
        }
        return any ? total : -1;
    }

    private static String awaitScrape(int port, Duration timeout, java.util.function.Predicate<String> until) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            try {
                last = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).GET().build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                if (until.test(last)) {
                    return last;
                }
            } catch (IOException e) {
                last = e.toString(); // not listening yet
            }
            Thread.sleep(500);
        }
        throw new AssertionError("the exporter never showed the expected figures; last scrape:\n" + head(last));
    }

    private static String head(String text) {
        return Arrays.stream(text.split("\n")).filter(l -> l.startsWith("chsink") || l.startsWith("# TYPE chsink"))
                .limit(60).reduce("", (a, b) -> a + b + "\n") + (text.length() > 0 && !text.contains("chsink") ? text.substring(0, Math.min(text.length(), 2000)) : "");
    }

    /** The agent's jar, copied by system-tests/pom.xml's jmx-exporter execution (the version it pins). */
    private static String agentJar() {
        String jar = System.getProperty("chsink.jmx.exporter.jar");
        if (jar == null || !new File(jar).isFile()) {
            throw new AssertionError("no Prometheus JMX exporter agent at chsink.jmx.exporter.jar=" + jar + " (run through Maven)");
        }
        return jar;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
