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
        /** False for a check that is printed and recorded but does not fail the run (path V's official connector). */
        boolean checkFailsRun = true;
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
    /** Path M's runs, in the order they ran. */
    final List<ManyTablesPath.Run> many = new ArrayList<>();
    long manyRows;
    List<String> manySinks = List.of();

    SinkBenchReport(SinkBench.Options options) {
        this.options = options;
    }

    void add(Path p) {
        paths.add(p);
    }

    /**
     * Every path's table holds exactly its rows, with the check line of the generator's events (a path whose check
     * does not fail the run, {@link Path#checkFailsRun}, aside).
     */
    boolean allChecksEqual() {
        return !(paths.isEmpty() && many.isEmpty())
                && paths.stream().allMatch(p -> p.check != null && (p.check.ok() || !p.checkFailsRun))
                && many.stream().allMatch(ManyTablesPath.Run::checksOk);
    }

    Path path(String id) {
        return paths.stream().filter(p -> p.id.equals(id)).findFirst().orElse(null);
    }

    /** rows/s of a over rows/s of b, NaN when either did not run. */
    double ratio(String a, String b) {
        Path pa = path(a);
        Path pb = path(b);
        return pa == null || pb == null ? Double.NaN : pa.rowsPerSecond() / pb.rowsPerSecond();
    }

    private static final String[][] RATIOS = {{"A", "C"}, {"A", "D"}, {"A", "E"}, {"B", "C"}, {"B'", "C"},
        {"Bk", "C"}, {"B'k", "C"}, {"Ba", "C"}, {"Ba", "B"}, {"Bx", "B"}, {"S-hash", "S-official-hash"},
        {"S-rand", "S-official-rand"}, {"S-rand", "S-hash"}, {"S-hash-x", "S-hash"}, {"S-rand-x", "S-rand"}};

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
                    p.rows / p.cpuSeconds(), p.check == null ? "-" : p.check.ok() ? "OK"
                            : p.checkFailsRun ? "MISMATCH" : "differs (not failing)");
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
                + " the same read with Kafka's JsonConverter; Bx = B with config/clickhouse-sink-exactly-once.json)");

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

        if (!many.isEmpty()) {
            printMany(out);
        }
        printCdc(out);
        printSharded(out);

        out.println();
        out.println("Check lines (groups/totalRows/totalCents/checksum of each table)");
        if (expected != null) {
            if (expected != null) {
            out.println("  expected (generator): " + expected);
        }
        }
        for (Path p : paths) {
            if (p.check != null) {
                out.printf("  %-4s %-24s count()=%,d  %s  %s%n", p.id, p.check.table(), p.check.count(), p.check.line(),
                        p.check.ok() ? (p.check.expected().equals(expected) || p.id.startsWith("V") ? "equal" : "equal to the generator's for its sample")
                                : (p.checkFailsRun ? "MISMATCH" : "differs (does not fail the run)") + ", expected "
                                        + p.check.expected());
            }
        }
        for (ManyTablesPath.Run r : many) {
            out.printf("  M %s, %d tables:%n", r.sink().label, r.tables());
            for (ManyTablesPath.TableCheck c : r.checks()) {
                out.printf("    %-40s count()=%,d  %s  %s%n", c.table(), c.count(), c.line(),
                        c.line().equals(c.expected()) && c.count() == c.expected().totalRows() ? "equal"
                                : "MISMATCH, expected " + c.expected());
            }
        }
        out.println(allChecksEqual() ? "RESULT: OK, every path wrote exactly the generated rows"
                : "RESULT: MISMATCH, see above");
    }

    /** Path M: the table of runs per K and sink, then the ratios the targets are stated in. */
    private void printMany(PrintStream out) {
        out.println();
        out.printf("== Many tables (M): %,d events of JSON with schemas over K topics x 2 partitions, topic i -> table i,"
                + " tasks.max=%d, sinks: %s ==%n", manyRows, options.tasks(), String.join(", ", manySinks));
        out.printf("%5s %-9s %10s %8s %13s %12s %10s %9s %12s %9s %10s  %s%n", "K", "sink", "rows/s", "s", "worker CPU s",
                "worker us/row", "CH CPU s", "inserts", "rows/insert", "1st row s", "heap MiB", "check");
        for (ManyTablesPath.Run r : many) {
            out.printf("%5d %-9s %,10.0f %8.2f %13.2f %12.2f %10.2f %,9d %,12.0f %9.1f %10.0f  %s%n", r.tables(), r.sink().label,
                    r.rowsPerSecond(), r.nanos() / 1e9, r.workerCpu().seconds(), r.workerMicrosPerRow(),
                    r.serverCpu().seconds(), r.inserts(), r.inserts() > 0 ? (double) r.insertedRows() / r.inserts() : Double.NaN,
                    r.firstRowNanos() / 1e9, r.liveHeapMiBAfter(), r.checksOk() ? "OK (" + r.checks().size() + " tables)" : "MISMATCH");
        }
        out.println("  rows/s from the connector's creation to the last row visible; inserts, rows/insert: ClickHouse's"
                + " InsertQuery and InsertedRows counters over that window;\n  heap MiB: the worker's live heap after"
                + " the run, its connector deleted (a class histogram's total, after a full collection).");
        for (Map.Entry<String, Double> e : manyRatios().entrySet()) {
            out.printf(Locale.ROOT, "  %-58s %.2f%n", e.getKey(), e.getValue());
        }
        out.println("  the worker's CPU by thread (/proc), and the queries other than inserts the connector sent:");
        for (ManyTablesPath.Run r : many) {
            StringBuilder sb = new StringBuilder();
            r.workerThreadNanos().forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ", ").append(k).append(' ')
                    .append(String.format(Locale.ROOT, "%.2f s", v / 1e9)));
            out.printf("    K=%d %s: %s; %,d other queries%n", r.tables(), r.sink().label, sb, r.otherQueries());
        }
        for (ManyTablesPath.Run r : many) {
            if (r.profile() != null) {
                out.printf("  M %s, %d tables:%n", r.sink().label, r.tables());
                printProfile(out, r.profile());
            }
        }
    }

    /** Mean rows/s and worker CPU per row of one sink at one K over the rounds; NaN when it did not run. */
    double[] mean(ManyTablesPath.Sink sink, int k) {
        double rate = 0;
        double cpu = 0;
        int n = 0;
        for (ManyTablesPath.Run r : many) {
            if (r.sink() == sink && r.tables() == k) {
                rate += r.rowsPerSecond();
                cpu += r.workerMicrosPerRow();
                n++;
            }
        }
        return n == 0 ? new double[] {Double.NaN, Double.NaN} : new double[] {rate / n, cpu / n};
    }

    /**
     * The ratios issue 19 states its targets in: this connector's rows/s at K tables over its rows/s at the smallest
     * K (targets 0.85 at 50, 0.7 at 200), its worker CPU per row likewise (at most 1.3 at 200), and its rows/s over
     * the official connector's at each K (at least 2.5). Means over the rounds.
     */
    Map<String, Double> manyRatios() {
        Map<String, Double> out = new LinkedHashMap<>();
        java.util.TreeSet<Integer> ks = new java.util.TreeSet<>();
        many.forEach(r -> ks.add(r.tables()));
        if (ks.isEmpty()) {
            return out;
        }
        int base = ks.first();
        double[] b = mean(ManyTablesPath.Sink.OURS, base);
        for (int k : ks) {
            double[] m = mean(ManyTablesPath.Sink.OURS, k);
            if (k != base) {
                out.put("ours rows/s at " + k + " tables / at " + base, m[0] / b[0]);
                out.put("ours worker CPU per row at " + k + " tables / at " + base, m[1] / b[1]);
            }
            double[] off = mean(ManyTablesPath.Sink.OFFICIAL, k);
            if (!Double.isNaN(off[0])) {
                out.put("ours rows/s / official rows/s at " + k + " tables", m[0] / off[0]);
                out.put("official worker CPU per row / ours at " + k + " tables", off[1] / m[1]);
            }
        }
        return out;
    }

    /**
     * Path V's runs that had both modes, as their CDC path's id ({@code V-json-debezium}, or with a suffix such as
     * {@code -toast10} when --cdc-toast gave several values); {@link #twin} names the others of the same run.
     */
    private List<String> cdcRuns() {
        List<String> ids = new ArrayList<>();
        for (Path p : paths) {
            if (p.id.startsWith("V-") && p.id.contains("-debezium") && path(twin(p.id, "none")) != null) {
                ids.add(p.id);
            }
        }
        return ids;
    }

    /** The id of path V's {@code mode} run ("none", "official") beside the CDC run {@code debeziumId}. */
    static String twin(String debeziumId, String mode) {
        return debeziumId.replace("-debezium", "-" + mode);
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
                if (paths.stream().anyMatch(x -> x.id.startsWith("V-") && x.id.contains("-official"))) {
                    out.println("  -official: the official ClickHouse connector 1.5.0, debeziumCDCEnabled=true, over the"
                            + " same CDC topics; its rows = records too, its clock stops at the change events' rows");
                }
                any = true;
            }
            if (p.id.contains("-official")) {
                out.printf("%s: the official connector over the same %s change events + %s tombstones: %s rows written"
                        + " (tombstones write none) in %s blocks (%,.0f rows each); %s live rows hold the TOAST"
                        + " placeholder, %s rows differ from the source (%s live rows were last updated with the"
                        + " placeholder); worker log: %s WARN, %s ERROR lines of its tasks%n", p.id,
                        p.details.get("changeEvents"), p.details.get("tombstones"), p.details.get("rowsWritten"),
                        p.details.get("blocksInserted"), (Double) p.details.get("rowsPerBlock"),
                        p.details.get("livePlaceholders"), p.details.get("liveRowsDiffering"),
                        p.details.get("liveRowsLastUpdatedWithPlaceholder"), p.details.get("workerLogWarnLines"),
                        p.details.get("workerLogErrorLines"));
                if (p.details.get("firstRowSeconds") instanceof Double first) {
                    out.printf("  first rows visible %.1f s after the connector's creation%n", first);
                }
                continue;
            }
            out.printf("%s: %s change events + %s tombstones; Kafka key %.0f + value %.0f + headers %.0f bytes/record;"
                    + " %s blocks (%,.0f rows each), %s rows inserted by the tasks, records without a row %s;"
                    + " current-row look-ups %s (%s ms), cache hits %s, polls held for reads %s%n", p.id, p.details.get("changeEvents"),
                    p.details.get("tombstones"), p.details.get("kafkaKeyBytesPerRecord"),
                    p.details.get("kafkaValueBytesPerRecord"), p.details.get("kafkaHeaderBytesPerRecord"),
                    p.details.get("blocksInserted"), p.details.get("rowsPerBlock"), p.details.get("rowsInsertedByTasks"),
                    p.details.get("recordsWithoutRow"), p.details.get("currentRowReads"),
                    p.details.get("currentRowReadMs"), p.details.get("currentRowCacheHits"),
                    p.details.get("pollsHeldForReads"));
            if (p.details.get("firstRowSeconds") instanceof Double first) {
                out.printf("  first rows visible %.1f s after the connector's creation%s%n", first,
                        p.details.get("rowsPerSecondAfterFirstRow") instanceof Double rate
                                ? String.format("; from then on %,.0f rows/s", rate) : "; all in one go");
            }
        }
        for (String id : cdcRuns()) {
            Path cdc = path(id);
            Path app = path(twin(id, "none"));
            String f = id.substring("V-".length()).replace("-debezium", "");
            out.printf("V, %s: CDC/append rows/s = %.2f (%,.0f / %,.0f); worker CPU s %.2f / %.2f, ClickHouse CPU s"
                    + " %.2f / %.2f; current-row look-ups counted: %s (%s ms), cache hits %s%n", f, ratio(cdc.id, app.id),
                    cdc.rowsPerSecond(), app.rowsPerSecond(), cdc.clientCpu.seconds(), app.clientCpu.seconds(),
                    cdc.serverCpu.seconds(), app.serverCpu.seconds(), cdc.details.get("currentRowReads"),
                    cdc.details.get("currentRowReadMs"), cdc.details.get("currentRowCacheHits"));
            Path off = path(twin(id, "official"));
            if (off != null) {
                double events = ((Number) cdc.details.get("changeEvents")).doubleValue();
                out.printf("V, %s: change events/s ours %,.0f, official %,.0f, ours/official = %.2f; worker CPU s %.2f /"
                        + " %.2f, ClickHouse CPU s %.2f / %.2f; live rows with the placeholder %s / %s, rows differing"
                        + " from the source %s / %s%n", f, events / cdc.seconds, events / off.seconds,
                        ratio(cdc.id, off.id), cdc.clientCpu.seconds(), off.clientCpu.seconds(), cdc.serverCpu.seconds(),
                        off.serverCpu.seconds(), cdc.details.get("livePlaceholders"), off.details.get("livePlaceholders"),
                        cdc.details.get("liveRowsDiffering"), off.details.get("liveRowsDiffering"));
            }
            Path floor = path(twin(id, "floor"));
            if (floor != null) {
                double events = ((Number) cdc.details.get("changeEvents")).doubleValue();
                out.printf("V, %s: change events/s floor (cdc.mode=none into op, ts_ms) %,.0f, ours %,.0f = %.2f of the"
                        + " floor; worker CPU s %.2f / %.2f%s%n", f, events / floor.seconds, events / cdc.seconds,
                        floor.seconds / cdc.seconds, floor.clientCpu.seconds(), cdc.clientCpu.seconds(),
                        off == null ? "" : String.format("; official/floor time = %.2f (the most ours/official can be)",
                                off.seconds / floor.seconds));
            }
        }
    }

    /** Path S: per run, where the rows went and what each server did. */
    private void printSharded(PrintStream out) {
        List<Path> runs = paths.stream().filter(p -> p.id.startsWith("S-")).toList();
        if (runs.isEmpty()) {
            return;
        }
        out.println();
        out.println("S: 2 shards (" + machine.get("shardedCluster") + "), a Distributed table on the initiator; clock"
                + " from connector creation until count() over the shards' local tables = the events");
        out.printf("  %-16s %10s %8s %12s %10s %10s %11s %11s %10s %9s %9s %8s  %s%n", "", "rows/s", "s", "worker CPU s",
                "init CPU s", "shard1 s", "on shard 1", "on shard 2", "shard2 s", "inserts", "shard1 in", "1st row",
                "distribution");
        for (Path p : runs) {
            out.printf("  %-16s %,10.0f %8.2f %12.2f %10.2f %10.2f %,11d %,11d %10.1f %,9d %,9d %8.1f  %s%n", p.id,
                    p.rowsPerSecond(), p.seconds, p.clientCpu.seconds(), (Double) p.details.get("initiatorCpuSeconds"),
                    (Double) p.details.get("shard1CpuSeconds"), (Long) p.details.get("rowsOnShard1"),
                    (Long) p.details.get("rowsOnShard2Initiator"), (Double) p.details.get("shard2CompleteSeconds"),
                    (Long) p.details.get("insertsReceivedByInitiator"),
                    (Long) p.details.get("insertsReceivedByShard1"),
                    p.details.get("firstRowSeconds") instanceof Double f ? f : Double.NaN, p.details.get("distribution"));
        }
        out.println("  shard2 s: when the initiator's own local table (shard 2) last grew; for inserts split over both"
                + " shards (all but S-rand*), which write shard 2's part before they return,\n  when the connector's last"
                + " insert had returned: the rest of s is shard 1's rows arriving from the initiator's queue;");
        out.println("  inserts: INSERT queries the initiator received (the connector's; exactly_once: with its state"
                + " writes); shard1 in: those shard 1 received (forwarded by the initiator);");
        out.println("  -x: this connector under delivery.guarantee=exactly_once (config/clickhouse-sink-exactly-once.json,"
                + " KeeperMap state on the initiator)");
        for (String[] r : RATIOS) {
            double v = ratio(r[0], r[1]);
            if (r[0].startsWith("S-") && !Double.isNaN(v)) {
                out.printf(Locale.ROOT, "  %s / %s rows/s = %.2f; worker CPU per row %s / %s = %.2f%n", r[0], r[1], v,
                        r[1], r[0], path(r[1]).clientCpu.seconds() / path(r[0]).clientCpu.seconds());
            }
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
                m.put("checkFailsRun", p.checkFailsRun);
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
        for (String id : cdcRuns()) {
            ratios.put(id + "/" + twin(id, "none"), ratio(id, twin(id, "none")));
            if (path(twin(id, "official")) != null) {
                ratios.put(id + "/" + twin(id, "official"), ratio(id, twin(id, "official")));
            }
        }
        root.put("ratios", ratios);
        if (!many.isEmpty()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("events", manyRows);
            m.put("sinks", manySinks);
            List<Object> runs = new ArrayList<>();
            for (ManyTablesPath.Run r : many) {
                Map<String, Object> x = new LinkedHashMap<>();
                x.put("tables", r.tables());
                x.put("sink", r.sink().label);
                x.put("rows", r.rows());
                x.put("seconds", r.nanos() / 1e9);
                x.put("rowsPerSecond", r.rowsPerSecond());
                x.put("firstRowSeconds", r.firstRowNanos() / 1e9);
                x.put("workerCpuSeconds", r.workerCpu().seconds());
                x.put("workerCpuMicrosPerRow", r.workerMicrosPerRow());
                x.put("clickhouseCpuSeconds", r.serverCpu().seconds());
                x.put("inserts", r.inserts());
                x.put("rowsPerInsert", r.inserts() > 0 ? (double) r.insertedRows() / r.inserts() : Double.NaN);
                x.put("checksOk", r.checksOk());
                x.put("workerLiveHeapMiBAfter", r.liveHeapMiBAfter());
                Map<String, Object> byThread = new LinkedHashMap<>();
                r.workerThreadNanos().forEach((k, v) -> byThread.put(k, v / 1e9));
                x.put("workerCpuSecondsByThread", byThread);
                x.put("otherQueries", r.otherQueries());
                List<Object> checks = new ArrayList<>();
                for (ManyTablesPath.TableCheck c : r.checks()) {
                    checks.add(Map.of("table", c.table(), "count", c.count(), "checkLine", c.line().toString(),
                            "expectedCheckLine", c.expected().toString()));
                }
                x.put("tableChecks", checks);
                if (r.profile() != null) {
                    x.put("workerProfile", r.profile().json());
                }
                runs.add(x);
            }
            m.put("runs", runs);
            m.put("ratios", manyRatios());
            root.put("manyTables", m);
        }
        if (options.runs('V')) {
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("events", options.cdcRows());
            v.put("tables", options.cdcTables());
            v.put("formats", options.cdcFormats());
            v.put("toastPercents", java.util.Arrays.stream(options.cdcToast()).boxed().toList());
            root.put("cdc", v);
        }
        root.put("allChecksEqual", allChecksEqual());
        Json.write(file, root);
    }
}
