package io.chsink.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.stack.Stack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The benchmark stand in quick mode on the shared stack: every path (A in-process task, B end to end with both
 * JSON formats and Avro through the schema-registry stand-in, C pre-encoded blocks, D batched JDBC, E per-row JDBC on a sample) on a small dataset. Asserts only
 * correctness, that every table holds exactly the generated rows with the generator's check line; never speed.
 */
class SinkBenchQuickTest {
    @Test
    void everyPathWritesExactlyTheGeneratedRows() throws Exception {
        Stack stack = Stack.shared();
        Path work = Path.of(System.getProperty("chsink.work.dir", System.getProperty("java.io.tmpdir")), "bench-quick");
        Files.createDirectories(work);
        String prefix = "quick_" + Long.toString(System.currentTimeMillis(), 36);
        // One task: the shared test broker rebalances a new consumer group at once (group.initial.rebalance.delay.ms=0),
        // and blocks inserted before a rebalance may come again (at-least-once); one consumer never rebalances.
        SinkBench.Options options = SinkBench.Options.parse(new String[] {"--rows", "20000", "--sample", "500",
                "--tasks", "1", "--no-warmup", "--prefix", prefix, "--json", work.resolve("bench-quick.json").toString()},
                work);

        SinkBenchReport report = new SinkBench(stack.clickhouse(), stack, options).run(null);
        report.print(System.out);
        report.writeJson(options.json());

        assertEquals(List.of("C", "A", "D", "E", "B", "B'", "Ba", "Bk", "B'k"), report.paths.stream().map(p -> p.id).toList());
        for (SinkBenchReport.Path p : report.paths) {
            assertTrue(p.check.ok(), p.id + " (" + p.what + "): table " + p.check.table() + " has count()="
                    + p.check.count() + " and " + p.check.line() + ", expected " + p.check.expected());
        }
        assertEquals(500, report.paths.get(3).rows, "E runs on the sample");
        assertTrue(report.allChecksEqual());
        assertTrue(Files.readString(options.json()).contains("\"allChecksEqual\": true"));
    }
}
