package io.chsink.it.bench;

import com.clickhouse.client.api.Client;
import io.chsink.it.events.CheckLine;
import io.chsink.it.events.DirectLoader;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import io.chsink.it.stack.ClickHouseServer;
import io.chsink.it.stack.ProcessCpu;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Which wire format should the connector send, and what does it cost? For N generated events (seed 42):
 * <ol>
 *   <li>loads them with {@link DirectLoader} into a source table ({@code ENGINE = Log}, so that a single-threaded read
 *       returns them in generation order, the order the connector receives them);</li>
 *   <li>exports the source over HTTP as Native, RowBinary and CSV bodies, and encodes the same events with the
 *       connector's own TableMapping/NativeBlock ({@link ConnectorEncoder}), timing that client-side work;</li>
 *   <li>inserts each body over HTTP into a fresh empty events table (the MergeTree of {@link EventsTable}), R timed
 *       rounds after a warm-up round, bodies interleaved, verifying count() and the check line after every insert;
 *       the connector's body is also sent LZ4-framed, as the connector sends it. Each insert is timed by the server
 *       ({@code elapsed_ns}), by the client (HTTP round trip) and in server CPU time ({@link ProcessCpu});</li>
 *   <li>prints a table and writes the same figures as JSON.</li>
 * </ol>
 * The embedded server keeps its data on /dev/shm (tmpfs): the figures are CPU and memory work, no disk I/O.
 * Nothing here asserts on timings; only correctness (row counts, check lines) fails the run.
 * <p>
 * Run: {@code mvn -B package -Pwire-formats [-Dbench.rows=N] [-Dbench.reps=R]}.
 */
public final class WireFormatBench {
    private static final String DB = "default";
    private static final String SOURCE = "wf_source";
    private static final String TEMPLATE = "wf_events";
    private static final String TARGET = "wf_target";
    /** The settings the connector's BlockInserter sends with every insert; the same for every body here. */
    private static final Map<String, String> INSERT_SETTINGS = BlocksPath.CONNECTOR_SERVER_SETTINGS;

    static {
        // Read once, when the JDK's HTTP client first loads: lets RawHttp send "Connection: close".
        System.setProperty("jdk.httpclient.allowRestrictedHeaders", "connection");
    }

    /** One body to insert: {@code data} is LZ4-framed when {@code lz4}. */
    private record Body(String name, String format, byte[] data, boolean lz4) {
    }

    private final ClickHouseServer server;
    private final Client client;
    private final RawHttp http;
    private final BenchReport report;
    private final int rows;
    private final int reps;
    private final long seed;

    private WireFormatBench(ClickHouseServer server, Client client, BenchReport report, int rows, int reps, long seed) {
        this.server = server;
        this.client = client;
        this.http = new RawHttp(server);
        this.report = report;
        this.rows = rows;
        this.reps = reps;
        this.seed = seed;
    }

