package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.events.Event;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ConnectRest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The exactly_once stall: a task whose recorded-but-uncommitted blocks are larger than {@code buffer.max.bytes}.
 *
 * <p>A rebuild (docs/exactly-once.md, protocol step 5) is never sealed by time, size or memory pressure: it is
 * sealed when the record at its recorded last offset has been seen. A block recorded under a large
 * {@code flush.max.bytes} and rebuilt under a smaller {@code buffer.max.bytes} therefore fills the buffer before
 * it is complete: the task pauses every partition ("consumption paused until inserts complete"), no insert is in
 * flight to free the buffer, and the rebuild never gets its last records. The task stays RUNNING with a flat row
 * count and no error, forever.
 *
 * <p>Scenario: 400,000 events produced first to one topic of 4 partitions (100,000 per partition); the target table
 * refuses every insert ({@code ADD CONSTRAINT c CHECK 0}); an exactly_once connector (one task) with blocks of one
 * whole partition (flush.max.rows 1,000,000, flush.max.bytes 64 MiB, flush.interval.ms 10 min) records its first
 * block (about 9 MB encoded) in the state table, and its insert fails the task. Then the constraint is dropped,
 * the connector reconfigured with flush.max.bytes 1 MiB &lt; buffer.max.bytes 4 MiB &lt; the recorded block (and
 * flush.interval.ms 5 s, for the tail after the rebuilds), and the failed task restarted. Expected: every event
 * lands exactly once (count() = uniqExact(*) = 400,000, the dataset's check line) within 4 minutes of the restart.
 * Until the connector seals (or otherwise frees) a rebuild under memory pressure, this test fails with "count stuck at N for 60 s, task RUNNING, partitions paused".
 */
class ExactlyOnceStallTest {
    private static final long EVENTS = 400_000;
    private static final int PARTITIONS = 4;
    private static final long SEED = 4242;
    private static final long RECORD_FLUSH_MAX_BYTES = 64L << 20;
    private static final long FLUSH_MAX_BYTES = 1L << 20;
    private static final long BUFFER_MAX_BYTES = 4L << 20;
    private static final Duration STALL = Duration.ofSeconds(60);
    private static final Duration DEADLINE = Duration.ofMinutes(4);
    private final SinkHarness h = new SinkHarness();

    @Test
    @DisplayName("exactly_once: recorded blocks larger than buffer.max.bytes are rebuilt and land once, no stall")
    void recordedBlocksLargerThanTheBufferAreRebuiltWithoutStalling() throws Exception {
        String topic = SinkHarness.unique("eo_stall");
        String connector = SinkHarness.unique("eo_stall_sink");
        String state = SinkHarness.unique("eo_stall_state");
        String table = EventsTable.qualified(h.db, topic);
        h.stack.clickhouse().exec(EventsTable.createDedupSql(h.db, topic));
        h.stack.clickhouse().exec("ALTER TABLE " + table + " ADD CONSTRAINT c CHECK 0");
        h.stack.kafka().createTopic(topic, PARTITIONS);
        new EventProducer(h.stack.kafka().bootstrapServers()).produce(topic, PARTITIONS, new EventGenerator(SEED),
                EVENTS, true, null);
        WorkerLog log = workerLog(connector, topic);
        long t0 = System.nanoTime();
        try {
            // 1. Blocks of a whole partition, recorded, then refused by the table: the task fails.
            Map<String, String> o = SinkHarness.overrides(topic, 1);
            o.put("exactly.once.state.table", state);
            o.put("flush.max.rows", "1000000");
            o.put("flush.max.bytes", Long.toString(RECORD_FLUSH_MAX_BYTES));
            o.put("buffer.max.bytes", Long.toString(8 * RECORD_FLUSH_MAX_BYTES));
            o.put("flush.interval.ms", "600000");
            h.createConnector(connector, "clickhouse-sink-exactly-once.json", o);
            String trace = h.awaitFailure(connector, Duration.ofMinutes(3));
            String recorded = h.ch().query("SELECT count(), sum(rows), groupArray(concat(toString(partition), ':', "
                    + "toString(first_offset), '-', toString(last_offset))) FROM `" + state + "` FINAL WHERE connector = '"
                    + connector + "' AND first_offset >= 0 FORMAT TSV").trim();
            long recordedBlocks = Long.parseLong(recorded.split("\t")[0]);
            long recordedRows = Long.parseLong(recorded.split("\t")[1]);
            long largest = largestRecordedBlockBytes(state, connector);
            System.out.printf("ExactlyOnceStallTest: task failed after %.1f s (%s); state table: %d recorded blocks, "
                    + "%d rows %s, the largest about %d bytes encoded%n", (System.nanoTime() - t0) / 1e9,
                    SinkHarness.causeLine(trace), recordedBlocks, recordedRows, recorded.split("\t")[2], largest);
            assertTrue(recordedBlocks > 0, "the failed insert must have recorded its block first: " + recorded);
            assertTrue(BUFFER_MAX_BYTES < largest, "the recorded block (about " + largest + " bytes) must be larger "
                    + "than buffer.max.bytes=" + BUFFER_MAX_BYTES);
            assertEquals(0, h.scalar("SELECT count() FROM " + table), "the constraint refuses every insert");

            // 2. The table accepts inserts again; the buffer is now smaller than the recorded block.
            h.stack.clickhouse().exec("ALTER TABLE " + table + " DROP CONSTRAINT c");
            o.put("flush.max.bytes", Long.toString(FLUSH_MAX_BYTES));
            o.put("buffer.max.bytes", Long.toString(BUFFER_MAX_BYTES));
            // Rebuilds are never sealed by time; the blocks after them are. The last of those is a tail smaller
            // than the share of flush.max.bytes sealed when the partitions go quiet, so without a short interval it
            // would wait the 10 minutes of phase 1 and the count would stay short of EVENTS by that tail.
            o.put("flush.interval.ms", "5000");
            h.createConnector(connector, "clickhouse-sink-exactly-once.json", o);
            h.rest().restartConnector(connector, true, true);
            long restart = System.nanoTime();
            awaitRestarted(connector, trace);
            awaitExactlyOnce(connector, topic, log, restart);
            System.out.printf("ExactlyOnceStallTest: %d rows landed once %.1f s after the restart (%.1f s in all)%n",
                    EVENTS, (System.nanoTime() - restart) / 1e9, (System.nanoTime() - t0) / 1e9);
        } finally {
            h.deleteQuietly(connector);
        }
    }

    /**
     * Waits until the task that failed in phase 1 is running again. The new configuration and the restart reach
     * the worker asynchronously: until the new task writes its status, GET /status still shows the old FAILED one
     * with the phase-1 trace (seen once in CI: the watch below took it for a new failure). A FAILED task with any
     * other trace is a new failure and fails the test; the old one still shown after 30 s gets one more restart.
     */
    private void awaitRestarted(String connector, String staleTrace) throws InterruptedException {
        ConnectorFailure failure = new ConnectorFailure(h.rest(), connector);
        long start = System.nanoTime();
        boolean again = false;
        while (true) {
            String f = failure.get();
            if (f == null) {
                ConnectRest.ConnectorStatus status = null;
                try {
                    status = h.rest().connectorStatus(connector);
                } catch (RuntimeException e) {
                    // 409 while the worker rebalances: ask again
                }
                if (status != null && status.runningWith(1)) {
                    System.out.printf("ExactlyOnceStallTest: task running again %.1f s after the restart%n",
                            (System.nanoTime() - start) / 1e9);
                    return;
                }
            } else if (!f.equals(staleTrace)) {
                throw new AssertionError("connector failed again after the restart: " + SinkHarness.causeLine(f));
            } else if (!again && System.nanoTime() - start > Duration.ofSeconds(30).toNanos()) {
                again = true;
                System.out.println("ExactlyOnceStallTest: the phase-1 failure still shown after 30 s; restarting again");
                h.rest().restartConnector(connector, true, true);
            }
            if (System.nanoTime() - start > Duration.ofMinutes(2).toNanos()) {
                throw new AssertionError("the task did not run again within 2 min of the restart: "
                        + (f == null ? "not running yet" : SinkHarness.causeLine(f)));
            }
            Thread.sleep(250);
        }
    }

    /** Waits until count() reaches EVENTS; fails on a flat count for STALL, a failed task, or the deadline. */
    private void awaitExactlyOnce(String connector, String topic, WorkerLog log, long restart) throws Exception {
        String table = EventsTable.qualified(h.db, topic);
        ConnectorFailure failure = new ConnectorFailure(h.rest(), connector);
        long last = -1;
        long lastChange = System.nanoTime();
        long lastPrint = 0;
        while (true) {
            long count = h.scalar("SELECT count() FROM " + table);
            long now = System.nanoTime();
            if (count != last) {
                last = count;
                lastChange = now;
            }
            if (now - lastPrint > 10_000_000_000L) {
                lastPrint = now;
                System.out.printf("ExactlyOnceStallTest: %.0f s after the restart: %d rows%n", (now - restart) / 1e9, count);
            }
            if (count >= EVENTS) {
                break;
            }
            String f = failure.get();
            if (f != null) {
                throw new AssertionError("connector failed with " + count + " of " + EVENTS + " rows: "
                        + SinkHarness.causeLine(f));
            }
            if (now - lastChange > STALL.toNanos() || now - restart > DEADLINE.toNanos()) {
                throw new AssertionError(describeStall(connector, count, now - lastChange > STALL.toNanos()
                        ? "count stuck at " + count + " of " + EVENTS + " for " + STALL.toSeconds() + " s"
                        : "only " + count + " of " + EVENTS + " rows " + DEADLINE.toMinutes() + " min after the restart",
                        log));
            }
            Thread.sleep(500);
        }
        Thread.sleep(2000); // a duplicate block would land right after the last one
        long count = h.scalar("SELECT count() FROM " + table);
        long distinct = h.scalar("SELECT uniqExact(*) FROM " + table);
        assertEquals(EVENTS, count, "count() (duplicates?)");
        assertEquals(EVENTS, distinct, "uniqExact(*)");
        assertEquals(EventsTable.expected(SEED, EVENTS), EventsTable.check(h.ch(), h.db, topic),
                "check line");
    }

    /** The worker's log from now on, or null when the worker is external (its log is not here). */
    private WorkerLog workerLog(String connector, String topic) {
        try {
            return new WorkerLog(h.stack.connect().logFile(), connector, h.db + "." + topic);
        } catch (RuntimeException | java.io.IOException e) {
            return null;
        }
    }

    /** The failure message of a stall: count, task state, pause state and the pause lines the task logged. */
    private String describeStall(String connector, long count, String what, WorkerLog log) {
        ConnectRest.ConnectorStatus status = h.rest().connectorStatus(connector);
        StringBuilder tasks = new StringBuilder();
        status.tasks().forEach(t -> tasks.append(tasks.length() == 0 ? "" : ", ").append("task ").append(t.id())
                .append(' ').append(t.state()));
        if (log == null) {
            return what + ", tasks " + tasks + " (the worker's log is not available)";
        }
        log.poll();
        List<LogEvent> events = log.between(0, Long.MAX_VALUE);
        List<Integer> paused = log.pausedTasks(Long.MAX_VALUE);
        String pauses = events.stream().filter(e -> e.kind() == Kind.PAUSE).map(e -> "task-" + e.task() + " paused holding "
                + e.value() + " bytes").reduce((a, b) -> a + "; " + b).orElse("none");
        long resumes = events.stream().filter(e -> e.kind() == Kind.RESUME).count();
        boolean running = status.tasks().stream().allMatch(ConnectRest.TaskState::isRunning);
        return what + ", " + (running ? "task RUNNING" : tasks) + ", "
                + (paused.isEmpty() ? "partitions not paused" : "partitions paused (tasks " + paused + ")")
                + "; since the connector was created: pauses [" + pauses + "], " + resumes + " resumes, "
                + log.retries() + "; connector " + status.connector().state() + ", " + tasks
                + "; buffer.max.bytes=" + BUFFER_MAX_BYTES + ", flush.max.bytes=" + FLUSH_MAX_BYTES
                + " (recorded under flush.max.bytes=" + RECORD_FLUSH_MAX_BYTES + ")";
    }

    /** About the encoded Native size of the largest block in the state table (see {@link #encodedBytes}). */
    private long largestRecordedBlockBytes(String state, String connector) {
        long max = 0;
        for (String line : h.ch().query("SELECT partition, first_offset, last_offset FROM `" + state + "` FINAL WHERE "
                + "connector = '" + connector + "' AND first_offset >= 0 FORMAT TSV").split("\n")) {
            if (!line.isBlank()) {
                String[] f = line.split("\t");
                max = Math.max(max, encodedBytes(Integer.parseInt(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])));
            }
        }
        return max;
    }

    /**
     * About the encoded Native size of offsets {@code first..last} of a partition (EventProducer sends event i to
     * partition i % 4, so offset k of partition p is event 4k + p): per row DateTime 4, UInt64 8, two
     * LowCardinality keys of 1, the URL with its length, UInt32 4, Decimal64 8 bytes.
     */
    private static long encodedBytes(int partition, long first, long last) {
        long bytes = 0;
        long i = 0;
        for (Event e : EventGenerator.events(SEED, EVENTS)) {
            long offset = i / PARTITIONS;
            if (i++ % PARTITIONS == partition && offset >= first && offset <= last) {
                int len = e.url().getBytes(StandardCharsets.UTF_8).length;
                bytes += 4 + 8 + 1 + 1 + len + (len < 128 ? 1 : 2) + 4 + 8;
            }
        }
        return bytes;
    }
}
