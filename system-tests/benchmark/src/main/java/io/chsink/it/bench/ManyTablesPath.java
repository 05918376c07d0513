package io.chsink.it.bench;

import io.chsink.it.events.CheckLine;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.kafka.ConnectorFailure;
import io.chsink.it.kafka.EventProducer;
import io.chsink.it.stack.ClickHouseHttp;
import io.chsink.it.stack.ProcessCpu;
import io.chsink.it.stack.RowWatcher;
import io.chsink.it.stack.Stack;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Path M: many tables. N events spread over K topics of 2 partitions each, topic i into table i, end to end through
 * the Connect worker with {@code tasks.max=2}, JSON with schemas; the same topics read by this connector (the
 * config/clickhouse-sink.json example: JsonEnvelopeConverter) and by the official ClickHouse connector (its best
 * settings, from ../shared/official-connector/README.md: Kafka's JsonConverter, max.poll.records 5000, client V2),
 * one after the other on the same stack, each with a consumer group of its own. Topic i holds the first N/K events
 * of the generator seeded {@code seed + i}, so every table has a check line of its own to compare.
 * <p>
 * The clock runs from the connector's creation until every row is visible (the active parts' rows of the run's
 * tables in system.parts); inserts and rows per insert are ClickHouse's own counters (system.events InsertQuery,
 * InsertedRows) over the same window; CPU of the worker and of ClickHouse from /proc.
 */
final class ManyTablesPath {
    /** Which connector reads the topics. */
    enum Sink {
        OURS("ours"), OFFICIAL("official");

        final String label;

        Sink(String label) {
            this.label = label;
        }
    }

    /** The official connector's class, loaded from {@code chsink.extra.plugin.path}. */
    static final String OFFICIAL_CLASS = "com.clickhouse.kafka.connect.ClickHouseSinkConnector";

    /** K topics produced once, read by every sink of a round. */
    record Dataset(int tables, String name, List<String> topics, long[] rows, CheckLine[] expected, long kafkaBytes,
            double produceSeconds) {
        long totalRows() {
            long n = 0;
            for (long r : rows) {
                n += r;
            }
            return n;
        }
    }

    /** One table after a run. */
    record TableCheck(String table, long count, CheckLine line, CheckLine expected) {
        boolean ok(long rows) {
            return count == rows && line.equals(expected);
        }
    }

    /** What one sink did with one dataset. */
    record Run(int tables, Sink sink, long rows, long nanos, long firstRowNanos, ProcessCpu.Sample workerCpu,
            ProcessCpu.Sample serverCpu, long inserts, long insertedRows, List<TableCheck> checks, boolean checksOk,
            JfrBreakdown profile, double liveHeapMiBAfter, Map<String, Long> workerThreadNanos, long otherQueries) {
        double rowsPerSecond() {
            return rows / (nanos / 1e9);
        }

        double workerMicrosPerRow() {
            return workerCpu.seconds() * 1e6 / rows;
        }
    }

    private ManyTablesPath() {
    }

