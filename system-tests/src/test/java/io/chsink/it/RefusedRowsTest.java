package io.chsink.it;

import static io.chsink.it.Mentions.assertMentions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.events.CheckLine;
import io.chsink.it.events.Event;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.RowWatcher;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * A table with a CHECK constraint that some events break: ClickHouse refuses whole blocks for them. With
 * errors.tolerance=all the task stays RUNNING, the table holds exactly the events that pass the constraint and the
 * dead-letter queue exactly the others, with ClickHouse's reason; under exactly_once the same holds across a worker
 * SIGKILL mid-stream (every passing row once; each refused record at least once in the dead-letter queue). With
 * errors.tolerance=none the task fails naming the first refused record and the constraint.
 */
class RefusedRowsTest {
    /** Revenue from 990.00 on breaks the constraint (cents, as the generator makes them). */
    private static final long LIMIT_CENTS = 99_000;
    private static final String CONSTRAINT = ", CONSTRAINT c CHECK revenue < 990";
    private static final Pattern REVENUE = Pattern.compile("\"revenue\":([0-9.]+)");

    private final SinkHarness h = new SinkHarness();

    private static boolean passes(Event e) {
        return e.revenueCents() < LIMIT_CENTS;
    }

    private static List<Event> events(long seed, long count, boolean pass) {
        List<Event> out = new ArrayList<>();
        for (Event e : EventGenerator.events(seed, count)) {
            if (passes(e) == pass) {
                out.add(e);
            }
        }
        return out;
    }

    private String createTable(String table, boolean dedup) {
        String sql = dedup ? EventsTable.createDedupSql(h.db, table) : EventsTable.createSql(h.db, table);
        h.stack.clickhouse().exec(sql.replace(EventsTable.COLUMNS, EventsTable.COLUMNS + CONSTRAINT));
        return table;
    }

    private static Map<String, String> config(String topic, String dlq) {
        Map<String, String> o = SinkHarness.overrides(topic, 2);
        o.put("errors.deadletterqueue.topic.name", dlq);
        o.put("flush.max.rows", "20000");
        return o;
    }

    @Test
    void refusedRowsGoToTheDeadLetterQueueAndOnlyThey() throws Exception {
        long rows = 200_000;
        long seed = 33;
        List<Event> refused = events(seed, rows, false);
        assertTrue(refused.size() > 20, "the dataset must break the constraint: " + refused.size());
        String topic = SinkHarness.unique("refused");
        String dlq = topic + "_dlq";
        createTable(topic, false);
        h.stack.kafka().createTopic(topic, 4);
        String connector = SinkHarness.unique("sink");
        try {
            h.createConnector(connector, "clickhouse-sink-schemaless.json", config(topic, dlq));
            // Under at_least_once a rebalance while refused records wait to be reported inserts rows again: the
            // stream starts once both tasks hold their partitions.
            h.awaitSettledGroup(connector, 2, Duration.ofSeconds(60));
            new EventProducer(h.stack.kafka().bootstrapServers()).produce(topic, 4, new EventGenerator(seed), rows,
                    false, null);
            long good = rows - refused.size();
            h.awaitRows(topic, good, connector);
            List<ConsumerRecord<byte[], byte[]>> dead = DeadLetterReader.readAll(h.stack.kafka().bootstrapServers(),
                    dlq, refused.size());
            assertEquals(good, h.scalar("SELECT count() FROM `" + topic + "`"), "rows beyond the passing events");
            assertEquals(CheckLine.fromEvents(events(seed, rows, true)), EventsTable.check(h.ch(), h.db, topic));
            assertEquals(refused.size(), dead.size(), "exactly the refused events are dead letters");
            checkDeadLetters(dead, topic, refused);
            assertTrue(h.rest().connectorStatus(connector).runningWith(2), "the tasks keep running");
            System.out.printf("RefusedRowsTest: %d events, %d in the table, %d dead letters%n", rows, good,
                    dead.size());
        } finally {
            h.deleteQuietly(connector);
        }
    }

