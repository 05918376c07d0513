package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ClickHouseServer;
import io.chsink.it.stack.ConnectRest;
import io.chsink.it.stack.RowWatcher;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Users with only the grants they are given, on a ClickHouse server of this class's own (its users file holds
 * the users and their grants):
 * <ul>
 * <li>{@code writer} has only {@code INSERT ON default.lp_events}: enough to run the connector (the column list
 * in system.columns is visible with any privilege on the table);</li>
 * <li>{@code looker} can see the table's columns but not insert: the task fails naming the grant it lacks;</li>
 * <li>{@code rotated}'s password is changed on the server while the connector runs: the task fails within
 * seconds saying authentication failed, without a retry storm, and no password appears in the worker log or the
 * status.</li>
 * </ul>
 */
class AccessControlTest {
    private static final String WRITER_PASSWORD = "Wr1ter-Secret-8d2f";
    private static final String LOOKER_PASSWORD = "L00ker-Secret-4a1c";
    private static final String ROTATED_PASSWORD = "R0tated-Secret-9e7b";
    private static final String NEW_PASSWORD = "N3w-Secret-0c3d";
    private static ClickHouseServer server;
    private final SinkHarness h = new SinkHarness();

    @BeforeAll
    static void startServer() {
        Path work = Path.of(System.getProperty("chsink.work.dir", System.getProperty("java.io.tmpdir")), "access-control");
        server = ClickHouseServer.builder(work)
                .withRestrictedUser("writer", WRITER_PASSWORD, "INSERT ON default.lp_events")
                .withRestrictedUser("looker", LOOKER_PASSWORD, "SHOW COLUMNS ON default.looked_at")
                .withRestrictedUser("rotated", ROTATED_PASSWORD, "INSERT ON default.rotated_events")
                .start();
        for (String t : List.of("lp_events", "looked_at", "rotated_events")) {
            server.exec("CREATE TABLE default." + t + " (id UInt32, level UInt8) ENGINE = MergeTree ORDER BY id");
        }
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    private Map<String, String> config(String topic, String user, String password) {
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("clickhouse.url", server.url());
        o.put("clickhouse.user", user);
        o.put("clickhouse.password", password);
        o.put("table.name.format", "${topic}");
        Map<String, String> c = ConnectorConfigs.load("clickhouse-sink.json", o);
        c.put("value.converter.schemas.enable", "false");
        c.remove("name");
        return c;
    }

    /** A topic named like the table, with {@code n} records starting at id {@code from}. */
    private String topicWith(String table, int from, int n) {
        String topic = table;
        if (from == 0) {
            h.stack.kafka().createTopic(topic, 1);
        }
        List<String> values = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            values.add("{\"id\":" + i + ",\"level\":" + (i % 100) + "}");
        }
        new EventProducer(h.stack.kafka().bootstrapServers()).produceRaw(topic, 0, values);
        return topic;
    }

    @Test
    void aUserWithOnlyInsertOnTheTableRunsTheConnector() throws Exception {
        String topic = topicWith("lp_events", 0, 2000);
        String connector = SinkHarness.unique("sink");
        try {
            assertTrue(h.rest().validate(io.chsink.it.stack.ConnectWorker.CONNECTOR_CLASS,
                    config(topic, "writer", WRITER_PASSWORD)).isEmpty(), "validate() with only INSERT granted");
            h.rest().putConnectorConfig(connector, config(topic, "writer", WRITER_PASSWORD));
            new RowWatcher(server.http(), "default.lp_events").awaitRows(2000, Duration.ofMinutes(3),
                    Duration.ofSeconds(90), new io.chsink.it.kafka.ConnectorFailure(h.rest(), connector), null);
            assertEquals(2000, Long.parseLong(server.http().scalar("SELECT count() FROM default.lp_events").trim()));
            assertEquals("GRANT INSERT ON default.lp_events TO writer",
                    server.http("writer", WRITER_PASSWORD).scalar("SHOW GRANTS").trim());
        } finally {
            h.deleteQuietly(connector);
        }
    }

