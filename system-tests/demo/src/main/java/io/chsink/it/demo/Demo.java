package io.chsink.it.demo;

import io.chsink.it.avro.TestRegistry;
import io.chsink.it.events.CheckLine;
import io.chsink.it.events.EventAvro;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ProcessCpu;
import io.chsink.it.stack.RowWatcher;
import io.chsink.it.stack.Stack;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one-command demo: a local (or given) ClickHouse + Kafka + Connect stack, N generated events produced to a
 * topic, the connector created through the REST API from config/clickhouse-sink.json, progress while rows land,
 * and a summary with the end-to-end rate and the dataset's check line compared with the expected one.
 */
public final class Demo {
    private Demo() {
    }

    public static void main(String[] given) throws Exception {
        // -Ddemo.args="--guarantee both --runs 3" arrives as one argument: split it.
        String[] args = String.join(" ", given).trim().split("\\s+");
        if (List.of(args).contains("--cdc")) {
            // --cdc [--changes N] [--snapshot-rows N] [--rate N] [--guarantee G] ...: PostgreSQL -> Debezium -> sink
            List<String> rest = new ArrayList<>(List.of(args));
            rest.remove("--cdc");
            int r = rest.indexOf("--rows");
            if (r >= 0) {
                rest.remove(r + 1); // the profile's --rows (the events dataset's) does not apply
                rest.remove(r);
            }
            io.chsink.it.cdc.CdcDemo.main(rest.toArray(new String[0])); // exits 1 when the two sides differ
            System.exit(0);
        }
        long rows = 1_000_000;
        int partitions = 4;
        int tasks = 2;
        long seed = 42;
        boolean withSchema = true;
        boolean avro = false;
        boolean keep = false;
        String guarantee = "at_least_once";
        int runs = 1;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows": rows = Long.parseLong(args[++i]); break;
                case "--partitions": partitions = Integer.parseInt(args[++i]); break;
                case "--tasks": tasks = Integer.parseInt(args[++i]); break;
                case "--seed": seed = Long.parseLong(args[++i]); break;
                case "--schemaless": withSchema = false; break;
                case "--avro": avro = true; break;
                case "--keep": keep = true; break;
                case "--guarantee": guarantee = args[++i]; break;
                case "--runs": runs = Integer.parseInt(args[++i]); break;
                case "": break;
                default:
                    System.err.println("usage: Demo [--rows N] [--partitions P] [--tasks T] [--seed S] [--schemaless | --avro] [--keep] | --cdc [CdcDemo options] "
                            + "[--guarantee at_least_once|exactly_once|both] [--runs R]");
                    System.exit(2);
            }
        }
        Path work = Paths.get(System.getProperty("chsink.work.dir", "target/demo"));
        System.out.printf("Starting the stack (work dir %s)...%n", work.toAbsolutePath());
        Stack stack = Stack.start(work);
        boolean ok = true;
        try {
            List<String> guarantees = guarantee.equals("both") ? List.of("at_least_once", "exactly_once")
                    : List.of(guarantee);
            Map<String, List<Result>> results = new LinkedHashMap<>();
            for (int r = 0; r < runs; r++) {
                for (String g : guarantees) { // interleaved, so that both see the same machine load
                    Result res = run(stack, rows, partitions, tasks, seed, withSchema, avro, g);
                    ok &= res.ok;
                    results.computeIfAbsent(g, k -> new ArrayList<>()).add(res);
                }
            }
            if (runs > 1 || guarantees.size() > 1) {
                summarize(results);
            }
            if (keep) {
                System.out.printf("Stack kept running: ClickHouse %s, Kafka %s, Connect %s. Ctrl-C stops it.%n",
                        stack.clickhouseUrl(), stack.kafka().bootstrapServers(), stack.connect().restUrl());
                Thread.currentThread().join();
            }
        } finally {
            stack.close();
        }
        System.exit(ok ? 0 : 1);
    }

    /** One run's figures: end-to-end seconds, CPU seconds of the worker and of ClickHouse meanwhile (NaN: unknown). */
    record Result(boolean ok, long rows, double seconds, double workerCpu, double serverCpu) {
        double rate() {
            return rows / seconds;
        }
    }

    private static void summarize(Map<String, List<Result>> results) {
        System.out.println();
        System.out.println("Summary (median of each guarantee's runs; CPU seconds are the worker's and ClickHouse's "
                + "during the runs, steadier than wall time on a shared machine):");
        Map<String, Double> medians = new LinkedHashMap<>();
        for (Map.Entry<String, List<Result>> e : results.entrySet()) {
            List<Result> rs = e.getValue();
            double rate = median(rs.stream().mapToDouble(Result::rate).toArray());
            double worker = median(rs.stream().mapToDouble(Result::workerCpu).toArray());
            double server = median(rs.stream().mapToDouble(Result::serverCpu).toArray());
            medians.put(e.getKey(), rate);
            System.out.printf("  %-14s %,10.0f rows/s end to end (runs: %s); worker CPU %.1f s, ClickHouse CPU %.1f s%n",
                    e.getKey(), rate, rs.stream().map(r -> String.format("%,.0f", r.rate()))
                            .collect(java.util.stream.Collectors.joining(", ")), worker, server);
        }
        if (medians.size() == 2) {
            double alo = medians.get("at_least_once");
            double eo = medians.get("exactly_once");
            System.out.printf("  exactly_once throughput vs at_least_once: %+.1f%%%n", (eo - alo) / alo * 100);
        }
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        java.util.Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    static Result run(Stack stack, long rows, int partitions, int tasks, long seed, boolean withSchema, boolean avro,
            String guarantee) {
        String suffix = Long.toString(System.currentTimeMillis(), 36);
        String db = "default";
        String table = "chsink_demo_events";
        String topic = "chsink-demo-events-" + suffix;
        String connector = "chsink-demo-" + suffix;
        System.out.printf("ClickHouse %s (%s), Kafka %s, Connect %s%n", stack.clickhouseUrl(),
                stack.clickhouse().version(), stack.kafka().bootstrapServers(), stack.connect().restUrl());

        stack.clickhouse().exec("DROP TABLE IF EXISTS " + EventsTable.qualified(db, table));
        boolean exactlyOnce = guarantee.equals("exactly_once");
        // exactly_once needs a table that keeps insert deduplication tokens.
        stack.clickhouse().exec(exactlyOnce ? EventsTable.createDedupSql(db, table) : EventsTable.createSql(db, table));
        stack.kafka().createTopic(topic, partitions);

        // --avro: Confluent-framed Avro, its writer schema in the stand-in registry (TestRegistry) of this JVM.
        TestRegistry registry = avro ? new TestRegistry() : null;
        try {
            return run(stack, rows, partitions, tasks, seed, withSchema, registry, guarantee, db, table, topic,
                    connector);
        } finally {
            if (registry != null) {
                registry.close();
            }
        }
    }

    private static Result run(Stack stack, long rows, int partitions, int tasks, long seed, boolean withSchema,
            TestRegistry registry, String guarantee, String db, String table, String topic, String connector) {
        boolean exactlyOnce = guarantee.equals("exactly_once");
        long t0 = System.nanoTime();
        java.util.function.Function<io.chsink.it.events.Event, byte[]> encode = registry != null
                ? EventAvro.registered(registry, topic + "-value")::encode : EventProducer.format(withSchema);
        new EventProducer(stack.kafka().bootstrapServers()).produce(topic, partitions, new EventGenerator(seed), rows,
                encode, n -> System.out.printf("  produced %,d events%n", n));
        System.out.printf("Produced %,d events (%s, seed %d) to %s with %d partitions in %.1f s%n", rows,
                registry != null ? "Avro" : withSchema ? "schema'd JSON" : "schemaless JSON", seed, topic, partitions,
                (System.nanoTime() - t0) / 1e9);

        Map<String, String> overrides = new HashMap<>();
        overrides.put("name", connector);
        overrides.put("topics", topic);
        overrides.put("tasks.max", Integer.toString(tasks));
        overrides.put("clickhouse.url", stack.clickhouseUrl());
        overrides.put("clickhouse.database", db);
        overrides.put("topic.to.table.map", topic + ":" + table);
        String example;
        if (registry != null) {
            example = "clickhouse-sink-avro.json";
            overrides.put("value.converter.schema.registry.url", registry.url());
            overrides.put("delivery.guarantee", guarantee);
        } else {
            example = exactlyOnce ? "clickhouse-sink-exactly-once.json" : "clickhouse-sink.json";
            overrides.put("value.converter.schemas.enable", Boolean.toString(withSchema));
        }
        Map<String, String> config = ConnectorConfigs.load(example, overrides);
        config.remove("name");

        ProcessCpu workerCpu = ProcessCpu.ofPid(stack.connect().pid());
        ProcessCpu serverCpu = ProcessCpu.ofClickHouse(stack.clickhouse().httpPort());
        ProcessCpu.Sample worker0 = workerCpu.sample();
        ProcessCpu.Sample server0 = serverCpu.sample();
        long start = System.nanoTime();
        stack.connect().rest().putConnectorConfig(connector, config);
        System.out.printf("Created connector %s (tasks.max=%d, delivery.guarantee=%s) through %s%n", connector, tasks,
                guarantee, stack.connect().restUrl());
        final long total = rows;
        RowWatcher watcher = new RowWatcher(stack.clickhouse().http(), EventsTable.qualified(db, table));
        watcher.awaitRows(rows, Duration.ofMinutes(30), Duration.ofMinutes(2),
                new ConnectorFailure(stack.connect().rest(), connector),
                (landed, rate) -> System.out.printf("  rows landed: %,d / %,d (%,d rows/s)%n", landed, total, rate));
        double seconds = (System.nanoTime() - start) / 1e9;
        double workerSeconds = workerCpu.sample().minus(worker0).seconds();
        double serverSeconds = serverCpu.sample().minus(server0).seconds();

        long count = Long.parseLong(stack.clickhouse().http().scalar(
                "SELECT count() FROM " + EventsTable.qualified(db, table)).trim());
        long distinct = Long.parseLong(stack.clickhouse().http().scalar(
                "SELECT uniqExact(*) FROM " + EventsTable.qualified(db, table)).trim());
        CheckLine actual = EventsTable.check(stack.clickhouse().http(), db, table);
        CheckLine expected = EventsTable.expected(seed, rows);
        stack.connect().rest().deleteConnector(connector);

        System.out.println();
        System.out.printf("End to end: %,d rows in %.2f s = %,.0f rows/s (connector creation to last row visible)%n",
                count, seconds, count / seconds);
        System.out.printf("CPU: Connect worker %.1f s, ClickHouse %.1f s (delivery.guarantee=%s)%n", workerSeconds,
                serverSeconds, guarantee);
        System.out.printf("count()=%d uniqExact(*)=%d%n", count, distinct);
        System.out.println("table:    " + actual);
        System.out.println("expected: " + expected);
        boolean ok = count == rows && distinct == rows && actual.equals(expected);
        System.out.println(ok ? "RESULT: OK, exactly the generated rows landed" : "RESULT: MISMATCH");
        return new Result(ok, count, seconds, workerSeconds, serverSeconds);
    }
}