    @Test
    void underExactlyOnceEveryPassingRowLandsOnceAcrossAWorkerKill() throws Exception {
        long rows = 200_000;
        long seed = 34;
        List<Event> refused = events(seed, rows, false);
        String topic = SinkHarness.unique("refused_eo");
        String dlq = topic + "_dlq";
        createTable(topic, true);
        h.stack.kafka().createTopic(topic, 4);
        String connector = SinkHarness.unique("sink");
        Map<String, String> o = config(topic, dlq);
        o.put("delivery.guarantee", "exactly_once");
        o.put("flush.max.rows", "5000");
        try {
            h.createConnector(connector, "clickhouse-sink-schemaless.json", o);
            CompletableFuture<Long> producing = CompletableFuture.supplyAsync(() -> new EventProducer(
                    h.stack.kafka().bootstrapServers()).produce(topic, 4, new EventGenerator(seed), rows, false, null));
            RowWatcher watcher = new RowWatcher(h.ch(), "`" + topic + "`");
            watcher.awaitRows(rows / 5, Duration.ofMinutes(3), Duration.ofSeconds(90),
                    new ConnectorFailure(h.rest(), connector), null);
            assertEquals(137, h.stack.connect().kill(), "SIGKILL");
            long atKill = watcher.count();
            h.stack.connect().start();
            assertEquals(rows, producing.get().longValue());
            long good = rows - refused.size();
            assertTrue(atKill < good, "the kill must come mid-stream");
            h.awaitRows(topic, good, connector);
            List<ConsumerRecord<byte[], byte[]>> dead = DeadLetterReader.readAll(h.stack.kafka().bootstrapServers(),
                    dlq, refused.size(), RefusedRowsTest::coordinates); // exactly_once may report one twice
            Thread.sleep(3000); // a row beyond the passing events would land by now
            assertEquals(good, h.scalar("SELECT count() FROM `" + topic + "`"), "a passing row landed twice");
            assertEquals(CheckLine.fromEvents(events(seed, rows, true)), EventsTable.check(h.ch(), h.db, topic));
            checkDeadLetters(dead, topic, refused);
            System.out.printf("RefusedRowsTest (exactly_once): %d rows at the kill, %d in the end, %d dead letters "
                    + "for %d refused events%n", atKill, good, dead.size(), refused.size());
        } finally {
            h.deleteQuietly(connector);
        }
    }

    @Test
    void withoutToleranceTheTaskFailsNamingTheRefusedRecord() throws Exception {
        String topic = SinkHarness.unique("refused_none");
        createTable(topic, false);
        h.stack.kafka().createTopic(topic, 1);
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            values.add("{\"event_time\":\"2026-01-01T00:00:0" + i + "Z\",\"user_id\":" + i + ",\"event_type\":"
                    + "\"purchase\",\"url\":\"u\",\"duration_ms\":1,\"country\":\"DE\",\"revenue\":"
                    + (i == 6 ? "995.00" : "10.00") + "}");
        }
        new EventProducer(h.stack.kafka().bootstrapServers()).produceRaw(topic, 0, values);
        String connector = SinkHarness.unique("sink");
        Map<String, String> o = SinkHarness.overrides(topic, 1);
        o.put("errors.tolerance", "none");
        try {
            h.createConnector(connector, "clickhouse-sink-schemaless.json", o);
            String trace = h.awaitFailure(connector, Duration.ofMinutes(3));
            assertMentions(trace, "Cannot write record topic=" + topic + " partition=0 offset=6",
                    "ClickHouse refused its row in table `default`.`" + topic + "`", "Constraint `c`",
                    "revenue = '995'", "of the block's", "rows refused, 6 inserted");
            long in = h.scalar("SELECT count() FROM `" + topic + "`");
            assertTrue(in >= 6 && in <= 9, in + " rows: those before the refused one are in, it is not");
            assertEquals(0, h.scalar("SELECT count() FROM `" + topic + "` WHERE revenue >= 990"));
        } finally {
            h.deleteQuietly(connector);
        }
    }

    /**
     * Every dead letter is a refused event with ClickHouse's reason, and every refused event is among them (by its
     * Kafka coordinates; exactly_once may report one twice).
     */
    private static void checkDeadLetters(List<ConsumerRecord<byte[], byte[]>> dead, String topic, List<Event> refused) {
        Set<String> at = new HashSet<>();
        for (ConsumerRecord<byte[], byte[]> r : dead) {
            String value = new String(r.value(), StandardCharsets.UTF_8);
            Matcher m = REVENUE.matcher(value);
            assertTrue(m.find(), value);
            assertFalse(Double.parseDouble(m.group(1)) < 990, "a passing event in the dead-letter queue: " + value);
            String reason = DeadLetterReader.header(r, "__connect.errors.exception.message");
            assertMentions(reason, "Cannot write record topic=" + topic + " partition=", "ClickHouse refused its row "
                    + "in table `default`.`" + topic + "`", "ClickHouse error 469", "Constraint `c`");
            at.add(coordinates(r));
        }
        assertEquals(refused.size(), at.size(), "refused events missing from the dead-letter queue");
    }

    /** The refused record's own partition and offset, from the dead letter's context headers. */
    private static String coordinates(ConsumerRecord<byte[], byte[]> r) {
        return DeadLetterReader.header(r, "__connect.errors.partition") + "/"
                + DeadLetterReader.header(r, "__connect.errors.offset");
    }
}