    @Test
    void aUserWithoutInsertGetsAMessageNamingTheGrant() throws Exception {
        String topic = topicWith("looked_at", 0, 10);
        String connector = SinkHarness.unique("sink");
        try {
            h.rest().putConnectorConfig(connector, config(topic, "looker", LOOKER_PASSWORD));
            String trace = h.awaitFailure(connector, Duration.ofSeconds(90));
            String first = SinkHarness.causeLine(trace);
            assertTrue(first.contains("Access denied") && first.contains("necessary to have the grant INSERT")
                    && first.contains("ON default.looked_at"), first);
            assertEquals(0, Long.parseLong(server.http().scalar("SELECT count() FROM default.looked_at").trim()));
            System.out.println("AccessControlTest: without INSERT: " + first);
        } finally {
            h.deleteQuietly(connector);
        }
    }

    @Test
    void aWrongPasswordFailsTheTaskFastAndNoPasswordIsShown() throws Exception {
        Path workerLog = h.stack.connect().logFile();
        long logStart = Files.size(workerLog);
        String topic = topicWith("rotated_events", 0, 100);
        String connector = SinkHarness.unique("sink");
        try {
            h.rest().putConnectorConfig(connector, config(topic, "rotated", ROTATED_PASSWORD));
            RowWatcher rows = new RowWatcher(server.http(), "default.rotated_events");
            rows.awaitRows(100, Duration.ofMinutes(3), Duration.ofSeconds(90),
                    new io.chsink.it.kafka.ConnectorFailure(h.rest(), connector), null);

            // The password is changed on the server (its users file is read at start: restart it).
            server.changePassword("rotated", NEW_PASSWORD);
            server.kill();
            server.start();
            long restartedAt = System.nanoTime();
            long logAtRestart = Files.size(workerLog);
            topicWith("rotated_events", 100, 100);
            String trace = h.awaitFailure(connector, Duration.ofSeconds(120));
            long failedAfterMs = (System.nanoTime() - restartedAt) / 1_000_000;
            String first = SinkHarness.causeLine(trace);
            assertTrue(first.contains("Authentication failed"), first);
            assertEquals(100, rows.count(), "rows inserted with the old password only");

            // No retry storm: once the server answered "authentication failed", nothing was retried.
            String sinceRestart = read(workerLog, logAtRestart);
            long authRetries = sinceRestart.lines()
                    .filter(l -> l.contains("retrying in") && l.contains("Authentication failed")).count();
            assertEquals(0, authRetries, "inserts retried after an authentication failure:\n" + sinceRestart);

            // No password anywhere: worker log, status trace, validate() answer.
            String log = read(workerLog, logStart);
            ConnectRest.ConnectorStatus status = h.rest().connectorStatus(connector);
            Map<String, List<String>> validated = h.rest().validate(io.chsink.it.stack.ConnectWorker.CONNECTOR_CLASS,
                    config(topic, "rotated", ROTATED_PASSWORD));
            assertTrue(String.valueOf(validated.get("clickhouse.password")).contains("Authentication failed"),
                    validated.toString());
            for (String secret : List.of(ROTATED_PASSWORD, NEW_PASSWORD, WRITER_PASSWORD, LOOKER_PASSWORD)) {
                assertFalse(log.contains(secret), "a password is in the worker log");
                assertFalse(status.toString().contains(secret), "a password is in the status");
                assertFalse(validated.toString().contains(secret), "a password is in validate()'s answer");
            }
            assertTrue(log.contains("clickhouse.password = [hidden]"), "Connect logs the config with the password hidden");
            System.out.printf("AccessControlTest: task FAILED %d ms after the server came back with the new password: %s%n",
                    failedAfterMs, first);
        } finally {
            h.deleteQuietly(connector);
        }
    }

    private static String read(Path file, long from) throws java.io.IOException {
        byte[] all = Files.readAllBytes(file);
        return new String(all, (int) Math.min(from, all.length), all.length - (int) Math.min(from, all.length),
                StandardCharsets.UTF_8);
    }
}
