package io.chsink.it.cdc;

import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.stack.ConnectRest;
import io.chsink.it.stack.PostgresServer;
import io.chsink.it.stack.ProcessCpu;
import io.chsink.it.stack.Stack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * PostgreSQL → Debezium → Kafka → this sink → ClickHouse on a local stack, with progress and a checked end:
 * optionally a snapshot of {@code --snapshot-rows} rows loaded before the connectors start, then {@code --changes}
 * random changes; at the end each table's rows and checksum in PostgreSQL and in ClickHouse ({@code FINAL}) side by
 * side, and rows/s with the CPU seconds of the Connect worker and of ClickHouse for each phase. Exits 1 when a table
 * differs. Options: {@code --changes N} (20000), {@code --snapshot-rows N} (0), {@code --rate R} (changes/s, 0: as
 * fast as PostgreSQL takes them), {@code --seed S}, {@code --tasks T} (2), {@code --partitions P} (3),
 * {@code --guarantee at_least_once|exactly_once}. Needs the system properties of the demo profile
 * (chsink.plugin.path, chsink.debezium.plugin.path, chsink.kafka.classpath, chsink.config.dir, chsink.work.dir).
 */
public final class CdcDemo {
    private CdcDemo() {
    }

    /** ClickHouse's count of rows inserted into tables since it started (system.events InsertedRows). */
    /** The sink tasks' current-row reads (cdc.mode=debezium), from their stop lines in the worker log. */
    private static void printCurrentRowReads(Stack stack) throws Exception {
        java.util.regex.Pattern p = java.util.regex.Pattern.compile("current-row reads=(\\d+) \\((\\d+) ms\\)");
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            long reads = 0;
            long ms = 0;
            int stopped = 0;
            for (String line : Files.readAllLines(stack.connect().logFile())) {
                if (line.contains("ClickHouse sink task stopped")) {
                    stopped++;
                    java.util.regex.Matcher m = p.matcher(line);
                    if (m.find()) {
                        reads += Long.parseLong(m.group(1));
                        ms += Long.parseLong(m.group(2));
                    }
                }
            }
            if (stopped >= 2 || System.nanoTime() > deadline) { // the demo sink runs 2 tasks
                System.out.printf("Sink current-row reads (TOAST values, deletes, tombstones): %,d, %,d ms in all "
                        + "(%d task stop lines)%n", reads, ms, stopped);
                return;
            }
            Thread.sleep(500);
        }
    }

    private static long insertedRows(Stack stack) {
        String v = stack.clickhouse().http().scalar("SELECT sum(value) FROM system.events WHERE event = 'InsertedRows'");
        return v.isEmpty() ? 0 : Long.parseLong(v);
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = new HashMap<>(Map.of("--changes", "20000", "--snapshot-rows", "0", "--rate", "0",
                "--seed", "42", "--tasks", "2", "--partitions", "3", "--guarantee", "at_least_once"));
        for (int i = 0; i + 1 < args.length; i += 2) {
            o.put(args[i], args[i + 1]);
        }
        int changes = Integer.parseInt(o.get("--changes"));
        long snapshotRows = Long.parseLong(o.get("--snapshot-rows"));
        boolean exactlyOnce = o.get("--guarantee").equals("exactly_once");
        Path work = Path.of(System.getProperty("chsink.work.dir", "target/cdc-demo"));
        // Kafka's log on tmpfs, as for the benchmark: a gigabyte of change events written to a noisy disk during the
        // timed phases would measure the disk.
        Path kafkaLog = null;
        if (System.getProperty("chsink.kafka.log.dirs") == null && Files.isDirectory(Path.of("/dev/shm"))) {
            kafkaLog = Files.createTempDirectory(Path.of("/dev/shm"), "chsink-kafka-cdc-demo");
            System.setProperty("chsink.kafka.log.dirs", kafkaLog.toString());
        }
        boolean equal;
        try {
            equal = run(o, work, changes, snapshotRows, exactlyOnce);
        } finally {
            if (kafkaLog != null) {
                try (Stream<Path> files = Files.walk(kafkaLog)) {
                    for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
        if (!equal) {
            System.exit(1);
        }
    }

    /** Returns whether every table came out equal on both sides. */
    private static boolean run(Map<String, String> o, Path work, int changes, long snapshotRows,
            boolean exactlyOnce) throws Exception {
        try (Stack stack = Stack.start(work)) {
            if (!stack.connect().hasDebeziumPostgres()) {
                throw new IllegalStateException("the Connect worker lacks Debezium's PostgreSQL connector: set "
                        + "chsink.debezium.plugin.path (system-tests/target/debezium-plugins)");
            }
            PostgresServer pg = stack.postgres();
            System.out.println("PostgreSQL: " + pg.version());
            String db = "default";
            CdcWorkload w = new CdcWorkload(pg, "demo", Long.parseLong(o.get("--seed")));
            w.createSourceTables();
            w.createTargetTables(stack.clickhouse().http(), db, exactlyOnce);
            if (snapshotRows > 0) {
                long t0 = System.nanoTime();
                w.bulkSeed(snapshotRows);
                System.out.printf("Loaded %,d rows into %s in %.1f s (the snapshot)%n", snapshotRows,
                        w.tables().get(0).name, (System.nanoTime() - t0) / 1e9);
            }
            ConnectRest rest = stack.connect().rest();
            ProcessCpu worker = ProcessCpu.ofPid(stack.connect().pid());
            ProcessCpu clickhouse = ProcessCpu.ofClickHouse(stack.clickhouse().httpPort());
            String prefix = "demo";
            int partitions = Integer.parseInt(o.get("--partitions"));
            for (String topic : w.topics(prefix)) {
                // Created here with their partitions: the sink's consumer, subscribed before Debezium's first record,
                // would otherwise have the broker auto-create them with one partition each.
                stack.kafka().createTopic(topic, partitions);
            }
            Map<String, String> sink = ConnectorConfigs.load("clickhouse-sink-cdc.json", Map.of(
                    "clickhouse.url", stack.clickhouseUrl(), "clickhouse.database", db,
                    "topics", String.join(",", w.topics(prefix)), "topic.to.table.map", w.topicToTableMap(prefix, db),
                    "tasks.max", o.get("--tasks"),
                    "delivery.guarantee", exactlyOnce ? "exactly_once" : "at_least_once"));
            sink.remove("name");
            long workerPid = stack.connect().pid();
            double w0 = worker.sample().seconds();
            double sink0 = ProcessCpu.jvmThreadSeconds(workerPid, "demo-sink");
            double source0 = ProcessCpu.jvmThreadSeconds(workerPid, "demo-source");
            double c0 = clickhouse.sample().seconds();
            long start = System.nanoTime();
            rest.putConnectorConfig("demo-source", w.debeziumConfig(prefix, partitions));
            rest.putConnectorConfig("demo-sink", sink);
            if (snapshotRows > 0) {
                String table = "`" + db + "`.`" + w.tables().get(0).name + "`";
                while (true) {
                    long n = Long.parseLong(stack.clickhouse().http().scalar("SELECT count() FROM " + table).trim());
                    System.out.printf("  snapshot: %,d of %,d rows in ClickHouse after %.1f s%n", n, snapshotRows,
                            (System.nanoTime() - start) / 1e9);
                    if (n >= snapshotRows) {
                        break;
                    }
                    Thread.sleep(1000);
                }
                double s = (System.nanoTime() - start) / 1e9;
                System.out.printf("Snapshot: %,d rows in %.1f s = %,.0f rows/s end to end (connector creation to last "
                        + "row visible); CPU s: worker %.1f (sink threads %.1f, source threads %.1f), ClickHouse %.1f%n",
                        snapshotRows, s, snapshotRows / s, worker.sample().seconds() - w0,
                        ProcessCpu.jvmThreadSeconds(workerPid, "demo-sink") - sink0,
                        ProcessCpu.jvmThreadSeconds(workerPid, "demo-source") - source0,
                        clickhouse.sample().seconds() - c0);
            }
            double w1 = worker.sample().seconds();
            double sink1 = ProcessCpu.jvmThreadSeconds(workerPid, "demo-sink");
            double source1 = ProcessCpu.jvmThreadSeconds(workerPid, "demo-source");
            double c1 = clickhouse.sample().seconds();
            long inserted0 = insertedRows(stack);
            long streamStart = System.nanoTime();
            CompletableFuture<CdcWorkload.Stats> run = CompletableFuture.supplyAsync(
                    () -> w.run(changes, 10, Integer.parseInt(o.get("--rate"))));
            while (!run.isDone()) {
                Thread.sleep(1000);
                System.out.printf("  stream: %,d of %,d changes committed in PostgreSQL after %.1f s%n", w.changesDone(),
                        changes, (System.nanoTime() - streamStart) / 1e9);
            }
            CdcWorkload.Stats stats = run.get();
            double committed = (System.nanoTime() - streamStart) / 1e9;
            // The stream has landed when ClickHouse took one row per change event (a primary-key update is a delete
            // and a create): its InsertedRows counter, since merges shrink count() of a ReplacingMergeTree. Then the
            // full row-for-row comparison, which takes seconds on a large table, is not part of the time.
            long events = stats.inserts + stats.updates + stats.deletes + 2 * stats.keyUpdates + stats.reinserts;
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (insertedRows(stack) - inserted0 < events && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            double s = (System.nanoTime() - streamStart) / 1e9;
            double workerCpu = worker.sample().seconds() - w1;
            double sinkCpu = ProcessCpu.jvmThreadSeconds(workerPid, "demo-sink") - sink1;
            double sourceCpu = ProcessCpu.jvmThreadSeconds(workerPid, "demo-source") - source1;
            double clickhouseCpu = clickhouse.sample().seconds() - c1;
            List<CdcWorkload.TableComparison> result = w.awaitEqual(stack.clickhouse().http(), db,
                    Duration.ofMinutes(5), null);
            System.out.printf("Stream: %s, committed in %.1f s; its %,d change rows inserted into ClickHouse after %.1f s "
                    + "= %,.0f changes/s end to end; CPU s: worker %.1f (sink threads %.1f, source threads %.1f), "
                    + "ClickHouse %.1f%n", stats, committed, events, s, stats.total() / s, workerCpu, sinkCpu, sourceCpu,
                    clickhouseCpu);
            boolean ok = true;
            for (CdcWorkload.TableComparison c : result) {
                System.out.println(c);
                ok &= c.equal();
            }
            System.out.println(ok ? "RESULT: OK, ClickHouse (FINAL) equals PostgreSQL row for row"
                    : "RESULT: DIFFERENT");
            rest.deleteConnector("demo-sink");
            printCurrentRowReads(stack);
            rest.deleteConnector("demo-source");
            return ok;
        }
    }
}
