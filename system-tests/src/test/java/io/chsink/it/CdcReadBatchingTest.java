package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.cdc.ToastUpdates;
import io.chsink.it.kafka.ConnectorFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * cdc.read.polls on real PostgreSQL and Debezium: a backlog of updates whose every change event carries the TOAST
 * placeholder for a row inserted long before (a cache of inserted rows of 64 KiB, about 15 of these rows of 4 KB
 * bodies: only a read of the table has it), consumed in polls of 20 records by two sinks side by side, one with
 * {@code cdc.read.polls=1} (a read per poll) and one at the default. The default one must read the table several
 * times less often, hold polls to do so (JMX PollsHeldForReads), and land the same rows as PostgreSQL; then, with a
 * second backlog, the worker is SIGKILLed while that sink holds polls, and after the restart both still equal
 * PostgreSQL (held records were neither written nor committed, so they come again); a last round of updates while
 * the sinks run is read with their caches full, which each must say in a WARN.
 */
class CdcReadBatchingTest {
    private static final int ROWS = 1200;

    private final SinkHarness h = new SinkHarness();
    private final List<String> connectors = new ArrayList<>();

    @Test
    void oneReadServesSeveralPollsAndHeldPollsSurviveAWorkerKill() throws Exception {
        String prefix = SinkHarness.unique("cdc_batch").toLowerCase(java.util.Locale.ROOT);
        ToastUpdates w = new ToastUpdates(h.stack.postgres(), prefix);
        String perPoll = prefix + "_p1";
        String batched = prefix + "_p8";
        Map<String, String> sinks = Map.of(perPoll, prefix + "_1", batched, prefix + "_8");
        try {
            w.create(ROWS);
            h.stack.kafka().createTopic(w.topic, 3);
            String source = prefix + "_source";
            h.rest().putConnectorConfig(source, w.debeziumConfig());
            connectors.add(source);
            h.rest().waitForTasksRunning(source, 1, Duration.ofMinutes(2));
            for (Map.Entry<String, String> s : sinks.entrySet()) {
                h.ch().exec("CREATE DATABASE `" + s.getValue() + "`");
                h.ch().exec(w.chCreate(s.getValue()));
                Map<String, String> o = new HashMap<>();
                o.put("clickhouse.database", s.getValue());
                o.put("topics", w.topic);
                o.put("topic.to.table.map", w.topic + ":" + w.table);
                o.put("tasks.max", "2");
                o.put("cdc.row.cache.bytes", "65536");
                o.put("consumer.override.max.poll.records", "20");
                if (s.getKey().equals(perPoll)) {
                    o.put("cdc.read.polls", "1");
                }
                h.createConnector(s.getKey(), "clickhouse-sink-cdc.json", o);
                connectors.add(s.getKey());
                h.rest().waitForTasksRunning(s.getKey(), 2, Duration.ofMinutes(2));
            }
            awaitEqual(w, sinks, "after the snapshot");

            // Round 1: a backlog of placeholder updates, consumed from a fresh start of both sinks.
            backlog(w, sinks.keySet(), 2L * ROWS);
            awaitEqual(w, sinks, "after the first backlog of " + ROWS + " placeholder updates");
            Map<String, long[]> m = new HashMap<>();
            for (String s : sinks.keySet()) {
                try (TaskMetrics metrics = TaskMetrics.attach(h.stack.connect().logFile().getParent(), s, 2)) {
                    m.put(s, new long[] {metrics.sinkTask("CurrentRowReads"), metrics.sinkTask("PollsHeldForReads"),
                        metrics.sinkTask("RecordsReceived")});
                }
                System.out.println("CdcReadBatchingTest: " + s + " read current rows " + m.get(s)[0] + " times, held "
                        + m.get(s)[1] + " polls, received " + m.get(s)[2] + " records");
            }
            long[] one = m.get(perPoll);
            long[] eight = m.get(batched);
            assertEquals(0, one[1], "cdc.read.polls=1 holds no poll");
            assertTrue(one[0] >= ROWS / 20 / 2, "cdc.read.polls=1 read about once per poll of 20 records: " + one[0]);
            assertTrue(eight[1] > 0, "the default cdc.read.polls held polls (JMX PollsHeldForReads)");
            assertTrue(eight[0] * 3 <= one[0], "one read served several polls: " + eight[0] + " reads against "
                    + one[0] + " at cdc.read.polls=1");

            // Round 2: the worker dies while the batching sink holds polls.
            assertTrue(h.rest().committedOffsetCount(source) > 0 || awaitSourceCommit(source), "the source committed");
            backlog(w, sinks.keySet(), 3L * ROWS);
            long held;
            try (TaskMetrics metrics = TaskMetrics.attach(h.stack.connect().logFile().getParent(), batched, 2)) {
                long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
                while ((held = metrics.sinkTask("PollsHeldForReads")) == 0) {
                    assertTrue(System.nanoTime() < deadline, "the batching sink held no poll within 2 minutes");
                    Thread.sleep(5);
                }
            }
            assertEquals(137, h.stack.connect().kill(), "SIGKILL of the worker");
            // Every row's n is 1 after the first backlog and 2 after the second.
            long landed = h.scalar("SELECT countIf(n = 2) FROM `" + sinks.get(batched) + "`.`" + w.table
                    + "` FINAL WHERE _is_deleted = 0");
            System.out.println("CdcReadBatchingTest: worker killed after " + batched + " held " + held + " polls, "
                    + landed + " of the second backlog's " + ROWS + " updates landed");
            assertTrue(landed < ROWS, "the kill came before the batching sink had the whole second backlog");
            Thread.sleep(1000);
            h.stack.connect().start();
            awaitEqual(w, sinks, "after the worker kill during the second backlog");

            // Round 3, the sinks running: their tasks inserted the second backlog's rows since the restart, hundreds
            // each where 64 KiB holds about 15, so the placeholders of these updates are read with the cache full
            // (a backlog read right after a task starts may come before its cache evicts anything, and then no WARN
            // is due). Each sink must have said so, now or earlier (at most every 10 minutes per task).
            assertEquals(ROWS, w.updateAll());
            awaitEqual(w, sinks, "after a third round of updates, the sinks running");
            String log = java.nio.file.Files.readString(h.stack.connect().logFile());
            for (String s : sinks.keySet()) {
                long warned = log.lines().filter(l -> l.contains("[" + s + "|task-") && l.contains(" WARN ")
                        && l.contains("cache of inserted rows is full (cdc.row.cache.bytes=65536 holds")).count();
                System.out.println("CdcReadBatchingTest: " + s + " warned " + warned + " time(s) of its full cache");
                assertTrue(warned >= 1, s + " logged that its full cache of inserted rows makes it read");
            }
        } finally {
            for (String c : connectors) {
                h.deleteQuietly(c);
            }
        }
    }