    /** Creates K topics of 2 partitions and produces the events (not timed). */
    static Dataset produce(Stack stack, String prefix, int tables, long totalRows, long seed) {
        String name = prefix + "_m" + tables + "_" + Long.toString(System.currentTimeMillis(), 36);
        List<String> topics = new ArrayList<>();
        long[] rows = new long[tables];
        CheckLine[] expected = new CheckLine[tables];
        EventProducer producer = new EventProducer(stack.kafka().bootstrapServers());
        long bytes = 0;
        long t0 = System.nanoTime();
        for (int i = 0; i < tables; i++) {
            String topic = name.replace('_', '-') + "-" + i;
            stack.kafka().createTopic(topic, 2);
            topics.add(topic);
            rows[i] = totalRows / tables + (i < totalRows % tables ? 1 : 0);
            expected[i] = EventsTable.expected(seed + i, rows[i]);
            long[] size = {0};
            producer.produce(topic, 2, new EventGenerator(seed + i), rows[i], e -> {
                byte[] v = EventProducer.format(true).apply(e);
                size[0] += v.length;
                return v;
            }, null);
            bytes += size[0];
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        System.out.printf("    produced %,d events (%.1f MB of JSON with schemas) into %d topics x 2 partitions in"
                + " %.1f s (not timed)%n", totalRows, bytes / 1e6, tables, seconds);
        return new Dataset(tables, name, topics, rows, expected, bytes, seconds);
    }

    static void deleteTopics(Stack stack, Dataset d) {
        for (String t : d.topics()) {
            stack.kafka().deleteTopic(t);
        }
    }

    /** The tables of one sink's run over the dataset: {@code <dataset>_<sink>_<i>}. */
    static String table(Dataset d, Sink sink, int i) {
        return d.name() + "_" + sink.label + "_" + i;
    }

    /** Reads the dataset's topics with {@code sink} into fresh tables; checks and drops the tables afterwards. */
    static Run run(Stack stack, String db, Dataset d, Sink sink, int tasks, Map<String, String> oursProps, Path jfrFile,
            boolean keepTables) throws IOException {
        ClickHouseHttp http = stack.clickhouse().http();
        for (int i = 0; i < d.tables(); i++) {
            String t = EventsTable.qualified(db, table(d, sink, i));
            http.exec("DROP TABLE IF EXISTS " + t + " SYNC");
            http.exec(EventsTable.createSql(db, table(d, sink, i)));
        }
        String connector = d.name().replace('_', '-') + "-" + sink.label;
        Map<String, String> config = sink == Sink.OURS ? oursConfig(stack, db, d, tasks) : officialConfig(stack, db, d, tasks);
        if (sink == Sink.OURS) {
            config.putAll(oursProps); // --ours-props: settings tried against the example's defaults
        }

        long workerPid = stack.connect().pid();
        ProcessCpu workerCpu = ProcessCpu.ofPid(workerPid);
        ProcessCpu serverCpu = ProcessCpu.ofClickHouse(stack.clickhouse().httpPort());
        EndToEndPath.Jfr jfr = jfrFile != null && workerPid > 0 ? EndToEndPath.Jfr.start(workerPid) : null;
        long[] events0 = insertEvents(http);
        ThreadCpu.Threads threads0 = ThreadCpu.perThread(workerPid);
        ProcessCpu.Sample w0 = workerCpu.sample();
        ProcessCpu.Sample s0 = serverCpu.sample();
        long start = System.nanoTime();
        stack.connect().rest().putConnectorConfig(connector, config);
        // The active parts' rows of the run's tables: cheap to read five times a second, whatever K is.
        String parts = "system.parts WHERE active AND database = " + sqlString(db) + " AND startsWith(table, "
                + sqlString(d.name() + "_" + sink.label + "_") + ")";
        RowWatcher watcher = new RowWatcher(http, parts, "sum(rows)");
        long total = d.totalRows();
        watcher.awaitRows(total, Duration.ofMinutes(30), Duration.ofMinutes(3),
                EndToEndPath.everyFewSeconds(new ConnectorFailure(stack.connect().rest(), connector)),
                (landed, rate) -> {
                    if ((System.nanoTime() - start) / 1_000_000_000L % 10 == 0) {
                        System.out.printf("    rows landed: %,d / %,d (%,d rows/s)%n", landed, total, rate);
                    }
                });
        long nanos = System.nanoTime() - start;
        ProcessCpu.Sample wUsed = workerCpu.sample().minus(w0);
        ProcessCpu.Sample sUsed = serverCpu.sample().minus(s0);
        Map<String, Long> threads = ThreadCpu.byKind(threads0, ThreadCpu.perThread(workerPid));
        long[] events1 = insertEvents(http);
        JfrBreakdown profile = null;
        if (jfr != null) {
            jfr.dump(jfrFile);
            profile = JfrBreakdown.of(jfrFile);
        }
        stack.connect().rest().deleteConnector(connector);
        double liveHeap = liveHeapMiB(workerPid, jfrFile == null ? null
                : jfrFile.resolveSibling("worker-histogram-" + connector + ".txt"));

        List<TableCheck> checks = new ArrayList<>();
        boolean ok = true;
        for (int i = 0; i < d.tables(); i++) {
            String name = table(d, sink, i);
            String q = EventsTable.qualified(db, name);
            long count = Long.parseLong(http.scalar("SELECT count() FROM " + q).trim());
            TableCheck c = new TableCheck(name, count, EventsTable.check(http, db, name), d.expected()[i]);
            ok &= c.ok(d.rows()[i]);
            checks.add(c);
            if (!keepTables) {
                http.exec("DROP TABLE " + q + " SYNC");
            }
        }
        long firstRow = watcher.firstRowNanos() < 0 ? -1 : watcher.firstRowNanos() - start;
        Run r = new Run(d.tables(), sink, total, nanos, firstRow, wUsed, sUsed, events1[0] - events0[0],
                events1[1] - events0[1], checks, ok, profile, liveHeap, threads,
                events1[2] - events0[2] - (events1[3] - events0[3]) - watcher.polls());
        System.out.printf("    %s, %d tables: %,.0f rows/s, worker CPU %.2f s (%.2f us/row), ClickHouse CPU %.2f s,"
                + " %,d inserts (%,.0f rows each); %d of %d tables %s%n", sink.label, d.tables(), r.rowsPerSecond(),
                wUsed.seconds(), r.workerMicrosPerRow(), sUsed.seconds(), r.inserts(),
                r.inserts() > 0 ? (double) r.insertedRows() / r.inserts() : Double.NaN,
                checks.stream().filter(c -> c.ok(rowsOf(d, c))).count(), d.tables(),
                ok ? "equal to the generator's" : "equal: MISMATCH");
        return r;
    }

    /**
     * The worker's live heap after the run (its connector deleted), from a class histogram, which collects first
     * (outside the timed window); NaN when jcmd fails. With {@code file}, the histogram's top is written there.
     */
    static double liveHeapMiB(long pid, Path file) {
        if (pid <= 0) {
            return Double.NaN;
        }
        try {
            Thread.sleep(2000); // the deleted connector's tasks stop
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(pid), "GC.class_histogram").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                return Double.NaN;
            }
            if (file != null) {
                java.nio.file.Files.writeString(file, out.lines().limit(60).collect(java.util.stream.Collectors.joining("\n")));
            }
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^Total\\s+\\d+\\s+(\\d+)").matcher(out);
            return m.find() ? Long.parseLong(m.group(1)) / 1048576.0 : Double.NaN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Double.NaN;
        } catch (IOException e) {
            return Double.NaN;
        }
    }

    private static long rowsOf(Dataset d, TableCheck c) {
        int i = Integer.parseInt(c.table().substring(c.table().lastIndexOf('_') + 1));
        return d.rows()[i];
    }

    /**
     * ClickHouse's counters since it started: INSERT queries, inserted rows, SELECT queries, and this harness's own
     * reads of system.events (one per call, so that they can be taken out of the count).
     */
    private static long[] insertEvents(ClickHouseHttp http) {
        String tsv = http.query("SELECT sumIf(value, event = 'InsertQuery'), sumIf(value, event = 'InsertedRows'),"
                + " sumIf(value, event = 'SelectQuery') FROM system.events FORMAT TabSeparated").trim();
        String[] f = tsv.split("\t");
        harnessQueries++;
        return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), harnessQueries};
    }

    /** Queries this class sent to read counters. */
    private static long harnessQueries;

    private static String topicMap(Dataset d, Sink sink, String pairSep, String kvSep) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < d.tables(); i++) {
            sb.append(i == 0 ? "" : pairSep).append(d.topics().get(i)).append(kvSep).append(table(d, sink, i));
        }
        return sb.toString();
    }

    /** config/clickhouse-sink.json with the addresses, topics and tables set. */
    private static Map<String, String> oursConfig(Stack stack, String db, Dataset d, int tasks) {
        Map<String, String> overrides = new HashMap<>();
        overrides.put("topics", String.join(",", d.topics()));
        overrides.put("tasks.max", Integer.toString(tasks));
        overrides.put("clickhouse.url", stack.clickhouseUrl());
        overrides.put("clickhouse.user", stack.clickhouse().user());
        overrides.put("clickhouse.password", stack.clickhouse().password());
        overrides.put("clickhouse.database", db);
        overrides.put("topic.to.table.map", topicMap(d, Sink.OURS, ",", ":"));
        Map<String, String> config = ConnectorConfigs.load("clickhouse-sink.json", overrides);
        config.remove("name");
        return config;
    }

    /** The official connector at the settings its README (../shared/official-connector) calls its best. */
    private static Map<String, String> officialConfig(Stack stack, String db, Dataset d, int tasks) {
        List<String> tables = new ArrayList<>();
        for (int i = 0; i < d.tables(); i++) {
            tables.add(table(d, Sink.OFFICIAL, i));
        }
        return officialConfig(stack, db, d.topics(), tables, tasks);
    }

    /**
     * The official connector reading {@code topics} (topic i into table i) at the settings its README
     * (../shared/official-connector) calls its best: Kafka's JsonConverter with schemas (key: StringConverter, the
     * connector ignores keys), {@code consumer.override.max.poll.records=5000}, client V2, {@code exactlyOnce=false}.
     * Path M and path V (which adds {@code debeziumCDCEnabled}) share it.
     */
    static Map<String, String> officialConfig(Stack stack, String db, List<String> topics, List<String> tables,
            int tasks) {
        return officialConfig(stack.clickhouseUrl(), stack.clickhouse().user(), stack.clickhouse().password(), db,
                topics, tables, tasks);
    }

    /** The same against the server at {@code clickhouseUrl} (path S: a cluster's initiator). */
    static Map<String, String> officialConfig(String clickhouseUrl, String user, String password, String db,
            List<String> topics, List<String> tables, int tasks) {
        URI url = URI.create(clickhouseUrl);
        StringBuilder map = new StringBuilder();
        for (int i = 0; i < topics.size(); i++) {
            map.append(i == 0 ? "" : ",").append(topics.get(i)).append('=').append(tables.get(i));
        }
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", OFFICIAL_CLASS);
        c.put("tasks.max", Integer.toString(tasks));
        c.put("topics", String.join(",", topics));
        c.put("hostname", url.getHost());
        c.put("port", Integer.toString(url.getPort()));
        c.put("ssl", "false");
        c.put("username", user);
        c.put("password", password);
        c.put("database", db);
        c.put("exactlyOnce", "false");
        c.put("client_version", "V2");
        c.put("topic2TableMap", map.toString());
        c.put("consumer.override.max.poll.records", "5000");
        c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        c.put("value.converter.schemas.enable", "true");
        c.put("errors.tolerance", "none");
        return c;
    }

    private static String sqlString(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
