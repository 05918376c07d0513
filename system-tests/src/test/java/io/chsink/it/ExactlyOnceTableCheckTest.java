package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ConnectRest;
import io.chsink.it.stack.ConnectWorker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * delivery.guarantee=exactly_once (config/clickhouse-sink-exactly-once.json) on tables that do and do not keep
 * insert deduplication tokens: a MergeTree with non_replicated_deduplication_window = 0 (the default) is refused
 * by validate() and by the task, naming the statement that fixes it; after that ALTER the same table takes the
 * stream, exactly once, and the connector's state table records its blocks. Validation also refuses a
 * buffer.max.bytes that flush.max.bytes reaches.
 */
class ExactlyOnceTableCheckTest {
    private final SinkHarness h = new SinkHarness();

    @Test
    void tableWithoutDeduplicationWindowIsRefusedAndAcceptedOnceAltered() throws Exception {
        String topic = SinkHarness.unique("eo_window");
        String connector = SinkHarness.unique("sink");
        h.stack.clickhouse().exec(EventsTable.createSql(h.db, topic)); // window 0
        h.stack.kafka().createTopic(topic, 2);
        String fix = "ALTER TABLE `default`.`" + topic + "` MODIFY SETTING non_replicated_deduplication_window = 1000";

        Map<String, String> o = SinkHarness.overrides(topic, 2);
        o.put("clickhouse.url", h.stack.clickhouseUrl());
        Map<String, List<String>> errors = h.rest().validate(ConnectWorker.CONNECTOR_CLASS,
                ConnectorConfigs.load("clickhouse-sink-exactly-once.json", o));
        String onKey = String.valueOf(errors.get("delivery.guarantee"));
        assertTrue(onKey.contains(fix) && onKey.contains("non_replicated_deduplication_window = 0"), errors.toString());
        // A buffer bound one block fills is refused on its key, before any server check.
        Map<String, String> tight = new java.util.HashMap<>(o);
        tight.put("flush.max.bytes", "4194304");
        tight.put("buffer.max.bytes", "4194304");
        Map<String, List<String>> bound = h.rest().validate(ConnectWorker.CONNECTOR_CLASS,
                ConnectorConfigs.load("clickhouse-sink-exactly-once.json", tight));
        assertTrue(String.valueOf(bound.get("buffer.max.bytes"))
                .contains("buffer.max.bytes (4194304) must be larger than flush.max.bytes (4194304)"), bound.toString());
        assertEquals(List.of("buffer.max.bytes"), List.copyOf(bound.keySet()), "reported before connecting: " + bound);

        ConnectRest.RestException refused = assertThrows(ConnectRest.RestException.class,
                () -> h.createConnector(connector, "clickhouse-sink-exactly-once.json", o));
        assertEquals(400, refused.status());
        assertTrue(refused.body().contains(fix), refused.body());

        // topics.regex: the table is known only when records arrive; the task fails with the same statement.
        Map<String, String> regex = SinkHarness.overrides("", 1);
        regex.put("topics.regex", Pattern.quote(topic));
        long rows = 20_000;
        new EventProducer(h.stack.kafka().bootstrapServers()).produce(topic, 2, new EventGenerator(3), rows, true, null);
        try {
            h.createConnector(connector, "clickhouse-sink-exactly-once.json", regex);
            String trace = h.awaitFailure(connector, Duration.ofSeconds(90));
            assertTrue(trace.contains(fix), trace);
            assertEquals(0, h.scalar("SELECT count() FROM `" + topic + "`"));

            h.stack.clickhouse().exec(fix);
            h.rest().restartConnector(connector, true);
            h.rest().waitForTasksRunning(connector, 1, Duration.ofSeconds(120));
            h.awaitRows(topic, rows, connector);
            assertEquals(rows, h.scalar("SELECT count() FROM `" + topic + "`"));
            assertEquals(rows, h.scalar("SELECT uniqExact(*) FROM `" + topic + "`"));
            assertEquals(EventsTable.expected(3, rows), EventsTable.check(h.ch(), h.db, topic));
            long recorded = h.scalar("SELECT count() FROM `chsink_exactly_once_state` FINAL WHERE connector = '"
                    + connector + "' AND topic = '" + topic + "'");
            long covered = h.scalar("SELECT sum(rows) FROM `chsink_exactly_once_state` FINAL WHERE connector = '"
                    + connector + "' AND topic = '" + topic + "'");
            assertTrue(recorded >= 2, "one block per partition at least: " + recorded);
            assertEquals(rows, covered, "the recorded blocks cover every row once");
            System.out.printf("ExactlyOnceTableCheckTest: refused with \"%s\"; after the ALTER %d rows in %d recorded "
                    + "blocks%n", fix, rows, recorded);
        } finally {
            h.deleteQuietly(connector);
        }
    }
}