    private boolean awaitSourceCommit(String source) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (h.rest().committedOffsetCount(source) == 0) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(250);
        }
        return true;
    }

    /** Stops the sinks, updates every row once, waits for Debezium to write all of it, and resumes the sinks. */
    private void backlog(ToastUpdates w, Iterable<String> sinks, long records) throws Exception {
        for (String s : sinks) {
            h.rest().stopConnector(s, Duration.ofMinutes(1));
        }
        assertEquals(ROWS, w.updateAll());
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (endOffsets(w.topic) < records) {
            assertTrue(System.nanoTime() < deadline, "Debezium wrote " + endOffsets(w.topic) + " of " + records
                    + " records within 2 minutes");
            Thread.sleep(200);
        }
        for (String s : sinks) {
            h.rest().resumeConnector(s);
        }
        for (String s : sinks) {
            h.rest().waitForTasksRunning(s, 2, Duration.ofMinutes(2));
        }
    }

    private long endOffsets(String topic) throws Exception {
        Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
        for (int p = 0; p < 3; p++) {
            ask.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        return h.stack.kafka().admin().listOffsets(ask).all().get().values().stream()
                .mapToLong(i -> i.offset()).sum();
    }

    private void awaitEqual(ToastUpdates w, Map<String, String> sinks, String when) throws InterruptedException {
        Map<Long, String> want = w.sourceRows();
        assertEquals(ROWS, want.size());
        List<ConnectorFailure> probes = sinks.keySet().stream().map(s -> new ConnectorFailure(h.rest(), s)).toList();
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        for (Map.Entry<String, String> s : sinks.entrySet()) {
            Map<Long, String> read = w.targetRows(h.ch(), s.getValue());
            while (!read.equals(want) && System.nanoTime() < deadline) {
                for (ConnectorFailure p : probes) {
                    String f = p.get();
                    assertTrue(f == null, f);
                }
                Thread.sleep(500);
                read = w.targetRows(h.ch(), s.getValue());
            }
            Map<Long, String> got = read;
            long differing = want.entrySet().stream().filter(e -> !e.getValue().equals(got.get(e.getKey()))).count();
            String first = want.entrySet().stream().filter(e -> !e.getValue().equals(got.get(e.getKey()))).limit(3)
                    .map(e -> "id " + e.getKey() + ": PostgreSQL " + e.getValue() + ", ClickHouse " + got.get(e.getKey()))
                    .toList().toString();
            assertEquals(0, differing, s.getKey() + " " + when + ": " + differing + " rows differ, e.g. " + first);
            assertEquals(ROWS, got.size(), s.getKey() + " " + when);
            assertEquals(0, h.scalar("SELECT count() FROM `" + s.getValue() + "`.`" + w.table
                    + "` WHERE body = '__debezium_unavailable_value'"), "no version holds the placeholder");
            System.out.println("CdcReadBatchingTest: " + s.getKey() + " equals PostgreSQL " + when);
        }
    }
}
