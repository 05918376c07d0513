package io.chsink.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.stack.ProcessCpu;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The charts drawn from a report's figures (no stack: a report filled by hand): which files a run gets, and that
 * each shows its categories, series, the run's date and commit and the values as labels.
 */
class BenchChartsTest {
    /** Kept after the run (target/bench-charts-test), to look at. */
    private final Path dir = Path.of("target", "bench-charts-test");

    @org.junit.jupiter.api.BeforeEach
    void clean() throws java.io.IOException {
        Files.createDirectories(dir);
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.delete(p);
            }
        }
    }

    @Test
    void everyMeasuredFigureGetsItsChartAndNothingElse() throws Exception {
        SinkBenchReport r = report("--exactly-once");
        r.add(path("C", 1_000_000, 2.0, 1.5, 0.9));
        r.add(path("E", 500, 2.5, 1.6, 2.4));
        r.add(path("B", 1_000_000, 10.0, 12.0, 4.0));
        r.add(path("Bx", 1_000_000, 12.5, 14.0, 5.0));
        r.many.add(run(1, ManyTablesPath.Sink.OURS, 9.0, 11.0));
        r.many.add(run(50, ManyTablesPath.Sink.OURS, 12.0, 20.0));
        r.many.add(run(1, ManyTablesPath.Sink.OFFICIAL, 30.0, 33.0));
        r.many.add(run(50, ManyTablesPath.Sink.OFFICIAL, 31.0, 34.0));
        r.manyRows = 1_000_000;

        List<Path> written = BenchCharts.write(r, dir.resolve("bench.json"));

        assertEquals(List.of("bench-paths.svg", "bench-many-tables.svg", "bench-guarantees.svg"),
                written.stream().map(p -> p.getFileName().toString()).toList());
        String paths = Files.readString(written.get(0));
        for (String text : List.of("Rows/s and CPU per path", ">C<", ">E<", ">Bx<", "rows/s (log scale)",
                "commit abc1234", "2026-12-03", "--exactly-once", ">500,000<", ">200<", ">3,200.0<")) {
            assertTrue(paths.contains(text), "paths chart shows " + text);
        }
        String many = Files.readString(written.get(1));
        for (String text : List.of("Many tables: 1,000,000 events over K tables", ">ours<", ">official<", ">50<", "worker CPU µs per row",
                ">111,111<", ">83,333<", ">11.0<", ">34.0<")) {
            assertTrue(many.contains(text), "many-tables chart shows " + text);
        }
        assertEquals(1, count(many, ">ours</text>"), "one legend entry per sink, though both panels have its line");
        String guarantees = Files.readString(written.get(2));
        for (String text : List.of("at_least_once (B)", "exactly_once (Bx)", ">100,000<", ">80,000<", ">14.0<")) {
            assertTrue(guarantees.contains(text), "guarantees chart shows " + text);
        }
    }

    @Test
    void aRunWithoutManyTablesOrExactlyOnceWritesOnlyThePathsChart() throws Exception {
        SinkBenchReport r = report();
        r.add(path("B", 1000, 1.0, 1.0, 1.0));

        List<Path> written = BenchCharts.write(r, dir.resolve("run.json"));

        assertEquals(List.of(dir.resolve("run-paths.svg").toAbsolutePath()), written);
        assertFalse(Files.exists(dir.resolve("run-guarantees.svg")));
    }

    private static SinkBenchReport report(String... args) {
        SinkBench.Options o = SinkBench.Options.parse(args, Path.of("target"));
        SinkBenchReport r = new SinkBenchReport(o);
        r.machine.put("date", "2026-12-03");
        r.machine.put("commit", "abc1234");
        r.machine.put("cores", 2);
        r.machine.put("cpu", "a test CPU");
        r.machine.put("args", String.join(" ", args));
        return r;
    }

    private static SinkBenchReport.Path path(String id, long rows, double seconds, double clientCpu, double serverCpu) {
        return new SinkBenchReport.Path(id, "path " + id, rows, seconds, "worker", cpu(clientCpu), cpu(serverCpu));
    }

    private static ManyTablesPath.Run run(int tables, ManyTablesPath.Sink sink, double seconds, double workerCpu) {
        return new ManyTablesPath.Run(tables, sink, 1_000_000, (long) (seconds * 1e9), 1_000_000_000L, cpu(workerCpu),
                cpu(1), 10, 1_000_000, List.of(), true, null, 100, Map.of(), 0);
    }

    private static ProcessCpu.Sample cpu(double seconds) {
        return new ProcessCpu.Sample((long) (seconds * 1e9), 0);
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
