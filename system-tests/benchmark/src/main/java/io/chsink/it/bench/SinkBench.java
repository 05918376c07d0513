package io.chsink.it.bench;

import com.clickhouse.client.api.Client;
import io.chsink.it.events.CheckLine;
import io.chsink.it.events.EventsTable;
import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.stack.ClickHouseServer;
import io.chsink.it.stack.ProcessCpu;
import io.chsink.it.stack.Stack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The benchmark stand: the same generated events dataset (seed 42) written into ClickHouse along five paths, each
 * into its own events table, every table's check line compared with the generator's:
 * <ul>
 *   <li>A: the connector's SinkTask in this JVM, SinkRecords (Struct with schema) built beforehand ({@link TaskPath});</li>
 *   <li>B: end to end, Kafka → Connect worker → connector, JSON with schemas and schemaless ({@link EndToEndPath});</li>
 *   <li>C: the ceiling, the dataset pre-encoded in Native blocks inserted with client-v2 ({@link BlocksPath});</li>
 *   <li>D: clickhouse-jdbc, addBatch with executeBatch every 3,000 rows ({@link JdbcPath});</li>
 *   <li>E: clickhouse-jdbc, one executeUpdate per row, on a sample ({@link JdbcPath});</li>
 *   <li>V (not in the default paths): Debezium change events end to end with cdc.mode=debezium, against the same
 *       records as flat rows with cdc.mode=none, and (JSON, its plugin built) the official connector with
 *       debeziumCDCEnabled=true on the same change events ({@link CdcPath});</li>
 *   <li>S (not in the default paths): the events end to end into a 2-shard cluster through a Distributed table,
 *       this connector with a hashed and a rand() sharding key beside the official connector ({@link ShardedPath}).</li>
 * </ul>
 * It prints a table and writes the same figures as JSON ({@link SinkBenchReport}). Only correctness fails a run
 * (counts, check lines); timings are reported, never asserted.
 * <p>
 * Run: {@code mvn -B package -Pbench [-Dbench.rows=N] [-Dbench.args="..."]}; options: {@link Options#usage()}.
 */
public final class SinkBench {
    static final String DB = "default";

    /** What to run. */
    record Options(long rows, int sample, int partitions, int tasks, long seed, String paths, int batch,
            boolean bWithSchema, boolean bSchemaless, boolean bAvro, String bConverters, boolean profile, boolean memory, boolean keepTables,
            boolean warmup, long rebalanceDelayMs, String prefix, Path json, Path workDir, int[] tables, long manyRows,
            Path officialPlugin, int rounds, Map<String, String> oursProps, long cdcRows, int cdcTables, String cdcFormats, int cdcGranularity, int[] cdcToast, boolean exactlyOnce,
            boolean cdcFloor, String args) {

        static String usage() {
            return "SinkBench [--rows N] [--sample N] [--partitions P] [--tasks T] [--seed S] [--paths ABCDE]"
                    + " [--batch N] [--b-formats schema,schemaless,avro] [--b-converters fast,kafka] [--profile] [--memory] [--keep-tables]"
                    + " [--no-warmup] [--rebalance-delay-ms MS] [--prefix NAME] [--json FILE]"
                    + " [--tables 1,10,50,200] [--many-rows N] [--official-plugin DIR|none] [--rounds R]"
                    + " [--ours-props key=value,...]"
                    + " [--worker-jvm-opts -Xmx1g,-XX:...]"
                    + " [--cdc-rows N] [--cdc-tables K] [--cdc-formats json,avro] [--cdc-granularity N]"
                    + " [--cdc-toast PCT[,PCT]] [--cdc-floor] (M, V: --paths ...M, ...V; --official-plugin: M, and V's JSON)"
                    + " [--exactly-once] (B: also JSON with schemas under delivery.guarantee=exactly_once, as Bx;"
                    + " S: also S-hash-x, S-rand-x)"
                    + " (S: --paths ...S, 2 shards through a Distributed table; --official-plugin too)";
        }

        static Options parse(String[] args, Path workDir) {
            long rows = -1;
            int sample = 20_000;
            int partitions = 4;
            int tasks = 2;
            long seed = 42;
            String paths = null;
            int batch = 500;
            String formats = null;
            String converters = "fast,kafka";
            boolean profile = false;
            boolean memory = false;
            boolean keep = false;
            boolean warmup = true;
            long rebalanceDelayMs = 300;
            String prefix = "bench";
            Path json = workDir.resolve("bench.json");
            int[] tables = {1, 10, 50, 200};
            long manyRows = 1_000_000;
            Path official = Paths.get("/tmp/official-plugin");
            int rounds = 1;
            Map<String, String> oursProps = new LinkedHashMap<>();
            long cdcRows = 1_000_000;
            int cdcTables = 4;
            String cdcFormats = "json,avro";
            int cdcGranularity = 0;
            int[] cdcToast = {10};
            boolean exactlyOnce = false;
            boolean cdcFloor = false;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--rows" -> {
                        String v = args[++i].replace("_", "").replace(",", "");
                        rows = v.equals("auto") ? -1 : Long.parseLong(v);
                    }
                    case "--sample" -> sample = Integer.parseInt(args[++i].replace("_", "").replace(",", ""));
                    case "--partitions" -> partitions = Integer.parseInt(args[++i]);
                    case "--tasks" -> tasks = Integer.parseInt(args[++i]);
                    case "--seed" -> seed = Long.parseLong(args[++i]);
                    case "--paths" -> paths = args[++i].toUpperCase(Locale.ROOT);
                    case "--batch" -> batch = Integer.parseInt(args[++i]);
                    case "--b-formats" -> formats = args[++i];
                    case "--b-converters" -> converters = args[++i];
                    case "--profile" -> profile = true;
                    case "--memory" -> memory = true;
                    case "--keep-tables" -> keep = true;
                    case "--no-warmup" -> warmup = false;
                    case "--rebalance-delay-ms" -> rebalanceDelayMs = Long.parseLong(args[++i]);
                    case "--prefix" -> prefix = args[++i];
                    case "--json" -> json = Paths.get(args[++i]);
                    case "--tables" -> tables = java.util.Arrays.stream(args[++i].split(",")).map(String::trim)
                            .mapToInt(Integer::parseInt).toArray();
                    case "--many-rows" -> manyRows = Long.parseLong(args[++i].replace("_", "").replace(",", ""));
                    case "--official-plugin" -> {
                        String v = args[++i];
                        official = v.equals("none") ? null : Paths.get(v);
                    }
                    case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                    case "--ours-props" -> {
                        for (String kv : args[++i].split(",")) {
                            int eq = kv.indexOf('=');
                            oursProps.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
                        }
                    }
                    case "--worker-jvm-opts" -> i++; // read by main before the stack starts
                    case "--cdc-rows" -> cdcRows = Long.parseLong(args[++i].replace("_", "").replace(",", ""));
                    case "--cdc-tables" -> cdcTables = Integer.parseInt(args[++i]);
                    case "--cdc-formats" -> cdcFormats = args[++i];
                    case "--cdc-floor" -> cdcFloor = true;
                    case "--cdc-granularity" -> cdcGranularity = Integer.parseInt(args[++i].replace("_", "").replace(",", ""));
                    case "--cdc-toast" -> cdcToast = java.util.Arrays.stream(args[++i].split(",")).map(String::trim)
                            .mapToInt(Integer::parseInt).distinct().toArray();
                    case "--exactly-once" -> exactlyOnce = true;
                    case "" -> { }
                    default -> throw new IllegalArgumentException("unknown option " + args[i] + "; usage: " + usage());
                }
            }
            if (memory) {
                rows = rows < 0 ? 10_000_000 : rows;
                paths = paths == null ? "B" : paths;
                formats = formats == null ? "schemaless" : formats;
            }
            rows = rows < 0 ? 3_000_000 : rows;
            paths = paths == null ? "ABCDE" : paths;
            formats = formats == null ? "schema,schemaless,avro" : formats;
            if (rows < 20 || sample < 20 || rows > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("need 20 <= --rows <= 2^31-1 and --sample >= 20");
            }
            if (!paths.matches("[ABCDEMVS]+")) {
                throw new IllegalArgumentException("--paths takes letters of ABCDEMVS, got " + paths);
            }
            if (official != null && !Files.isDirectory(official)) {
                official = null; // not built: the many-tables path runs this connector alone
            }
            if (cdcRows < 100 || cdcTables < 1 || cdcGranularity < 0 || !cdcFormats.matches("(json|avro)(,(json|avro))?")
                    || cdcToast.length == 0 || java.util.Arrays.stream(cdcToast).anyMatch(p -> p < 0 || p > 100)) {
                throw new IllegalArgumentException("need --cdc-rows >= 100, --cdc-tables >= 1, --cdc-granularity >= 0,"
                        + " --cdc-formats of json,avro and --cdc-toast of percentages 0 to 100");
            }
            return new Options(rows, (int) Math.min(sample, rows), partitions, tasks, seed, paths, batch,
                    formats.contains("schema,") || formats.equals("schema") || formats.endsWith(",schema"),
                    formats.contains("schemaless"), formats.contains("avro"), converters, profile, memory, keep, warmup, rebalanceDelayMs, prefix, json, workDir,
                    tables, manyRows, official, Math.max(1, rounds), oursProps, cdcRows, cdcTables, cdcFormats, cdcGranularity,
                    cdcToast, exactlyOnce, cdcFloor,
                    shown(args));
        }

        /** The options as given, for the report, without --json and its file (the report is that file). */
        private static String shown(String[] args) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < args.length; i++) {
                if (args[i].equals("--json")) {
                    i++;
                } else if (!args[i].isEmpty()) {
                    sb.append(sb.length() == 0 ? "" : " ").append(args[i]);
                }
            }
            return sb.toString();
        }

        boolean runs(char path) {
            return paths.indexOf(path) >= 0;
        }
    }

    private final Stack stack;
    private final ClickHouseServer server;
    private final Options o;
    private final SinkBenchReport report;
    private final CheckLine expected;

    /** @param stack the stack for path B; null when B is not run (then only {@code server} is needed) */
    SinkBench(ClickHouseServer server, Stack stack, Options options) {
        this.stack = stack;
        this.server = server;
        this.o = options;
        this.report = new SinkBenchReport(options);
        // Paths M and V have datasets of their own: the events' check line only for the paths that write them.
        this.expected = options.paths().matches("[MV]+") ? null : EventsTable.expected(options.seed(), options.rows());
    }

    public static void main(String[] args) throws Exception {
        Path work = Paths.get(System.getProperty("chsink.work.dir", "target/bench")).toAbsolutePath();
        Options options = Options.parse(args, work);
        Files.createDirectories(work);
        Path gcLog = work.resolve("worker-gc.log");
        Files.deleteIfExists(gcLog);
        String heap = options.memory() ? "-Xmx512m" : "-Xmx1g";
        String opts = System.getProperty("chsink.worker.jvm.opts", heap);
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--worker-jvm-opts")) {
                opts = args[i + 1].replace(',', ' '); // commas for spaces: the option travels in bench.args
            }
        }
        System.setProperty("chsink.worker.jvm.opts", opts + " -Xlog:gc:file=" + gcLog);
        // The broker's group.initial.rebalance.delay.ms (--rebalance-delay-ms, 300 by default). Kafka's default, 3000,
        // holds a new consumer group's first assignment 3 s per joining member: with two tasks a new connector's first
        // rows land 6 s after its creation whatever the connector does. With 0 the first task is assigned every
        // partition alone and reads for up to a heartbeat (3 s) before the second task's join rebalances the group.
        // 300 ms lets both tasks' consumers join the group's first generation, which is what a connector that has
        // been running for a while looks like.
        System.setProperty("chsink.kafka.initial.rebalance.delay.ms", Long.toString(options.rebalanceDelayMs()));
        boolean needsKafka = options.runs('B') || options.runs('M') || options.runs('V') || options.runs('S');
        if ((options.runs('M') || options.runs('V') || options.runs('S')) && options.officialPlugin() != null) {
            System.setProperty(io.chsink.it.stack.ConnectWorker.EXTRA_PLUGIN_PATH, options.officialPlugin().toString());
        }
        Path kafkaLog = null;
        if (needsKafka && System.getProperty("chsink.kafka.log.dirs") == null && Files.isDirectory(Path.of("/dev/shm"))) {
            kafkaLog = Files.createTempDirectory(Path.of("/dev/shm"), "chsink-kafka-bench");
            System.setProperty("chsink.kafka.log.dirs", kafkaLog.toString());
        }
        System.out.printf("Starting %s (work dir %s, worker JVM options: %s)...%n",
                needsKafka ? "ClickHouse, Kafka and Connect" : "ClickHouse", work, System.getProperty("chsink.worker.jvm.opts"));
        SinkBenchReport report;
        if (needsKafka) {
            try (Stack stack = Stack.start(work)) {
                report = new SinkBench(stack.clickhouse(), stack, options).run(gcLog);
            } finally {
                if (kafkaLog != null) {
                    deleteTree(kafkaLog);
                }
            }
        } else {
            try (ClickHouseServer server = ClickHouseServer.embedded(work.resolve("clickhouse"))) {
                report = new SinkBench(server, null, options).run(null);
            }
        }
        report.print(System.out);
        report.writeJson(options.json());
        System.out.println();
        System.out.println("JSON: " + options.json().toAbsolutePath());
        for (Path chart : BenchCharts.write(report, options.json())) {
            System.out.println("Chart: " + chart);
        }
        System.exit(report.allChecksEqual() ? 0 : 1);
    }

    private static void deleteTree(Path dir) throws java.io.IOException {
        try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Runs the paths the options name, in the order C, A, D, E, B, M, V, S; returns the figures. */
    SinkBenchReport run(Path workerGcLog) throws Exception {
        double loadAtStart = MachineFacts.loadAverage();
        report.machine.put("date", java.time.LocalDate.now(java.time.ZoneOffset.UTC).toString());
        report.machine.put("commit", MachineFacts.commit());
        report.machine.put("args", o.args().isEmpty() ? "(none)" : o.args());
        report.machine.putAll(MachineFacts.describe(server));
        report.expected = expected;
        if (o.runs('B') || o.runs('M') || o.runs('S')) {
            report.machine.put("brokerGroupInitialRebalanceDelayMs", Long.toString(o.rebalanceDelayMs()));
            String log = System.getProperty("chsink.kafka.log.dirs");
            report.machine.put("kafkaData", log == null ? "the work directory" : log
                    + (log.startsWith("/dev/shm") ? " (tmpfs: in RAM, no disk I/O)" : ""));
        }
        System.out.printf("%s; load average (1 min) %.2f%n", report.machine.get("clickhouseData"), loadAtStart);
        if (expected != null) {
            System.out.println("Expected check line (from the generator): " + expected);
        }
        List<SinkRecord> records = null;
        if (o.runs('A') || o.runs('C')) {
            long t0 = System.nanoTime();
            records = ConnectorEncoder.polledRecords("bench-a", o.seed(), (int) o.rows(), o.partitions(), o.batch());
            System.out.printf("Built %,d SinkRecords (Struct with schema; %d partitions taking turns in runs of %d, as"
                    + " polls deliver them) in %.1f s (not timed)%n", o.rows(), o.partitions(), o.batch(),
                    (System.nanoTime() - t0) / 1e9);
        }
        try (Client client = BlocksPath.client(server.url(), server.user(), server.password())) {
            if (o.runs('C')) {
                runC(client, records);
            }
            if (o.runs('A')) {
                runA(client, records);
            }
        }
        records = null; // let the dataset go before the end-to-end paths
        if (o.runs('D')) {
            runJdbc('D', o.rows(), JdbcPath.BATCH_ROWS);
        }
        if (o.runs('E')) {
            runJdbc('E', o.sample(), 1);
        }
        if (o.runs('B')) {
            if (stack == null) {
                throw new IllegalStateException("path B needs Kafka and Connect: no stack given");
            }
            for (String converter : o.bConverters().split(",")) {
                boolean fast = converter.trim().equals("fast");
                if (!fast && !converter.trim().equals("kafka")) {
                    throw new IllegalArgumentException("--b-converters takes kafka and/or fast, got " + converter);
                }
                if (o.bWithSchema()) {
                    runB(EndToEndPath.Format.SCHEMA, fast, false, workerGcLog);
                }
                if (o.bSchemaless()) {
                    runB(EndToEndPath.Format.SCHEMALESS, fast, false, workerGcLog);
                }
                if (o.bAvro() && fast) {
                    runB(EndToEndPath.Format.AVRO, true, false, workerGcLog); // Avro has one converter: the plugin's
                }
            }
            if (o.exactlyOnce()) {
                runB(EndToEndPath.Format.SCHEMA, true, true, workerGcLog);
            }
        }
        if (o.runs('M')) {
            runM();
        }
        if (o.runs('V')) {
            runV();
        }
        if (o.runs('S')) {
            runS();
        }
        report.machine.put("loadAvg1m", String.format(Locale.ROOT, "%.2f at start, %.2f at end", loadAtStart,
                MachineFacts.loadAverage()));
        return report;
    }

    private String table(String suffix) {
        return table(suffix, false);
    }

    /** A new empty events table; {@code dedup}: with the insert deduplication exactly_once needs. */
    private String table(String suffix, boolean dedup) {
        String t = o.prefix() + "_" + suffix;
        server.exec("DROP TABLE IF EXISTS " + EventsTable.qualified(DB, t) + " SYNC");
        server.exec(dedup ? EventsTable.createDedupSql(DB, t) : EventsTable.createSql(DB, t));
        return t;
    }

    /** Checks count and check line of a path's table, records them, and drops the table unless kept. */
    private SinkBenchReport.Check verify(String table, long rows, CheckLine want) {
        long count = Long.parseLong(server.http().scalar("SELECT count() FROM " + EventsTable.qualified(DB, table)).trim());
        CheckLine line = EventsTable.check(server.http(), DB, table);
        if (!o.keepTables()) {
            server.exec("DROP TABLE " + EventsTable.qualified(DB, table) + " SYNC");
        }
        SinkBenchReport.Check c = new SinkBenchReport.Check(table, count, line, want, count == rows && line.equals(want));
        System.out.printf("    %s: count()=%,d %s %s%n", table, count, line, c.ok() ? "= expected" : "!= expected " + want);
        return c;
    }

    private void runC(Client client, List<SinkRecord> records) throws Exception {
        System.out.println("C: pre-encoded Native blocks inserted with client-v2...");
        String table = table("c");
        List<byte[]> bodies = new ConnectorEncoder(client, DB, table).encodeBlocks(records);
        long nativeBytes = bodies.stream().mapToLong(b -> b.length).sum();
        report.nativeBytesPerRow = (double) nativeBytes / o.rows();
        if (o.warmup()) {
            // The first block into a scratch table, so the HTTP client and LZ4 code are compiled.
            String scratch = table("c_warmup");
            BlocksPath.insert(client, DB, scratch, bodies.subList(0, 1));
            server.exec("DROP TABLE " + EventsTable.qualified(DB, scratch) + " SYNC");
        }

        Meter m = Meter.start(server);
        long written = BlocksPath.insert(client, DB, table, bodies);
        SinkBenchReport.Path p = m.stop('C', "ceiling: pre-encoded Native, client-v2", o.rows(), "this JVM");
        p.details.put("blocks", bodies.size());
        p.details.put("nativeBytes", nativeBytes);
        p.details.put("writtenRowsReported", written);
        p.check = verify(table, o.rows(), expected);
        report.add(p);
    }

    private void runA(Client client, List<SinkRecord> records) throws Exception {
        System.out.printf("A: the connector's SinkTask in-process, put() batches of %d...%n", o.batch());
        if (o.warmup()) {
            // Twice through throw-away tasks into a scratch table: up to 1,000,000 records in put() calls of 50 (enough
            // calls for C2 to compile put() itself, not only its loop), then all of them as timed (the same pauses
            // for buffer.max.bytes): a shorter warm-up left C2 compiling put(), seconds of CPU, in the timed run.
            String scratch = table("a_warmup");
            TaskPath.run(records.subList(0, Math.min(1_000_000, records.size())), taskProps("bench-a", scratch), 50);
            server.exec("TRUNCATE TABLE " + EventsTable.qualified(DB, scratch));
            TaskPath.run(records, taskProps("bench-a", scratch), o.batch());
            server.exec("DROP TABLE " + EventsTable.qualified(DB, scratch) + " SYNC");
        }

        String table = table("a");
        // CPU is read at the edges of the timed loop: the harness's preparation (offsets per batch, a System.gc()) is
        // not the task's.
        TaskPath.Result r = TaskPath.run(records, taskProps("bench-a", table), o.batch(), ProcessCpu.self(),
                ProcessCpu.ofClickHouse(server.httpPort()));
        SinkBenchReport.Path p = new SinkBenchReport.Path("A", "SinkTask in-process, put() x " + o.batch(), o.rows(),
                r.nanos() / 1e9, "this JVM", r.cpu()[0], r.cpu()[1]);
        Map<String, Object> byThread = new LinkedHashMap<>();
        r.threadCpuNanos().forEach((k, v) -> byThread.put(k, v / 1e9));
        p.details.put("jvmCpuSecondsByThread", byThread);
        p.details.put("putCalls", r.putCalls());
        p.details.put("putThreadBytesPerRecord", (double) r.putThreadBytes() / o.rows());
        p.details.put("putCpuNanosPerRecord", (double) r.putCpuNanos() / o.rows());
        if (r.steadyRecords() > 0) {
            p.details.put("putThreadBytesPerRecordAfterTwoBlocks", (double) r.steadyPutBytes() / r.steadyRecords());
            p.details.put("recordsAfterTwoBlocks", r.steadyRecords());
        }
        p.details.put("insertThreadsCpuNanosPerRecord", (double) r.insertCpuNanos() / o.rows());
        p.details.put("insertThreadBytesPerRecord", (double) r.insertThreadBytes() / o.rows());
        p.details.put("heapBeforeMiB", r.heapBeforeBytes() / 1048576.0);
        p.details.put("peakHeapMiB", r.peakHeapBytes() / 1048576.0);
        p.details.put("pauses", r.pauses());
        p.check = verify(table, o.rows(), expected);
        report.add(p);
    }

    private Map<String, String> taskProps(String topic, String table) {
        Map<String, String> overrides = new HashMap<>();
        overrides.put("name", "bench-a");
        overrides.put("topics", topic);
        overrides.put("clickhouse.url", server.url());
        overrides.put("clickhouse.user", server.user());
        overrides.put("clickhouse.password", server.password());
        overrides.put("clickhouse.database", DB);
        overrides.put("topic.to.table.map", topic + ":" + table);
        return ConnectorConfigs.load("clickhouse-sink.json", overrides);
    }

    private void runJdbc(char id, long rows, int batchRows) throws Exception {
        String what = batchRows == 1 ? "clickhouse-jdbc, executeUpdate per row" : "clickhouse-jdbc, addBatch, executeBatch every " + batchRows;
        System.out.printf("%c: %s, %,d rows%s...%n", id, what, rows, rows < o.rows() ? " (a sample: the first " + rows + " events)" : "");
        String table = table(Character.toString(Character.toLowerCase(id)));
        try (Connection c = JdbcPath.connect(server.url(), DB, server.user(), server.password())) {
            String asyncInsert = JdbcPath.asyncInsert(c);
            Meter m = Meter.start(server);
            long written = JdbcPath.insert(c, DB, table, o.seed(), rows, batchRows);
            SinkBenchReport.Path p = m.stop(id, what, rows, "this JVM");
            p.details.put("writtenRowsReported", written);
            p.details.put("asyncInsert", asyncInsert);
            if (rows < o.rows()) {
                p.details.put("sampleOf", o.rows());
            }
            p.check = verify(table, rows, rows == o.rows() ? expected : EventsTable.expected(o.seed(), rows));
            report.add(p);
        }
    }

    /**
     * One run of path B; {@code exactlyOnce}: with config/clickhouse-sink-exactly-once.json into a table that
     * deduplicates inserts (id Bx, JSON with schemas only).
     */
    private void runB(EndToEndPath.Format f, boolean fast, boolean exactlyOnce, Path gcLog) throws Exception {
        String format = f.description + (fast ? "" : ", Kafka's JsonConverter")
                + (exactlyOnce ? ", delivery.guarantee=exactly_once" : "");
        System.out.printf("B: end to end (%s), %d partitions, tasks.max=%d, %,d rows...%n", format, o.partitions(),
                o.tasks(), o.rows());
        String kind = f.name().toLowerCase(java.util.Locale.ROOT) + (fast ? "" : "_kafka") + (exactlyOnce ? "_eo" : "");
        String suffix = kind.replace('_', '-') + "-" + Long.toString(System.currentTimeMillis(), 36);
        // Warm-up: up to 1,000,000 rows through a connector of their own into a scratch table, so the worker's JIT has
        // compiled the converter and the connector, as in a worker that has been running a while.
        if (o.warmup()) {
            warmUpB(f, fast, exactlyOnce, kind, suffix);
        }
        String table = table("b_" + kind, exactlyOnce);
        String topic = o.prefix() + "-b-" + suffix;
        Path jfr = o.profile() ? o.workDir().resolve("worker-b-" + kind + ".jfr") : null;
        EndToEndPath.Result r = EndToEndPath.run(stack, DB, table, topic, o.seed(), o.rows(), o.partitions(), o.tasks(),
                f, fast, exactlyOnce, gcLog, jfr);
        String id = switch (f) {
            case SCHEMA -> "B";
            case SCHEMALESS -> "B'";
            case AVRO -> "Ba";
        };
        report(id + (fast ? "" : "k") + (exactlyOnce ? "x" : ""), format, r, table);
    }

    /**
     * Path M: for each K of --tables, the dataset produced once and read by each sink (this connector, and the
     * official one when its plugin is built), alternating which goes first from one K to the next and from one round
     * to the next; a warm-up of each sink first.
     */
    private void runM() throws Exception {
        List<ManyTablesPath.Sink> sinks = new java.util.ArrayList<>(List.of(ManyTablesPath.Sink.OURS));
        if (officialListed("M")) {
            sinks.add(ManyTablesPath.Sink.OFFICIAL);
        }
        report.manyRows = o.manyRows();
        report.manySinks = sinks.stream().map(s -> s.label).toList();
        int turn = 0;
        for (int round = 0; round < o.rounds(); round++) {
            for (int k : o.tables()) {
                System.out.printf("M: %,d events over %d topics x 2 partitions into %d tables, tasks.max=%d (round %d)...%n",
                        o.manyRows(), k, k, o.tasks(), round + 1);
                if (o.warmup() && round == 0) {
                    warmUpM(sinks, k);
                }
                ManyTablesPath.Dataset d = ManyTablesPath.produce(stack, o.prefix(), k, o.manyRows(), o.seed());
                List<ManyTablesPath.Sink> order = new java.util.ArrayList<>(sinks);
                if (turn++ % 2 == 1) {
                    java.util.Collections.reverse(order);
                }
                for (ManyTablesPath.Sink s : order) {
                    Path jfr = o.profile() && s == ManyTablesPath.Sink.OURS
                            ? o.workDir().resolve("worker-m" + k + "-r" + (round + 1) + ".jfr") : null;
                    report.many.add(ManyTablesPath.run(stack, DB, d, s, o.tasks(), o.oursProps(), jfr, o.keepTables()));
                }
                ManyTablesPath.deleteTopics(stack, d);
            }
        }
    }

    /**
     * Whether the worker lists the official connector from --official-plugin (main adds it to the worker's
     * plugin.path for paths M and V); if not, says so for {@code path}.
     */
    private boolean officialListed(String path) {
        if (o.officialPlugin() == null) {
            System.out.println(path + ": no official connector plugin (build it with ../shared/official-connector/build.sh):"
                    + " this connector alone");
            return false;
        }
        if (stack.connect().rest().plugins().stream().anyMatch(p -> p.className().equals(ManyTablesPath.OFFICIAL_CLASS))) {
            return true;
        }
        System.out.println(path + ": the worker does not list " + ManyTablesPath.OFFICIAL_CLASS + " from "
                + o.officialPlugin() + ": this connector alone");
        return false;
    }

    /**
     * Half as many events over as many tables, through each sink, before the first timed run at K tables: a worker
     * that has read few partitions still compiles the consumer's and the connectors' many-partition paths (thousands
     * of JIT compilations and deoptimizations, seconds of CPU) during its first run over 200 tables.
     */
    private void warmUpM(List<ManyTablesPath.Sink> sinks, int k) throws Exception {
        long warmRows = Math.max(k * 100L, o.manyRows() / 2);
        ManyTablesPath.Dataset w = ManyTablesPath.produce(stack, o.prefix() + "_warm", k, warmRows, o.seed());
        for (ManyTablesPath.Sink s : sinks) {
            ManyTablesPath.run(stack, DB, w, s, o.tasks(), o.oursProps(), null, false);
        }
        ManyTablesPath.deleteTopics(stack, w);
        System.out.printf("    warm-up: %,d events over %d tables through each sink (not timed)%n", warmRows, k);
    }

    private void warmUpB(EndToEndPath.Format f, boolean fast, boolean exactlyOnce, String kind, String suffix)
            throws Exception {
        long warmRows = Math.min(o.rows(), 1_000_000);
        String scratch = table("b_" + kind + "_warmup", exactlyOnce);
        EndToEndPath.run(stack, DB, scratch, o.prefix() + "-warmup-" + suffix, o.seed(), warmRows, o.partitions(),
                o.tasks(), f, fast, exactlyOnce, null, null);
        server.exec("DROP TABLE " + EventsTable.qualified(DB, scratch) + " SYNC");
        System.out.printf("    warm-up: %,d rows through the worker (not timed)%n", warmRows);
    }

    private void report(String id, String format, EndToEndPath.Result r, String table) {
        SinkBenchReport.Path p = new SinkBenchReport.Path(id, "end to end, " + format
                + ", " + o.partitions() + " partitions, tasks.max=" + o.tasks(), o.rows(), r.nanos() / 1e9, "worker",
                r.workerCpu(), r.serverCpu());
        // The clock starts at connector creation: the first rows land only once the worker has started the tasks and
        // their consumers have joined the group and been assigned partitions. Reported apart, as is the rate after it.
        if (r.firstRowNanos() > 0) {
            p.details.put("firstRowSeconds", r.firstRowNanos() / 1e9);
            p.details.put("rowsPerSecondAfterFirstRow", o.rows() / ((r.nanos() - r.firstRowNanos()) / 1e9));
        }
        p.details.put("kafkaValueBytesPerRecord", (double) r.kafkaValueBytes() / o.rows());
        p.details.put("kafkaValueMBPerSecond", r.kafkaValueBytes() / 1e6 / (r.nanos() / 1e9));
        p.details.put("produceSecondsNotTimed", r.produceSeconds());
        p.details.put("bufferPausesLogged", r.pausesLogged());
        p.details.put("blocksInserted", r.blocks());
        p.details.put("rowsPerBlock", r.blocks() > 0 ? (double) o.rows() / r.blocks() : Double.NaN);
        if (r.gc().known()) {
            Map<String, Object> gc = new LinkedHashMap<>();
            gc.put("collections", r.gc().collections());
            gc.put("fullCollections", r.gc().fullCollections());
            gc.put("maxHeapBeforeGcMiB", r.gc().maxBeforeMiB());
            gc.put("maxHeapAfterGcMiB", r.gc().maxAfterMiB());
            gc.put("maxCommittedMiB", r.gc().maxCommittedMiB());
            gc.put("pauseMsTotal", r.gc().pauseMs());
            p.details.put("workerGc", gc);
        }
        if (r.profile() != null) {
            p.profile = r.profile();
        }
        p.check = verify(table, o.rows(), expected);
        report.add(p);
    }

    /**
     * Path V, each format of --cdc-formats and each percentage of --cdc-toast: change events with cdc.mode=debezium,
     * (JSON, its plugin in the worker) the official connector over the same events, then the records as flat rows
     * ({@link CdcPath}); ids get {@code -toast<PCT>} when --cdc-toast gives more than one percentage.
     */
    private void runV() throws Exception {
        if (stack == null) {
            throw new IllegalStateException("path V needs Kafka and Connect: no stack given");
        }
        CdcPath v = new CdcPath(stack, DB, o.prefix(), o.cdcTables(), o.cdcRows(), o.seed(), o.tasks(), o.keepTables(),
                o.oursProps(), o.cdcGranularity());
        if (o.profile()) {
            v.profileTo(o.workDir());
        }
        if (o.cdcFormats().contains("json")) {
            v.officialToo(officialListed("V (JSON)"));
        }
        v.floorToo(o.cdcFloor());
        int[] toast = o.cdcToast();
        for (String f : o.cdcFormats().split(",")) {
            CdcPath.Format format = CdcPath.Format.valueOf(f.trim().toUpperCase(Locale.ROOT));
            if (o.warmup()) {
                v.run(format, Math.max(100, Math.min(o.cdcRows() / 5, 100_000)), o.seed() + 1, toast[0], "", false);
            }
            for (int pct : toast) {
                v.run(format, o.cdcRows(), o.seed(), pct, toast.length > 1 ? "-toast" + pct : "", true)
                        .forEach(report::add);
            }
        }
    }

    /**
     * Path S: the dataset produced once into a topic of --partitions partitions, then, into a 2-shard cluster of two
     * servers of its own ({@link ShardedPath}): per sharding key (cityHash64(user_id), then rand()) this connector
     * and the official one (when its plugin is listed), which goes first alternating from one key to the next;
     * with --exactly-once, this connector under the exactly-once example with both keys. A warm-up of each sink
     * first (half the events, at most 500,000, through the hashed key).
     */
    private void runS() throws Exception {
        if (stack == null) {
            throw new IllegalStateException("path S needs Kafka and Connect: no stack given");
        }
        boolean official = officialListed("S");
        System.out.printf("S: %,d events into 2 shards through a Distributed table, %d partitions, tasks.max=%d...%n",
                o.rows(), o.partitions(), o.tasks());
        try (ShardedPath s = ShardedPath.start(o.workDir(), DB, o.exactlyOnce())) {
            report.machine.put("shardedCluster", s.describe());
            String base = o.prefix() + "_s_" + Long.toString(System.currentTimeMillis(), 36);
            List<ShardedPath.Sink> sinks = new java.util.ArrayList<>(List.of(ShardedPath.Sink.OURS));
            if (official) {
                sinks.add(ShardedPath.Sink.OFFICIAL);
            }
            if (o.warmup()) {
                long warm = Math.max(20, Math.min(o.rows() / 2, 500_000));
                ShardedPath.Dataset w = ShardedPath.produce(stack, base.replace('_', '-') + "-warm", o.seed(), warm,
                        o.partitions());
                List<ShardedPath.Sink> warmSinks = new java.util.ArrayList<>(sinks);
                if (o.exactlyOnce()) {
                    warmSinks.add(ShardedPath.Sink.OURS_EXACTLY_ONCE);
                }
                for (ShardedPath.Sink sink : warmSinks) {
                    s.run(stack, w, base + "_warm_" + sink.name().toLowerCase(Locale.ROOT), sink,
                            ShardedPath.Key.HASH, o.tasks(), false, null);
                }
                stack.kafka().deleteTopic(w.topic());
                System.out.printf("    warm-up: %,d events through each sink (not timed)%n", warm);
            }
            ShardedPath.Dataset d = ShardedPath.produce(stack, base.replace('_', '-'), o.seed(), o.rows(), o.partitions());
            int turn = 0;
            for (ShardedPath.Key key : ShardedPath.Key.values()) {
                List<ShardedPath.Sink> order = new java.util.ArrayList<>(sinks);
                if (turn++ % 2 == 1) {
                    java.util.Collections.reverse(order);
                }
                for (ShardedPath.Sink sink : order) {
                    report.add(s.run(stack, d, base + "_" + sink.idPart.replace("-", "_") + key.label, sink, key,
                            o.tasks(), o.keepTables(), "S-" + sink.idPart + key.label));
                }
            }
            if (o.exactlyOnce()) {
                for (ShardedPath.Key key : ShardedPath.Key.values()) {
                    report.add(s.run(stack, d, base + "_eo_" + key.label, ShardedPath.Sink.OURS_EXACTLY_ONCE, key,
                            o.tasks(), o.keepTables(), "S-" + key.label + "-x"));
                }
            }
            stack.kafka().deleteTopic(d.topic());
        }
    }

    /** Wall time and CPU time (this JVM, ClickHouse) of one path. */
    private static final class Meter {
        private final ProcessCpu self = ProcessCpu.self();
        private final ProcessCpu server;
        private final ProcessCpu.Sample self0;
        private final ProcessCpu.Sample server0;
        private final long start;

        private Meter(ClickHouseServer s) {
            server = ProcessCpu.ofClickHouse(s.httpPort());
            self0 = self.sample();
            server0 = server.sample();
            start = System.nanoTime();
        }

        static Meter start(ClickHouseServer s) {
            return new Meter(s);
        }

        SinkBenchReport.Path stop(char id, String what, long rows, String client) {
            long nanos = System.nanoTime() - start;
            return new SinkBenchReport.Path(Character.toString(id), what, rows, nanos / 1e9, client,
                    self.sample().minus(self0), server.sample().minus(server0));
        }
    }
}
