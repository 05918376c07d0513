package io.chsink.it.bench;

import io.chsink.it.avro.TestRegistry;
import io.chsink.it.events.Event;
import io.chsink.it.events.EventAvro;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ProcessCpu;
import io.chsink.it.stack.RowWatcher;
import io.chsink.it.stack.Stack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Path B: Kafka topic → Connect worker → the connector → ClickHouse. The topic is produced in full first; the
 * clock runs from the REST call that creates the connector until the last row is visible in the table. The
 * connector's config is the repository's example ({@code config/clickhouse-sink.json} for JSON with schemas,
 * {@code config/clickhouse-sink-schemaless.json} for plain JSON, {@code config/clickhouse-sink-avro.json} for Avro
 * read by the plugin's AvroConverter from a stand-in registry in this JVM) with only the addresses, topic, table and
 * {@code tasks.max} set: the figures are those of the default configuration (for the runs with Kafka's JsonConverter,
 * value.converter is set to it instead of the examples' JsonEnvelopeConverter). CPU time of the worker and of
 * ClickHouse is read from /proc; with a profile requested, the worker runs a JFR recording for exactly that window.
 */
final class EndToEndPath {
    /** What one run measured. */
    record Result(long rows, long nanos, long firstRowNanos, long kafkaValueBytes, double produceSeconds, ProcessCpu.Sample workerCpu,
            ProcessCpu.Sample serverCpu, WorkerGcLog.Window gc, int pausesLogged, long blocks, JfrBreakdown profile) {
    }

    private static final java.util.regex.Pattern TASK_STOPPED = java.util.regex.Pattern.compile(
            "ClickHouse sink task stopped: records received=\\d+, rows inserted=(\\d+) in (\\d+) blocks");

    /** How the events travel in Kafka, and the config/ example that reads them. */
    enum Format {
        SCHEMA("JSON with schemas", "clickhouse-sink.json"),
        SCHEMALESS("schemaless JSON", "clickhouse-sink-schemaless.json"),
        AVRO("Avro with a schema registry", "clickhouse-sink-avro.json");

        final String description;
        final String example;

        Format(String description, String example) {
            this.description = description;
            this.example = example;
        }
    }

    /** The example of delivery.guarantee=exactly_once (JSON with schemas, as {@link Format#SCHEMA}'s). */
    static final String EXACTLY_ONCE_EXAMPLE = "clickhouse-sink-exactly-once.json";

    /** Kafka's own converter, instead of the examples' JsonEnvelopeConverter (io.chsink.connect.convert). */
    static final String KAFKA_JSON = "org.apache.kafka.connect.json.JsonConverter";

    private EndToEndPath() {
    }

    /**
     * Produces {@code rows} events to a new topic of {@code partitions} partitions, creates the connector with
     * {@code tasks} tasks into {@code db.table} (which must exist, empty) and waits until every row landed;
     * {@code exactlyOnce}: with {@link #EXACTLY_ONCE_EXAMPLE} (JSON with schemas only) instead of the format's example.
     */
    static Result run(Stack stack, String db, String table, String topic, long seed, long rows, int partitions,
            int tasks, Format format, boolean fastJson, boolean exactlyOnce, Path gcLog, Path jfrFile) throws IOException {
        if (exactlyOnce && (format != Format.SCHEMA || !fastJson)) {
            throw new IllegalArgumentException("the exactly_once example reads JSON with schemas with the fast converter");
        }
        stack.kafka().createTopic(topic, partitions);
        // Avro: the writer schema registered with the stand-in registry (io.chsink.it.avro.TestRegistry), which the
        // worker's AvroConverter asks once per task and caches.
        TestRegistry registry = format == Format.AVRO ? new TestRegistry() : null;
        try {
            Function<Event, byte[]> encode = format == Format.AVRO
                    ? EventAvro.registered(registry, topic + "-value")::encode
                    : EventProducer.format(format == Format.SCHEMA);
            return run(stack, db, table, topic, seed, rows, partitions, tasks, format, encode, registry, fastJson,
                    exactlyOnce ? EXACTLY_ONCE_EXAMPLE : format.example, gcLog, jfrFile);
        } finally {
            if (registry != null) {
                registry.close();
            }
        }
    }

    private static Result run(Stack stack, String db, String table, String topic, long seed, long rows, int partitions,
            int tasks, Format format, Function<Event, byte[]> encode, TestRegistry registry, boolean fastJson,
            String example, Path gcLog, Path jfrFile) throws IOException {
        long bytes = kafkaValueBytes(seed, rows, encode);
        long p0 = System.nanoTime();
        new EventProducer(stack.kafka().bootstrapServers()).produce(topic, partitions, new EventGenerator(seed), rows,
                encode, n -> {
                    if (n % 1_000_000 == 0) {
                        System.out.printf("    produced %,d events%n", n);
                    }
                });
        double produceSeconds = (System.nanoTime() - p0) / 1e9;
        System.out.printf("    produced %,d events (%.1f MB of %s values) in %.1f s (not timed)%n", rows, bytes / 1e6,
                format.description, produceSeconds);

        String connector = topic + "-sink";
        Map<String, String> overrides = new HashMap<>();
        overrides.put("topics", topic);
        overrides.put("tasks.max", Integer.toString(tasks));
        overrides.put("clickhouse.url", stack.clickhouseUrl());
        overrides.put("clickhouse.user", stack.clickhouse().user());
        overrides.put("clickhouse.password", stack.clickhouse().password());
        overrides.put("clickhouse.database", db);
        overrides.put("topic.to.table.map", topic + ":" + table);
        if (!fastJson) {
            overrides.put("value.converter", KAFKA_JSON); // the examples read with the connector's converter
        }
        if (format == Format.SCHEMALESS) {
            overrides.put("errors.deadletterqueue.topic.name", topic + "-dlq");
        }
        if (registry != null) {
            overrides.put("value.converter.schema.registry.url", registry.url());
        }
        Map<String, String> config = ConnectorConfigs.load(example, overrides);
        config.remove("name");

        long workerPid = stack.connect().pid();
        ProcessCpu workerCpu = ProcessCpu.ofPid(workerPid);
        ProcessCpu serverCpu = ProcessCpu.ofClickHouse(stack.clickhouse().httpPort());
        WorkerGcLog gc = new WorkerGcLog(gcLog);
        long gcMark = gc.mark();
        long logMark = logSize(stack);
        Jfr jfr = jfrFile != null && workerPid > 0 ? Jfr.start(workerPid) : null;
        ProcessCpu.Sample w0 = workerCpu.sample();
        ProcessCpu.Sample s0 = serverCpu.sample();

        long start = System.nanoTime();
        stack.connect().rest().putConnectorConfig(connector, config);
        RowWatcher watcher = new RowWatcher(stack.clickhouse().http(), EventsTable.qualified(db, table));
        watcher.awaitRows(rows, Duration.ofMinutes(60), Duration.ofMinutes(3),
                everyFewSeconds(new ConnectorFailure(stack.connect().rest(), connector)),
                (landed, rate) -> {
                    if ((System.nanoTime() - start) / 1_000_000_000L % 10 == 0) {
                        System.out.printf("    rows landed: %,d / %,d (%,d rows/s)%n", landed, rows, rate);
                    }
                });
        long nanos = System.nanoTime() - start;
        long firstRow = watcher.firstRowNanos() < 0 ? -1 : watcher.firstRowNanos() - start;
        ProcessCpu.Sample wUsed = workerCpu.sample().minus(w0);
        ProcessCpu.Sample sUsed = serverCpu.sample().minus(s0);
        JfrBreakdown profile = null;
        if (jfr != null) {
            jfr.dump(jfrFile);
            profile = JfrBreakdown.of(jfrFile);
        }
        int pauses = countPauses(stack, logMark);
        stack.connect().rest().deleteConnector(connector);
        long blocks = blocksInserted(stack, logMark, connector, tasks);
        stack.kafka().deleteTopic(topic); // gigabytes on tmpfs: gone before the next run
        return new Result(rows, nanos, firstRow, bytes, produceSeconds, wUsed, sUsed, gc.since(gcMark), pauses, blocks, profile);
    }

    /**
     * The row watcher looks at the table five times a second; the connector's status over REST is asked only every
     * 3 s, so the worker spends its CPU on the connector rather than on answering.
     */
    static java.util.function.Supplier<String> everyFewSeconds(java.util.function.Supplier<String> probe) {
        long[] last = {System.nanoTime()};
        return () -> {
            long now = System.nanoTime();
            if (now - last[0] < 3_000_000_000L) {
                return null;
            }
            last[0] = now;
            return probe.get();
        };
    }

    private static long kafkaValueBytes(long seed, long rows, Function<Event, byte[]> format) {
        EventGenerator g = new EventGenerator(seed);
        long total = 0;
        for (long i = 0; i < rows; i++) {
            total += format.apply(g.next()).length;
        }
        return total;
    }

    private static long logSize(Stack stack) {
        try {
            return stack.connect().pid() > 0 ? Files.size(stack.connect().logFile()) : 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * The blocks the connector's tasks inserted, from the summary each task logs when it stops (after the connector
     * is deleted); -1 when the worker's log cannot be read or the tasks did not log within 30 s.
     */
    private static long blocksInserted(Stack stack, long from, String connector, int tasks) {
        if (stack.connect().pid() <= 0) {
            return -1;
        }
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            try {
                byte[] all = Files.readAllBytes(stack.connect().logFile());
                String tail = new String(all, (int) Math.min(from, all.length), (int) Math.max(0, all.length - from),
                        java.nio.charset.StandardCharsets.UTF_8);
                long blocks = 0;
                int stopped = 0;
                for (String line : tail.split("\n")) {
                    java.util.regex.Matcher m = TASK_STOPPED.matcher(line);
                    if (line.contains("[" + connector + "|task-") && m.find()) {
                        blocks += Long.parseLong(m.group(2));
                        stopped++;
                    }
                }
                if (stopped >= tasks) {
                    return blocks;
                }
                Thread.sleep(500);
            } catch (IOException e) {
                return -1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
        }
        return -1;
    }

    /** How many times a task logged that it paused consumption (buffer.max.bytes reached) since {@code from}. */
    private static int countPauses(Stack stack, long from) {
        if (stack.connect().pid() <= 0) {
            return -1;
        }
        try {
            byte[] all = Files.readAllBytes(stack.connect().logFile());
            String tail = new String(all, (int) Math.min(from, all.length), (int) Math.max(0, all.length - from),
                    java.nio.charset.StandardCharsets.UTF_8);
            return (int) tail.lines().filter(l -> l.contains("consumption paused until inserts complete")).count();
        } catch (IOException e) {
            return -1;
        }
    }

    /** A JFR recording in the worker JVM, started and dumped with jcmd (same JDK as this JVM). */
    static final class Jfr {
        private final long pid;
        private final String name = "chsink-bench-" + System.nanoTime();

        private Jfr(long pid) {
            this.pid = pid;
        }

        static Jfr start(long pid) {
            Jfr j = new Jfr(pid);
            j.jcmd("JFR.start", "name=" + j.name, "settings=profile");
            return j;
        }

        void dump(Path file) {
            jcmd("JFR.dump", "name=" + name, "filename=" + file.toAbsolutePath());
            jcmd("JFR.stop", "name=" + name);
        }

        private void jcmd(String... args) {
            List<String> cmd = new java.util.ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
            cmd.add(Long.toString(pid));
            cmd.addAll(List.of(args));
            try {
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                if (p.waitFor() != 0) {
                    throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot run jcmd", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }
}
