package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import com.sun.tools.attach.VirtualMachine;
import io.chsink.it.events.Event;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ClickHouseServer;
import io.chsink.it.stack.ConnectRest;
import io.chsink.it.stack.RowWatcher;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Test;

/**
 * ClickHouse is SIGKILLed while events stream in and kept down for 35 s while production goes on, then restarted
 * on the same port and data dir. The connector must ride it out:
 * <ul>
 * <li>the connector and its tasks are never FAILED (status polled every 250 ms throughout);</li>
 * <li>memory stays bounded: every "consumption paused" line reports at most {@code buffer.max.bytes} plus one
 * poll batch; while ClickHouse is down each task pauses, never resumes, and once all are paused the records
 * they read (Connect's {@code sink-record-read-total}, over JMX) stay flat although the topic keeps growing;</li>
 * <li>rows land again within seconds of the restart;</li>
 * <li>every event lands (at-least-once: duplicates are allowed and counted, loss is not) and the distinct rows
 * are exactly the generated dataset;</li>
 * <li>the connector's own JMX metrics count the retried inserts and, in the end, every row inserted.</li>
 * </ul>
 * {@code buffer.max.bytes} and {@code flush.max.bytes} default to 2 MiB and 512 KiB; system properties
 * {@code chsink.outage.buffer.max.bytes} and {@code chsink.outage.flush.max.bytes} override them.
 */
class ClickHouseOutageTest {
    private static final long ROWS = 200_000;
    private static final long SEED = 4242;
    private static final int PARTITIONS = 4;
    private static final int TASKS = 2;
    private static final long EVENTS_PER_SECOND = 3_000;
    private static final long BUFFER_MAX_BYTES = Long.getLong("chsink.outage.buffer.max.bytes", 2L << 20);
    private static final long FLUSH_MAX_BYTES = Long.getLong("chsink.outage.flush.max.bytes", 512L << 10);
    /**
     * How far a pause may report the held bytes past buffer.max.bytes: the check runs after each put(), so one
     * poll batch (500 records of well under 1 KiB) may come on top.
     */
    private static final long PAUSE_OVERSHOOT_SLACK = 1L << 20;
    private static final long ROWS_BEFORE_KILL = 15_000;
    /** Long enough for the retries' backoff to reach its 10 s cap (after about 20 s) and stay there. */
    private static final Duration MIN_OUTAGE = Duration.ofSeconds(35);
    /** Once every task is paused, ClickHouse stays down at least this long more, to see the reads stay flat. */
    private static final Duration PAUSED_AT_LEAST = Duration.ofSeconds(5);
    private static final Duration MAX_OUTAGE = Duration.ofSeconds(120);
    /** From this long after the kill on, no insert can complete: the task polls its inserts every 50 ms. */
    private static final Duration OUTAGE_GRACE = Duration.ofSeconds(2);
    /** The insert retry backoff is capped at 10 s: the first new row must come well within this of the restart. */
    private static final Duration MAX_RESUME = Duration.ofSeconds(25);
    private static final String TASK_LOGGER = "io.chsink.connect.ClickHouseSinkTask";

    private final SinkHarness h = new SinkHarness();

    /** A (time, value) observation; time in System.nanoTime(). */
    private record Sample(long nanos, long value) {
    }

