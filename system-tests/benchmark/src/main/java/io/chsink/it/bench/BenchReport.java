package io.chsink.it.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The figures of one {@link WireFormatBench} run: printed as a table, and written as the same figures in JSON. */
final class BenchReport {
    /** Min, median and max of some nanosecond measurements. */
    record Stats(long min, long median, long max, int n) {
        static Stats of(List<Long> values) {
            List<Long> sorted = new ArrayList<>(values);
            sorted.sort(null);
            int n = sorted.size();
            long median = n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
            return new Stats(sorted.get(0), median, sorted.get(n - 1), n);
        }

        Map<String, Object> json(double divisor) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("min", min / divisor);
            m.put("median", median / divisor);
            m.put("max", max / divisor);
            m.put("n", n);
            return m;
        }
    }

    /** The size of one body holding all rows; {@code lz4Bytes} as client-v2 would frame it. */
    record Size(String body, String format, long bytes, long lz4Bytes) {
    }

    /** Client-side cost of the connector's encoding, per pass over all rows. */
    record Encode(int blocks, Stats append, Stats write, Stats lz4) {
    }

    /** The timed inserts of one body. */
    record Ingest(String body, String format, long bodyBytes, boolean lz4, Stats server, Stats client, Stats user,
            Stats sys) {
    }

    private final long rows;
    private final int reps;
    private final long seed;
    final Map<String, Object> machine = new LinkedHashMap<>();
    final List<Size> sizes = new ArrayList<>();
    final List<Ingest> ingests = new ArrayList<>();
    final List<String> checks = new ArrayList<>();
    Encode encode;

    BenchReport(long rows, int reps, long seed) {
        this.rows = rows;
        this.reps = reps;
        this.seed = seed;
    }

    void print(PrintStream out) {
        out.println();
        out.printf("== Wire formats: %,d events (seed %d) ==%n", rows, seed);
        machine.forEach((k, v) -> out.printf("%-22s %s%n", k + ":", v));

        out.println();
        out.println("Bodies (the same rows in the same order: generation order, as the connector receives them)");
        out.printf("  %-28s %14s %10s %14s %10s%n", "body", "bytes", "bytes/row", "LZ4 bytes", "LZ4 ratio");
        for (Size s : sizes) {
            out.printf("  %-28s %,14d %10.1f %,14d %9.2fx%n", s.body, s.bytes, (double) s.bytes / rows, s.lz4Bytes,
                    (double) s.bytes / s.lz4Bytes);
        }

        out.println();
        out.printf("Connector encoding, client side: one thread, SinkRecords built beforehand, %d blocks (cut at %s),"
                + " %d passes%n", encode.blocks, ConnectorDefaults.blockCut(), encode.append.n);
        out.printf("  %-40s %24s %16s%n", "step", "ns/row min/median/max", "rows/s (median)");
        encodeLine(out, "TableMapping.append + block cut checks", encode.append);
        encodeLine(out, "NativeBlock.writeTo (into memory)", encode.write);
        encodeLine(out, "LZ4 framing (client-v2 stream)", encode.lz4);
        long total = encode.append.median + encode.write.median;
        out.printf("  %-40s %24s %,16.0f%n", "append + writeTo", perRow(total), rows * 1e9 / total);
        out.printf("  %-40s %24s %,16.0f%n", "append + writeTo + LZ4", perRow(total + encode.lz4.median),
                rows * 1e9 / (total + encode.lz4.median));

        out.println();
        out.printf("Server ingest: one HTTP INSERT of the whole body into a fresh empty events table (MergeTree), "
                + "async_insert=0;%n  bodies sent uncompressed except the LZ4 row (decompress=1); %d timed rounds after "
                + "1 warm-up round, bodies interleaved;%n  server = elapsed_ns of X-ClickHouse-Summary, client = HTTP "
                + "round trip, server CPU = user + system time of the server process;%n  count() and check line "
                + "verified after every insert%n", reps);
        out.printf("  %-26s %7s %24s %12s %8s %10s %18s%n", "body", "MB sent", "server ms min/med/max", "rows/s",
                "vs best", "client ms", "CPU ms user + sys");
        long best = ingests.stream().mapToLong(i -> i.server.median).min().orElse(1);
        for (Ingest i : ingests) {
            out.printf("  %-26s %7.1f %24s %,12.0f %7.2fx %10.0f %18s%n", i.body, i.bodyBytes / 1e6,
                    String.format(Locale.ROOT, "%.0f / %.0f / %.0f", i.server.min / 1e6, i.server.median / 1e6,
                            i.server.max / 1e6),
                    rows * 1e9 / i.server.median, (double) i.server.median / best, i.client.median / 1e6,
                    i.user.min < 0 ? "n/a" : String.format(Locale.ROOT, "%.0f + %.0f", i.user.median / 1e6,
                            i.sys.median / 1e6));
        }
        out.println("  (rows/s and vs best from the median server time; client ms and server CPU ms (user + system)"
                + " are medians)");

        out.println();
        out.println("Checks");
        checks.forEach(c -> out.println("  " + c));
    }

    private void encodeLine(PrintStream out, String step, Stats s) {
        out.printf("  %-40s %24s %,16.0f%n", step, String.format(Locale.ROOT, "%.1f / %.1f / %.1f",
                (double) s.min / rows, (double) s.median / rows, (double) s.max / rows), rows * 1e9 / s.median);
    }

    private String perRow(long nanos) {
        return String.format(Locale.ROOT, "%.1f", (double) nanos / rows);
    }

    void writeJson(Path file) throws IOException {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("rows", rows);
        root.put("seed", seed);
        root.put("timedRounds", reps);
        root.put("machine", machine);
        List<Object> bodies = new ArrayList<>();
        for (Size s : sizes) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("body", s.body);
            m.put("format", s.format);
            m.put("bytes", s.bytes);
            m.put("bytesPerRow", (double) s.bytes / rows);
            m.put("lz4Bytes", s.lz4Bytes);
            bodies.add(m);
        }
        root.put("bodies", bodies);
        Map<String, Object> enc = new LinkedHashMap<>();
        enc.put("blocks", encode.blocks);
        enc.put("appendNsPerRow", encode.append.json(rows));
        enc.put("writeToNsPerRow", encode.write.json(rows));
        enc.put("lz4NsPerRow", encode.lz4.json(rows));
        enc.put("appendPlusWriteToRowsPerSecondMedian", rows * 1e9 / (encode.append.median + encode.write.median));
        root.put("connectorEncoding", enc);
        List<Object> ingest = new ArrayList<>();
        for (Ingest i : ingests) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("body", i.body);
            m.put("format", i.format);
            m.put("bodyBytes", i.bodyBytes);
            m.put("lz4", i.lz4);
            m.put("serverMs", i.server.json(1e6));
            m.put("clientMs", i.client.json(1e6));
            m.put("serverCpuUserMs", i.user.json(1e6));
            m.put("serverCpuSystemMs", i.sys.json(1e6));
            m.put("rowsPerSecondMedian", rows * 1e9 / i.server.median);
            ingest.add(m);
        }
        root.put("ingest", ingest);
        root.put("checks", checks);
        Json.write(file, root);
    }
}
