package io.chsink.it.bench;

import io.chsink.it.events.CheckLine;
import io.chsink.it.stack.ProcessCpu;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The figures of one {@link SinkBench} run: printed as a table, and written as the same figures in JSON. */
final class SinkBenchReport {
    /**
     * A path's table after the run: its count and check line against the one wanted (a {@link CheckLine} of the
     * events dataset; path V: its own fingerprint text, see {@link CdcPath}).
     */
    record Check(String table, long count, Object line, Object expected, boolean ok) {
    }

    /** One path's figures. CPU: {@code client} is the process that did the client-side work. */
    static final class Path {
        final String id;
        final String what;
        final long rows;
        double seconds;
        final String client;
        final ProcessCpu.Sample clientCpu;
        final ProcessCpu.Sample serverCpu;
        final Map<String, Object> details = new LinkedHashMap<>();
        Check check;
        JfrBreakdown profile;

        Path(String id, String what, long rows, double seconds, String client, ProcessCpu.Sample clientCpu,
                ProcessCpu.Sample serverCpu) {
            this.id = id;
            this.what = what;
            this.rows = rows;
            this.seconds = seconds;
            this.client = client;
            this.clientCpu = clientCpu;
            this.serverCpu = serverCpu;
        }

        double rowsPerSecond() {
            return rows / seconds;
        }

        double cpuSeconds() {
            return clientCpu.seconds() + serverCpu.seconds();
        }
    }

    private final SinkBench.Options options;
    final Map<String, Object> machine = new LinkedHashMap<>();
    final List<Path> paths = new ArrayList<>();
    CheckLine expected;
    double nativeBytesPerRow = Double.NaN;

    SinkBenchReport(SinkBench.Options options) {
        this.options = options;
    }

    void add(Path p) {
        paths.add(p);
    }

    /** Every path's table holds exactly its rows, with the check line of the generator's events. */
    boolean allChecksEqual() {
        return !paths.isEmpty() && paths.stream().allMatch(p -> p.check != null && p.check.ok());
    }

    private Path path(String id) {
        return paths.stream().filter(p -> p.id.equals(id)).findFirst().orElse(null);
    }

    /** rows/s of a over rows/s of b, NaN when either did not run. */
    double ratio(String a, String b) {
        Path pa = path(a);
        Path pb = path(b);
        return pa == null || pb == null ? Double.NaN : pa.rowsPerSecond() / pb.rowsPerSecond();
    }

    private static final String[][] RATIOS = {{"A", "C"}, {"A", "D"}, {"A", "E"}, {"B", "C"}, {"B'", "C"},
        {"Bk", "C"}, {"B'k", "C"}, {"Ba", "C"}, {"Ba", "B"}};

