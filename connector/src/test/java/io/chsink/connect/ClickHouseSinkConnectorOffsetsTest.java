package io.chsink.connect;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.Test;

/** alterOffsets against a port nothing listens on (a real refused connection, no server). */
class ClickHouseSinkConnectorOffsetsTest {
    private static final String SECRET = "s3cr3t-Pa55word";

    private static Map<String, String> config(String guarantee) throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: connections are refused
        }
        Map<String, String> c = new HashMap<>();
        c.put("name", "eo-sink");
        c.put("topics", "events");
        c.put("clickhouse.url", "http://127.0.0.1:" + port);
        c.put("clickhouse.user", "default");
        c.put("clickhouse.password", SECRET);
        c.put("delivery.guarantee", guarantee);
        c.put("exactly.once.state.table", "my_state");
        return c;
    }

    private static Map<TopicPartition, Long> offsets() {
        Map<TopicPartition, Long> o = new HashMap<>();
        o.put(new TopicPartition("events", 0), 5L);
        o.put(new TopicPartition("events", 1), null);
        return o;
    }

    @Test
    void atLeastOnceHandlesOffsetsWithoutClickHouse() throws IOException {
        assertTrue(new ClickHouseSinkConnector().alterOffsets(config("at_least_once"), offsets()));
    }

    @Test
    void exactlyOnceWithNothingToAlterNeedsNoClickHouse() throws IOException {
        assertTrue(new ClickHouseSinkConnector().alterOffsets(config("exactly_once"), new HashMap<>()));
    }

    @Test
    void exactlyOnceFailsNamingTheStateTableWhenClickHouseIsDown() throws IOException {
        Map<String, String> c = config("exactly_once");
        ConnectException e = assertThrows(ConnectException.class,
                () -> new ClickHouseSinkConnector().alterOffsets(c, offsets()));
        String m = e.getMessage();
        System.out.println("alterOffsets with ClickHouse down: " + m);
        assertTrue(m.contains("`default`.`my_state`"), m);
        assertTrue(m.contains("eo-sink") && m.contains("events-0") && m.contains("events-1"), m);
        assertTrue(m.contains(c.get("clickhouse.url")), m);
        assertTrue(m.toLowerCase().contains("connect"), "the cause: " + m);
        for (Throwable t = e; t != null; t = t.getCause()) {
            assertFalse(String.valueOf(t.getMessage()).contains(SECRET), "password in " + t);
        }
    }

    @Test
    void invalidConfigurationFailsTheRequest() throws IOException {
        Map<String, String> c = config("exactly_once");
        c.put("delivery.guarantee", "twice");
        ConnectException e = assertThrows(ConnectException.class,
                () -> new ClickHouseSinkConnector().alterOffsets(c, offsets()));
        assertTrue(e.getMessage().contains("delivery.guarantee"), e.getMessage());
        assertFalse(e.getMessage().contains(SECRET), e.getMessage());
    }
}
