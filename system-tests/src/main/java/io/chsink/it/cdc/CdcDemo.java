package io.chsink.it.cdc;

import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.stack.ConnectRest;
import io.chsink.it.stack.PostgresServer;
import io.chsink.it.stack.ProcessCpu;
import io.chsink.it.stack.Stack;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

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
            Map<String, String> sink = ConnectorConfigs.load("clickhouse-sink-cdc.json", Map.of(
                    "clickhouse.url", stack.clickhouseUrl(), "clickhouse.database", db,
                    "topics", String.join(",", w.topics(prefix)), "topic.to.table.map", w.topicToTableMap(prefix, db),
                    "tasks.max", o.get("--tasks"),
                    "delivery.guarantee", exactlyOnce ? "exactly_once" : "at_least_once"));
            sink.remove("name");
            double w0 = worker.sample().seconds();
            double c0 = clickhouse.sample().seconds();
            long start = System.nanoTime();
            rest.putConnectorConfig("demo-source", w.debeziumConfig(prefix, Integer.parseInt(o.get("--partitions"))));
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
                        + "row visible); CPU s: worker %.1f, ClickHouse %.1f%n", snapshotRows, s, snapshotRows / s,
                        worker.sample().seconds() - w0, clickhouse.sample().seconds() - c0);
            }
            double w1 = worker.sample().seconds();
            double c1 = clickhouse.sample().seconds();
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
            List<CdcWorkload.TableComparison> result = w.awaitEqual(stack.clickhouse().http(), db,
                    Duration.ofMinutes(5), null);
            double s = (System.nanoTime() - streamStart) / 1e9;
            System.out.printf("Stream: %s, committed in %.1f s; ClickHouse equal after %.1f s = %,.0f changes/s end to "
                    + "end; CPU s: worker %.1f, ClickHouse %.1f%n", stats, committed, s, stats.total() / s,
                    worker.sample().seconds() - w1, clickhouse.sample().seconds() - c1);
            boolean ok = true;
            for (CdcWorkload.TableComparison c : result) {
                System.out.println(c);
                ok &= c.equal();
            }
            System.out.println(ok ? "RESULT: OK, ClickHouse (FINAL) equals PostgreSQL row for row"
                    : "RESULT: DIFFERENT");
            rest.deleteConnector("demo-sink");
            rest.deleteConnector("demo-source");
            if (!ok) {
                System.exit(1);
            }
        }
    }
}