    void print(PrintStream out) {
        out.println();
        out.printf("== Sink benchmark: %,d events (seed %d), %d partitions ==%n", options.rows(), options.seed(),
                options.partitions());
        machine.forEach((k, v) -> out.printf("%-16s %s%n", k + ":", v));
        out.printf("%-16s %s%n", "connector:", ConnectorClasses.source());
        out.println();
        // Ids are up to 4 characters (B'k), path V's up to 15 (V-json-debezium).
        String idColumn = "%-" + Math.max(4, paths.stream().mapToInt(p -> p.id.length()).max().orElse(4)) + "s";
        out.printf(idColumn + " %-82s %11s %8s %10s %7s %14s %8s %10s  %s%n", "", "path", "rows", "s", "rows/s", "MB/s",
                "client CPU s", "CH CPU s", "rows/CPU-s", "check");
        for (Path p : paths) {
            out.printf(idColumn + " %-82s %,11d %8.2f %,10.0f %7s %14s %8s %,10.0f  %s%n", p.id, p.what, p.rows, p.seconds,
                    p.rowsPerSecond(), mbPerSecond(p), cpu(p.clientCpu) + " " + shortName(p.client), cpu(p.serverCpu),
                    p.rows / p.cpuSeconds(), p.check == null ? "-" : p.check.ok() ? "OK" : "MISMATCH");
        }
        out.printf("  MB/s: rows/s x %.1f bytes/row, the dataset's size as uncompressed Native (the wire format)."
                + " CPU: user + system from /proc;%n  client = this JVM (A, C, D, E) or the Connect worker (B);"
                + " CH = the ClickHouse server process. rows/CPU-s = rows / (client + CH CPU s).%n", nativeBytesPerRow);
        Path e = path("E");
        if (e != null && e.rows < options.rows()) {
            out.printf("  E ran on a sample: the first %,d events; its check line is compared with the generator's"
                    + " for that sample.%n", e.rows);
        }

        out.println();
        StringBuilder ratios = new StringBuilder("Ratios of rows/s:");
        for (String[] r : RATIOS) {
            double v = ratio(r[0], r[1]);
            if (!Double.isNaN(v)) {
                ratios.append(String.format(Locale.ROOT, "  %s/%s = %s", r[0], r[1], v >= 10 ? String.format(Locale.ROOT, "%.0f", v)
                        : String.format(Locale.ROOT, "%.2f", v)));
            }
        }
        out.println(ratios);
        out.println("  (B = JSON with schemas, B' = schemaless JSON, read with the examples' JsonEnvelopeConverter; Bk, B'k ="
                + " the same read with Kafka's JsonConverter)");

        Path a = path("A");
        if (a != null) {
            out.println();
            out.printf("A, memory and allocation: put() thread %.0f bytes/record, insert threads %.0f bytes/record"
                    + " (records built beforehand, not counted);%n  heap in use %.0f MiB before (the prebuilt records),"
                    + " peak %.0f MiB during the run; %,d put() calls; consumption paused %d times%n",
                    a.details.get("putThreadBytesPerRecord"), a.details.get("insertThreadBytesPerRecord"),
                    a.details.get("heapBeforeMiB"), a.details.get("peakHeapMiB"), a.details.get("putCalls"),
                    a.details.get("pauses"));
            if (a.details.get("putThreadBytesPerRecordAfterTwoBlocks") instanceof Double steady) {
                out.printf("A, allocation once the task's first two blocks were inserted (later blocks reuse their"
                        + " buffers): put() thread %.0f bytes/record over the last %,d records%n", steady,
                        a.details.get("recordsAfterTwoBlocks"));
            }
            out.printf("A, CPU per record: put() thread %.0f ns (mapping, encoding, bookkeeping), insert threads %.0f ns"
                    + " (LZ4, HTTP); the rest of this JVM's CPU is GC and JIT%n", a.details.get("putCpuNanosPerRecord"),
                    a.details.get("insertThreadsCpuNanosPerRecord"));
            if (a.details.get("jvmCpuSecondsByThread") instanceof Map<?, ?> byThread && !byThread.isEmpty()) {
                StringBuilder sb = new StringBuilder();
                byThread.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ", ").append(k).append(' ')
                        .append(String.format(java.util.Locale.ROOT, "%.2f s", (Double) v)));
                out.println("A, this JVM's CPU by thread during the run: " + sb);
            }
        }
        for (Path p : paths) {
            if (!p.id.startsWith("B")) {
                continue;
            }
            out.println();
            out.printf("%s (%s): Kafka values %.0f bytes/record, %.1f MB/s of JSON; topic produced beforehand in %.1f s;"
                    + "%n  %s inserts (%,.0f rows each on average) from put() calls of at most max.poll.records=500;"
                    + " buffer.max.bytes pauses logged: %s%n", p.id, p.what, p.details.get("kafkaValueBytesPerRecord"),
                    p.details.get("kafkaValueMBPerSecond"), p.details.get("produceSecondsNotTimed"),
                    p.details.get("blocksInserted"), p.details.get("rowsPerBlock"), p.details.get("bufferPausesLogged"));
            if (p.details.get("firstRowSeconds") instanceof Double first) {
                out.printf("  first rows visible %.1f s after the connector's creation (tasks started, consumer group"
                        + " joined, partitions assigned); from then on %,.0f rows/s%n", first,
                        (Double) p.details.get("rowsPerSecondAfterFirstRow"));
            }
            if (p.details.get("workerGc") instanceof Map<?, ?> gc) {
                out.printf("  worker heap (GC log): %s collections (%s full), at most %s MiB in use before a collection,"
                        + " %s MiB live after one, %s MiB committed; %.0f ms of pauses%n", gc.get("collections"),
                        gc.get("fullCollections"), gc.get("maxHeapBeforeGcMiB"), gc.get("maxHeapAfterGcMiB"),
                        gc.get("maxCommittedMiB"), (Double) gc.get("pauseMsTotal"));
            }
            if (p.profile != null) {
                printProfile(out, p.profile);
            }
        }

        printCdc(out);

        out.println();
        out.println("Check lines (groups/totalRows/totalCents/checksum of each table)");
        if (expected != null) {
            out.println("  expected (generator): " + expected);
        }
        for (Path p : paths) {
            if (p.check != null) {
                out.printf("  %-4s %-24s count()=%,d  %s  %s%n", p.id, p.check.table(), p.check.count(), p.check.line(),
                        p.check.ok() ? (p.check.expected().equals(expected) || p.id.startsWith("V") ? "equal" : "equal to the generator's for its sample")
                                : "MISMATCH, expected " + p.check.expected());
            }
        }
        out.println(allChecksEqual() ? "RESULT: OK, every path wrote exactly the generated rows"
                : "RESULT: MISMATCH, see above");
    }

    /** Path V's formats that ran both modes: "json", "avro". */
    private List<String> cdcFormats() {
        List<String> f = new ArrayList<>();
        for (String id : new String[] {"json", "avro"}) {
            if (path("V-" + id + "-debezium") != null && path("V-" + id + "-none") != null) {
                f.add(id);
            }
        }
        return f;
    }

    private void printCdc(PrintStream out) {
        boolean any = false;
        for (Path p : paths) {
            if (!p.id.startsWith("V")) {
                continue;
            }
            if (!any) {
                out.println();
                out.println("V: change events (cdc.mode=debezium, ReplacingMergeTree) against the same records as flat"
                        + " rows (cdc.mode=none, MergeTree); rows = records (change events + tombstones),");
                out.println("  each writes one row; clock from connector creation to the last row counted by the"
                        + " tables' materialized views (rows inserted, whatever merges collapse)");
                any = true;
            }
            out.printf("%s: %s change events + %s tombstones; Kafka key %.0f + value %.0f + headers %.0f bytes/record;"
                    + " %s blocks (%,.0f rows each), %s rows inserted by the tasks, records without a row %s;"
                    + " current-row look-ups %s (%s ms)%n", p.id, p.details.get("changeEvents"),
                    p.details.get("tombstones"), p.details.get("kafkaKeyBytesPerRecord"),
                    p.details.get("kafkaValueBytesPerRecord"), p.details.get("kafkaHeaderBytesPerRecord"),
                    p.details.get("blocksInserted"), p.details.get("rowsPerBlock"), p.details.get("rowsInsertedByTasks"),
                    p.details.get("recordsWithoutRow"), p.details.get("currentRowReads"),
                    p.details.get("currentRowReadMs"));
            if (p.details.get("firstRowSeconds") instanceof Double first) {
                out.printf("  first rows visible %.1f s after the connector's creation; from then on %,.0f rows/s%n",
                        first, (Double) p.details.get("rowsPerSecondAfterFirstRow"));
            }
        }
        for (String f : cdcFormats()) {
            Path cdc = path("V-" + f + "-debezium");
            Path app = path("V-" + f + "-none");
            out.printf("V, %s: CDC/append rows/s = %.2f (%,.0f / %,.0f); worker CPU s %.2f / %.2f, ClickHouse CPU s"
                    + " %.2f / %.2f; current-row look-ups counted: %s (%s ms)%n", f, ratio(cdc.id, app.id),
                    cdc.rowsPerSecond(), app.rowsPerSecond(), cdc.clientCpu.seconds(), app.clientCpu.seconds(),
                    cdc.serverCpu.seconds(), app.serverCpu.seconds(), cdc.details.get("currentRowReads"),
                    cdc.details.get("currentRowReadMs"));
        }
    }

    private static void printProfile(PrintStream out, JfrBreakdown j) {
        out.printf("  worker CPU by component (JFR, %,d execution samples of Java threads; %s):%n", j.samples, j.file);
        j.byComponent.forEach((k, v) -> out.printf("    %-46s %5.1f%%%n", k, 100.0 * v / Math.max(1, j.samples)));
        out.println("  by thread:");
        j.byThread.forEach((k, v) -> out.printf("    %-46s %5.1f%%%n", k, 100.0 * v / Math.max(1, j.samples)));
        out.println("  hottest methods on the task and insert threads:");
        j.topConnectorFrames.forEach((k, v) -> out.printf("    %-80s %5.1f%%%n", k, 100.0 * v / Math.max(1, j.samples)));
    }

    private String mbPerSecond(Path p) {
        return Double.isNaN(nativeBytesPerRow) || p.id.startsWith("V") ? "n/a"
                : String.format(Locale.ROOT, "%.1f", p.rowsPerSecond() * nativeBytesPerRow / 1e6);
    }

    private static String cpu(ProcessCpu.Sample s) {
        return s.known() ? String.format(Locale.ROOT, "%.2f", s.seconds()) : "n/a";
    }

    private static String shortName(String client) {
        return client.equals("worker") ? "(wk)" : "(jvm)";
    }

    void writeJson(java.nio.file.Path file) throws IOException {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("rows", options.rows());
        root.put("seed", options.seed());
        root.put("partitions", options.partitions());
        root.put("tasksMax", options.tasks());
        root.put("putBatch", options.batch());
        root.put("machine", machine);
        root.put("connectorClasses", ConnectorClasses.source());
        root.put("nativeBytesPerRow", nativeBytesPerRow);
        root.put("expectedCheckLine", String.valueOf(expected));
        List<Object> list = new ArrayList<>();
        for (Path p : paths) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("path", p.id);
            m.put("what", p.what);
            m.put("rows", p.rows);
            m.put("seconds", p.seconds);
            m.put("rowsPerSecond", p.rowsPerSecond());
            m.put("nativeMBPerSecond", p.id.startsWith("V") ? Double.NaN : p.rowsPerSecond() * nativeBytesPerRow / 1e6);
            m.put("clientProcess", p.client);
            m.put("clientCpuSeconds", p.clientCpu.seconds());
            m.put("clickhouseCpuSeconds", p.serverCpu.seconds());
            m.put("rowsPerCpuSecond", p.rows / p.cpuSeconds());
            m.putAll(p.details);
            if (p.check != null) {
                m.put("table", p.check.table());
                m.put("count", p.check.count());
                m.put("checkLine", p.check.line().toString());
                m.put("expectedCheckLine", p.check.expected().toString());
                m.put("checkOk", p.check.ok());
            }
            if (p.profile != null) {
                m.put("workerProfile", p.profile.json());
            }
            list.add(m);
        }
        root.put("paths", list);
        Map<String, Object> ratios = new LinkedHashMap<>();
        for (String[] r : RATIOS) {
            ratios.put(r[0] + "/" + r[1], ratio(r[0], r[1]));
        }
        for (String f : cdcFormats()) {
            ratios.put("V-" + f + "-debezium/V-" + f + "-none", ratio("V-" + f + "-debezium", "V-" + f + "-none"));
        }
        root.put("ratios", ratios);
        if (options.runs('V')) {
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("events", options.cdcRows());
            v.put("tables", options.cdcTables());
            v.put("formats", options.cdcFormats());
            root.put("cdc", v);
        }
        root.put("allChecksEqual", allChecksEqual());
        Json.write(file, root);
    }
}