    public static void main(String[] args) throws Exception {
        int rows = 1_000_000;
        int reps = 5;
        long seed = 42;
        Path json = Paths.get("target", "wire-formats.json");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows" -> rows = Integer.parseInt(args[++i].replace("_", ""));
                case "--reps" -> reps = Integer.parseInt(args[++i]);
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--json" -> json = Paths.get(args[++i]);
                case "" -> { }
                default -> {
                    System.err.println("usage: WireFormatBench [--rows N] [--reps R] [--seed S] [--json FILE]");
                    System.exit(2);
                }
            }
        }
        if (rows < 20 || reps < 1) {
            throw new IllegalArgumentException("need --rows >= 20 and --reps >= 1");
        }
        Path work = Paths.get(System.getProperty("chsink.work.dir", "target/wire-formats"));
        BenchReport report = new BenchReport(rows, reps, seed);
        try (ClickHouseServer server = ClickHouseServer.embedded(work); Client client = server.newClient()) {
            new WireFormatBench(server, client, report, rows, reps, seed).run();
        }
        report.print(System.out);
        report.writeJson(json);
        System.out.println();
        System.out.println("JSON: " + json.toAbsolutePath());
    }

    private void run() throws IOException {
        double loadAtStart = MachineFacts.loadAverage();
        report.machine.putAll(MachineFacts.describe(server));
        System.out.printf("Load average (1 min) at start: %.2f%n", loadAtStart);

        server.exec(EventsTable.createSql(DB, TEMPLATE));
        server.exec("CREATE TABLE " + EventsTable.qualified(DB, SOURCE) + " (" + EventsTable.COLUMNS + ") ENGINE = Log");
        long t0 = System.nanoTime();
        long loaded = new DirectLoader(client).load(DB, SOURCE, new EventGenerator(seed), rows);
        System.out.printf("Loaded %,d events into %s in %.1f s%n", loaded, SOURCE, (System.nanoTime() - t0) / 1e9);
        CheckLine source = EventsTable.check(server.http(), DB, SOURCE);
        require(source.equals(EventsTable.expected(seed, rows)), "source table check line " + source
                + " differs from the generated events' " + EventsTable.expected(seed, rows));
        report.checks.add("source: " + source + " (equals the generated events')");

        List<Body> bodies = new ArrayList<>();
        for (String format : List.of("Native", "RowBinary", "CSV")) {
            byte[] data = http.export("SELECT " + EventsTable.COLUMN_NAMES + " FROM " + EventsTable.qualified(DB, SOURCE)
                    + " SETTINGS max_threads = 1 FORMAT " + format);
            bodies.add(new Body(format + " (server export)", format, data, false));
        }
        byte[] connectorBody = encodeWithConnector();
        bodies.add(new Body("Native (connector)", "Native", connectorBody, false));
        for (Body b : bodies) {
            report.sizes.add(new BenchReport.Size(b.name, b.format, b.data.length, RawHttp.lz4(b.data).length));
        }
        bodies.add(new Body("Native (connector) + LZ4", "Native", RawHttp.lz4(connectorBody), true));

        ingest(bodies, source, loadAtStart);
        server.exec("DROP TABLE " + EventsTable.qualified(DB, SOURCE) + " SYNC");
        server.exec("DROP TABLE " + EventsTable.qualified(DB, TEMPLATE) + " SYNC");
    }

    /** The connector's encoding, {@code reps} passes over the same records, each also LZ4-framed; returns the body. */
    private byte[] encodeWithConnector() {
        long t0 = System.nanoTime();
        List<SinkRecord> records = ConnectorEncoder.records("events", seed, rows);
        System.out.printf("Built %,d SinkRecords in %.1f s (not part of the encoding figures)%n", rows,
                (System.nanoTime() - t0) / 1e9);
        ConnectorEncoder encoder = new ConnectorEncoder(client, DB, TEMPLATE);
        List<Long> append = new ArrayList<>();
        List<Long> write = new ArrayList<>();
        List<Long> lz4 = new ArrayList<>();
        ConnectorEncoder.Encoded encoded = null;
        for (int pass = 1; pass <= reps; pass++) {
            System.gc(); // start every pass with the previous pass's garbage gone; its own GC work still counts
            ConnectorEncoder.Encoded e = encoder.encode(records);
            require(encoded == null || Arrays.equals(encoded.body(), e.body()), "encoding pass " + pass
                    + " produced a different body");
            long l0 = System.nanoTime();
            RawHttp.lz4(e.body());
            lz4.add(System.nanoTime() - l0);
            append.add(e.appendNanos());
            write.add(e.writeNanos());
            encoded = e;
            System.out.printf("  connector encoding pass %d: %.1f ns/row append, %.1f ns/row writeTo%n", pass,
                    (double) e.appendNanos() / rows, (double) e.writeNanos() / rows);
        }
        report.encode = new BenchReport.Encode(encoded.blocks(), BenchReport.Stats.of(append),
                BenchReport.Stats.of(write), BenchReport.Stats.of(lz4));
        return encoded.body();
    }

    /** One warm-up round, then {@code reps} timed rounds, each inserting every body once into a fresh table. */
    private void ingest(List<Body> bodies, CheckLine source, double loadAtStart) {
        ProcessCpu cpu = ProcessCpu.ofClickHouse(server.httpPort());
        List<List<Long>> serverNanos = new ArrayList<>();
        List<List<Long>> clientNanos = new ArrayList<>();
        List<List<Long>> userNanos = new ArrayList<>();
        List<List<Long>> sysNanos = new ArrayList<>();
        for (int i = 0; i < bodies.size(); i++) {
            serverNanos.add(new ArrayList<>());
            clientNanos.add(new ArrayList<>());
            userNanos.add(new ArrayList<>());
            sysNanos.add(new ArrayList<>());
        }
        double maxLoad = loadAtStart;
        for (int round = 0; round <= reps; round++) {
            for (int k = 0; k < bodies.size(); k++) {
                int i = (k + round) % bodies.size(); // rotate, so no body always follows the same one
                Body body = bodies.get(i);
                String target = freshTarget();
                ProcessCpu.Sample cpuBefore = cpu.sample();
                RawHttp.Insert insert = http.insert("INSERT INTO " + target + " (" + EventsTable.COLUMN_NAMES
                        + ") FORMAT " + body.format, body.data, body.lz4, INSERT_SETTINGS);
                ProcessCpu.Sample used = cpu.sample().minus(cpuBefore);
                verifyAndDrop(body, insert, source);
                if (round > 0) {
                    serverNanos.get(i).add(insert.serverNanos() > 0 ? insert.serverNanos() : insert.clientNanos());
                    clientNanos.get(i).add(insert.clientNanos());
                    userNanos.get(i).add(used.userNanos());
                    sysNanos.get(i).add(used.sysNanos());
                }
            }
            maxLoad = Math.max(maxLoad, MachineFacts.loadAverage());
            System.out.printf("  ingest round %d of %d done%s%n", round, reps, round == 0 ? " (warm-up, not counted)" : "");
        }
        for (int i = 0; i < bodies.size(); i++) {
            Body b = bodies.get(i);
            report.ingests.add(new BenchReport.Ingest(b.name, b.format, b.data.length, b.lz4,
                    BenchReport.Stats.of(serverNanos.get(i)), BenchReport.Stats.of(clientNanos.get(i)),
                    BenchReport.Stats.of(userNanos.get(i)), BenchReport.Stats.of(sysNanos.get(i))));
        }
        report.checks.add(String.format("every insert (%d bodies x %d rounds + warm-up): count() = %,d and check line"
                + " equal to the source's", bodies.size(), reps, rows));
        report.machine.put("loadAvg1m", String.format(Locale.ROOT, "%.2f at start, %.2f at end, %.2f max seen",
                loadAtStart, MachineFacts.loadAverage(), maxLoad));
        report.machine.put("serverCpuFrom", cpu.describe() + "/stat (utime + stime, 10 ms ticks)");
    }

    /** Drops and recreates the (empty) target table; returns its qualified name. */
    private String freshTarget() {
        String target = EventsTable.qualified(DB, TARGET);
        server.exec("DROP TABLE IF EXISTS " + target + " SYNC");
        server.exec("CREATE TABLE " + target + " AS " + EventsTable.qualified(DB, TEMPLATE));
        return target;
    }

    /** Verifies count() and the check line of the target after an insert, then drops it (cancelling its merges). */
    private void verifyAndDrop(Body body, RawHttp.Insert insert, CheckLine source) {
        String target = EventsTable.qualified(DB, TARGET);
        long count = Long.parseLong(server.http().scalar("SELECT count() FROM " + target));
        require(count == rows, body.name + ": count() = " + count + " after the insert, expected " + rows);
        require(insert.writtenRows() == rows, body.name + ": server reported " + insert.writtenRows() + " rows written");
        CheckLine check = EventsTable.check(server.http(), DB, TARGET);
        require(check.equals(source), body.name + ": check line " + check + " differs from the source's " + source);
        server.exec("DROP TABLE " + target + " SYNC");
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalStateException(message);
        }
    }
}