    @Test
    void connectorRidesOutAClickHouseOutageWithBoundedMemoryAndLosesNothing() throws Exception {
        String topic = SinkHarness.unique("outage");
        String connector = SinkHarness.unique("sink");
        ClickHouseServer clickhouse = h.stack.clickhouse();
        clickhouse.exec(EventsTable.createSql(h.db, topic));
        h.stack.kafka().createTopic(topic, PARTITIONS);
        Map<String, String> o = SinkHarness.overrides(topic, TASKS);
        o.put("value.converter.schemas.enable", "true");
        o.put("buffer.max.bytes", String.valueOf(BUFFER_MAX_BYTES));
        o.put("flush.max.bytes", String.valueOf(FLUSH_MAX_BYTES));

        AtomicBoolean done = new AtomicBoolean();
        List<String> failures = new CopyOnWriteArrayList<>();
        List<String> otherStates = new CopyOnWriteArrayList<>();
        List<Sample> counts = new CopyOnWriteArrayList<>();
        List<Sample> reads = new CopyOnWriteArrayList<>();
        List<Sample> produced = new CopyOnWriteArrayList<>();
        AtomicLong statusPolls = new AtomicLong();
        AtomicLong acked = new AtomicLong();
        AtomicReference<Exception> produceError = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        CompletableFuture<Long> producing = null;
        TaskMetrics metrics = null;
        try {
            // Resume lines (and per-insert lines) are DEBUG: without them a pause that began before the kill is
            // not told apart from one that ended.
            setWorkerLogLevel(TASK_LOGGER, "DEBUG");
            WorkerLog log = new WorkerLog(h.stack.connect().logFile(), connector, h.db + "." + topic);
            h.createConnector(connector, "clickhouse-sink.json", o);
            h.rest().waitForTasksRunning(connector, TASKS, Duration.ofSeconds(60));
            metrics = TaskMetrics.attach(h.stack.connect().logFile().getParent(), connector, TASKS);

            threads.add(daemon("status", () -> pollStatus(connector, done, failures, otherStates, statusPolls)));
            threads.add(daemon("count", () -> pollCounts(topic, done, counts)));
            TaskMetrics m = metrics;
            threads.add(daemon("reads", () -> pollReads(m, acked, done, reads, produced)));
            producing = CompletableFuture.supplyAsync(() -> producePaced(topic, done, acked, produceError));

            // Fails fast, with the reason, if a task fails or a pause reports more than the bound.
            ConnectorFailure connectorFailure = new ConnectorFailure(h.rest(), connector);
            Supplier<String> problem = () -> {
                String f = connectorFailure.get();
                return f != null ? f : log.poll().overBound(BUFFER_MAX_BYTES, BUFFER_MAX_BYTES + PAUSE_OVERSHOOT_SLACK);
            };
            RowWatcher watcher = new RowWatcher(h.ch(), "`" + topic + "`");
            try {
                watcher.awaitRows(ROWS_BEFORE_KILL, Duration.ofMinutes(2), Duration.ofSeconds(60), problem, null);
            } catch (AssertionError e) {
                throw new AssertionError("before the outage: " + e.getMessage() + "\n" + diagnose(topic, log), e);
            }

            // ---- the outage ----
            long rowsBeforeKill = watcher.count();
            long readsAtKill = metrics.recordsRead();
            long producedAtKill = acked.get();
            long logAtKill = log.poll().size();
            long killedAt = System.nanoTime();
            assertEquals(137, clickhouse.kill(), "SIGKILL of ClickHouse");
            assertTrue(producedAtKill < ROWS / 2, "production must go on through the outage, but "
                    + producedAtKill + " of " + ROWS + " events were produced already at the kill");
            // An insert that succeeded just before the kill may still be collected (and a pause end) right after
            // it; from OUTAGE_GRACE on, nothing can complete any more, so nothing may resume.
            long logAfterGrace = -1;
            long allPausedAt = 0;
            while (true) {
                Thread.sleep(250);
                long now = System.nanoTime();
                String p = problem.get();
                if (p != null) {
                    fail("while ClickHouse was down: " + p);
                }
                if (logAfterGrace < 0 && now - killedAt >= OUTAGE_GRACE.toNanos()) {
                    logAfterGrace = log.size();
                }
                if (logAfterGrace >= 0 && allPausedAt == 0 && log.pausedTasks(Long.MAX_VALUE).size() == TASKS) {
                    allPausedAt = now;
                }
                if (now - killedAt >= MIN_OUTAGE.toNanos() && allPausedAt != 0
                        && now - allPausedAt >= PAUSED_AT_LEAST.toNanos()) {
                    break;
                }
                if (now - killedAt > MAX_OUTAGE.toNanos()) {
                    fail("Not every task paused consumption within " + MAX_OUTAGE.toSeconds() + " s of ClickHouse "
                            + "going down; paused: " + log.pausedTasks(Long.MAX_VALUE) + "; events during the "
                            + "outage: " + log.between(logAtKill, Long.MAX_VALUE));
                }
            }
            long readsBeforeRestart = metrics.recordsRead();
            long producedBeforeRestart = acked.get();
            long logAtRestart = log.poll().size();
            long restartCalledAt = System.nanoTime();
            clickhouse.start();
            long restartedAt = System.nanoTime();

            // ---- recovery ----
            assertEquals(ROWS, producing.get(5, TimeUnit.MINUTES).longValue());
            assertNull(produceError.get(), "producer error");
            new RowWatcher(h.ch(), "`" + topic + "`", "uniqExact(*)").awaitRows(ROWS, Duration.ofMinutes(5),
                    Duration.ofSeconds(120), problem, null);
            Thread.sleep(2000); // late duplicates and the last status polls
            done.set(true);
            for (Thread t : threads) {
                t.join(10_000);
            }
            log.poll();

            // ---- never FAILED ----
            ConnectRest.ConnectorStatus finalStatus = h.rest().connectorStatus(connector);
            assertTrue(failures.isEmpty(), "connector or task FAILED: " + failures);
            assertTrue(finalStatus.runningWith(TASKS), "final status: " + finalStatus);
            assertTrue(statusPolls.get() > 100, "status polled only " + statusPolls.get() + " times");

            // ---- every event landed; the distinct rows are exactly the dataset ----
            long total = h.scalar("SELECT count() FROM `" + topic + "`");
            h.assertDistinctRowsAreTheDataset(topic, SEED, ROWS);

            // ---- the connector's metrics: retries counted, every row counted ----
            long retries = metrics.sinkTask("Retries");
            assertTrue(retries > 0, "Retries metric after the outage: " + metrics.describe("Retries"));
            assertEquals(retries, metrics.sinkTable(h.db + "." + topic, "Retries"), "task and table retry counts");
            // Every row is counted once when its insert is verified; a block the server wrote while the kill cut off
            // its answer is in count() twice but verified once.
            long rowsMetric = metrics.sinkTask("RowsInserted");
            assertTrue(rowsMetric >= ROWS && rowsMetric <= total, "RowsInserted metric " + rowsMetric + ", "
                    + ROWS + " events, count() " + total);
            assertEquals(0, metrics.sinkTask("FailingForMs"), "FailingForMs after the recovery");

            // ---- memory bound: every pause, before, during and after the outage ----
            assertNull(log.overBound(BUFFER_MAX_BYTES, BUFFER_MAX_BYTES + PAUSE_OVERSHOOT_SLACK));

            // ---- while ClickHouse was down: paused, never resumed ----
            List<LogEvent> outage = log.between(logAtKill, logAtRestart);
            assertEquals(TASKS, log.pausedTasks(logAtRestart).size(), "tasks paused when ClickHouse came back: "
                    + log.pausedTasks(logAtRestart) + "; events during the outage: " + outage);
            List<LogEvent> resumed = log.between(logAfterGrace, logAtRestart).stream()
                    .filter(e -> e.kind() == Kind.RESUME).toList();
            assertTrue(resumed.isEmpty(), "a task resumed consumption while ClickHouse was down (nothing could "
                    + "have been inserted, so the held bytes could not drop): " + resumed);
            assertTrue(outage.stream().anyMatch(e -> e.kind() == Kind.RETRY), "no insert was retried while ClickHouse "
                    + "was down: " + outage);
            // Once every task paused, the tasks read nothing more, though the topic kept growing. (From 1 s after
            // the last pause line was seen, so that the sample surely follows that pause.)
            long flatFrom = allPausedAt + 1_000_000_000L;
            long pausedReads = valueAt(reads, flatFrom);
            long endReads = valueAt(reads, restartCalledAt);
            long producedWhilePaused = valueAt(produced, restartCalledAt) - valueAt(produced, flatFrom);
            assertEquals(pausedReads, endReads, "records read by the tasks while every task was paused and "
                    + "ClickHouse was down");
            assertTrue(producedWhilePaused > 0, "no event was produced while the tasks were paused");
            long unread = producedBeforeRestart - readsBeforeRestart;
            assertTrue(unread > 10_000, "the tasks had read " + readsBeforeRestart + " of " + producedBeforeRestart
                    + " records produced by the end of the outage: the outage did not exercise the bound");

            // ---- resumed within seconds of the restart ----
            Sample firstAfter = null;
            Sample newRow = null;
            for (Sample s : counts) {
                if (s.nanos() < restartCalledAt) {
                    continue;
                }
                if (firstAfter == null) {
                    firstAfter = s;
                } else if (s.value() > firstAfter.value()) {
                    newRow = s;
                    break;
                }
            }
            assertTrue(firstAfter != null && newRow != null, "no new row after the restart: " + counts);
            long resumeMs = (newRow.nanos() - restartedAt) / 1_000_000;
            assertTrue(resumeMs <= MAX_RESUME.toMillis(), "first new row " + resumeMs + " ms after ClickHouse was "
                    + "up again (limit " + MAX_RESUME.toMillis() + " ms)");

            long heldRows = readsBeforeRestart - rowsBeforeKill;
            Map<Integer, Long> heldAtPause = new TreeMap<>();
            log.events(0, logAtRestart).stream().filter(e -> e.kind() == Kind.PAUSE)
                    .forEach(e -> heldAtPause.put(e.task(), e.value()));
            System.out.printf("ClickHouseOutageTest: buffer.max.bytes=%d, flush.max.bytes=%d; ClickHouse down "
                    + "%.1f s (restart took %d ms)%n", BUFFER_MAX_BYTES, FLUSH_MAX_BYTES,
                    (restartCalledAt - killedAt) / 1e9, (restartedAt - restartCalledAt) / 1_000_000);
            System.out.printf("ClickHouseOutageTest: at the kill %d rows landed, %d events produced, %d read; at the "
                    + "restart %d produced, %d read (%d unread in Kafka, ~%d rows held by the tasks); held bytes at "
                    + "the outage pause per task %s (%.0f bytes/row); while all were paused the reads stayed at %d "
                    + "while %d more events were produced%n", rowsBeforeKill, producedAtKill, readsAtKill,
                    producedBeforeRestart, readsBeforeRestart, unread, heldRows, heldAtPause,
                    heldRows > 0 ? heldAtPause.values().stream().mapToLong(Long::longValue).sum() / (double) heldRows
                            : 0.0, endReads, producedWhilePaused);
            System.out.printf("ClickHouseOutageTest: %d pause lines in all (%d during the outage); inserts retried: "
                    + "%s (Retries metric %d); count %d right after the restart (%d before the kill); first new row "
                    + "%d ms after ClickHouse was up; %d rows in the end: %d distinct, %d duplicates, 0 lost; "
                    + "status polled %d times, never FAILED%s%n",
                    log.events(0, Long.MAX_VALUE).stream().filter(e -> e.kind() == Kind.PAUSE).count(),
                    outage.stream().filter(e -> e.kind() == Kind.PAUSE).count(), log.retries(), retries, firstAfter.value(),
                    rowsBeforeKill, resumeMs, total, ROWS, total - ROWS, statusPolls.get(),
                    otherStates.isEmpty() ? "" : "; other states seen: " + otherStates);
        } finally {
            done.set(true);
            if (producing != null) {
                producing.cancel(true);
            }
            if (!clickhouse.isRunning()) {
                clickhouse.start(); // other test classes share it
            }
            if (metrics != null) {
                metrics.close();
            }
            h.deleteQuietly(connector);
            try {
                setWorkerLogLevel(TASK_LOGGER, "INFO");
            } catch (RuntimeException e) {
                System.err.println("ClickHouseOutageTest: cannot reset the log level of " + TASK_LOGGER + ": " + e);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    /** What the task logged, and how big its inserts are: the likely reasons when rows do not come. */
    private String diagnose(String topic, WorkerLog log) {
        StringBuilder s = new StringBuilder();
        try {
            s.append("parts of ").append(topic).append(" (count, rows, avg rows): ").append(h.ch().scalar(
                    "SELECT count(), sum(rows), round(avg(rows)) FROM system.parts WHERE database = currentDatabase() "
                            + "AND table = '" + topic + "' AND level = 0 FORMAT CSV"));
        } catch (RuntimeException e) {
            s.append("(no part statistics: ").append(e.getMessage()).append(')');
        }
        List<LogEvent> pauses = log.poll().events(0, Long.MAX_VALUE).stream().filter(e -> e.kind() == Kind.PAUSE)
                .toList();
        s.append("\npause lines (held bytes): ").append(pauses.size()).append(", first ")
                .append(pauses.subList(0, Math.min(6, pauses.size())));
        List<LogEvent> inserts = log.events(0, Long.MAX_VALUE).stream().filter(e -> e.kind() == Kind.INSERTED)
                .toList();
        s.append("\ninserts logged: ").append(inserts.size()).append(", rows per insert of the first: ")
                .append(inserts.subList(0, Math.min(10, inserts.size())).stream().map(LogEvent::value).toList());
        return s.toString();
    }

    private void setWorkerLogLevel(String logger, String level) throws RuntimeException {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(h.stack.connect().restUrl() + "/admin/loggers/" + logger))
                    .timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString("{\"level\":\"" + level + "\"}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() / 100 != 2) {
                throw new IllegalStateException("PUT /admin/loggers/" + logger + " -> HTTP " + r.statusCode() + ": "
                        + r.body());
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot set the worker's log level of " + logger, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, "outage-test-" + name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Produces the first ROWS events of SEED, round-robin over the partitions, at EVENTS_PER_SECOND. */
    private long producePaced(String topic, AtomicBoolean done, AtomicLong acked, AtomicReference<Exception> error) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, h.stack.kafka().bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        Function<Event, byte[]> encode = EventProducer.format(true);
        EventGenerator generator = new EventGenerator(SEED);
        long start = System.nanoTime();
        long sent = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (; sent < ROWS && !done.get(); sent++) {
                producer.send(new ProducerRecord<>(topic, (int) (sent % PARTITIONS), null,
                        encode.apply(generator.next())), (md, e) -> {
                            if (e != null) {
                                error.compareAndSet(null, e);
                            } else {
                                acked.incrementAndGet();
                            }
                        });
                if ((sent + 1) % 200 == 0) {
                    long wait = start + (sent + 1) * 1_000_000_000L / EVENTS_PER_SECOND - System.nanoTime();
                    if (wait > 0) {
                        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                    }
                }
            }
            producer.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return sent;
    }

    private void pollStatus(String connector, AtomicBoolean done, List<String> failures, List<String> otherStates,
            AtomicLong polls) {
        while (!done.get()) {
            try {
                ConnectRest.ConnectorStatus s = h.rest().connectorStatus(connector);
                polls.incrementAndGet();
                List<ConnectRest.TaskState> all = new ArrayList<>(s.tasks());
                all.add(0, s.connector());
                for (ConnectRest.TaskState t : all) {
                    String who = t.id() < 0 ? "connector" : "task " + t.id();
                    if (t.isFailed()) {
                        failures.add(who + " FAILED: " + t.trace());
                    } else if (!t.isRunning() && !otherStates.contains(who + " " + t.state())) {
                        otherStates.add(who + " " + t.state());
                    }
                }
                if (s.tasks().size() != TASKS && !otherStates.contains(s.tasks().size() + " tasks")) {
                    otherStates.add(s.tasks().size() + " tasks");
                }
            } catch (RuntimeException e) {
                String what = "status error " + e.getClass().getSimpleName();
                if (otherStates.stream().noneMatch(x -> x.startsWith(what))) {
                    otherStates.add(what + ": " + e.getMessage());
                }
            }
            sleep(250);
        }
    }

    private void pollCounts(String topic, AtomicBoolean done, List<Sample> counts) {
        long last = -1;
        while (!done.get()) {
            try {
                long c = Long.parseLong(h.ch().query("SELECT count() FROM `" + topic + "`", Duration.ofSeconds(5)).trim());
                if (c != last) {
                    counts.add(new Sample(System.nanoTime(), c));
                    last = c;
                }
            } catch (RuntimeException down) {
                last = -1; // the first answer after the restart is recorded even if the count did not change
            }
            sleep(100);
        }
    }

    private static void pollReads(TaskMetrics metrics, AtomicLong acked, AtomicBoolean done, List<Sample> reads,
            List<Sample> produced) {
        while (!done.get()) {
            long producedBefore = acked.get();
            try {
                long read = metrics.recordsRead();
                long now = System.nanoTime();
                reads.add(new Sample(now, read));
                produced.add(new Sample(now, producedBefore));
            } catch (RuntimeException e) {
                // the worker is busy; the next sample will do
            }
            sleep(200);
        }
    }

    /** The last sample at or before {@code nanos}. */
    private static long valueAt(List<Sample> samples, long nanos) {
        long v = 0;
        for (Sample s : samples) {
            if (s.nanos() > nanos) {
                break;
            }
            v = s.value();
        }
        return v;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
