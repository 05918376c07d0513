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
        // One task: the shared test broker rebalances a new consumer group at once (group.initial.rebalance.delay.ms=0),
        // and blocks inserted before a rebalance may come again (at-least-once); one consumer never rebalances.
        Path json = json("bench-quick.json");
        SinkBenchReport report = run("quick_", json, "--rows", "20000", "--sample", "500", "--tasks", "1",
                "--exactly-once");

        assertEquals(List.of("C", "A", "D", "E", "B", "B'", "Ba", "Bk", "B'k", "Bx"),
                report.paths.stream().map(p -> p.id).toList());
        for (SinkBenchReport.Path p : report.paths) {
            assertTrue(p.check.ok(), p.id + " (" + p.what + "): table " + p.check.table() + " has count()="
                    + p.check.count() + " and " + p.check.line() + ", expected " + p.check.expected());
        }
        assertEquals(500, report.paths.get(3).rows, "E runs on the sample");
        assertTrue(report.allChecksEqual());
        assertTrue(Files.readString(json).contains("\"allChecksEqual\": true"));
        assertCharts(report, json, List.of("bench-quick-paths.svg", "bench-quick-guarantees.svg"),
                List.of("B'k", "Bx", "exactly_once (Bx)", "at_least_once (B)", "CPU µs per row"));
    }

    /**
     * Path V on 20,000 change events of 2 tables in JSON (Avro's reading is the AvroConverter tests'; the test run's
     * time is short): every CDC table read FINAL equals the generator's final state (rows, TOAST-filled bodies, no
     * placeholder written), the CDC tasks wrote one row per change event (none for a tombstone after its delete) and
     * every append table holds one row per record. One task, as above (an at-least-once replay after a rebalance
     * would add rows to the append tables).
     */
    @Test
    void changeEventsConvergeAndFlatRowsLandOnce() throws Exception {
        Path json = json("bench-quick-v.json");
        SinkBenchReport report = run("quickv_", json, "--paths", "V", "--cdc-rows", "20000", "--cdc-tables", "2",
                "--cdc-formats", "json", "--tasks", "1");

        assertEquals(List.of("V-json-debezium", "V-json-none"),
                report.paths.stream().map(p -> p.id).toList());
        for (SinkBenchReport.Path p : report.paths) {
            assertTrue(p.check.ok(), p.id + " (" + p.what + "): " + p.check.line() + ", expected " + p.check.expected());
            long tombstones = ((Number) p.details.get("tombstones")).longValue();
            assertTrue(tombstones > 0, p.id + ": the stream has tombstones");
            if (p.id.endsWith("-debezium")) {
                // Each tombstone follows its delete, which is written already: it writes no row.
                assertEquals(p.rows - tombstones, p.details.get("rowsInsertedByTasks"),
                        p.id + ": one row per change event");
                assertEquals(tombstones, p.details.get("recordsWithoutRow"), p.id + ": the tombstones wrote no row");
            } else {
                assertEquals(p.rows, p.details.get("rowsInsertedByTasks"), p.id + ": every record wrote one row");
            }
            assertTrue((Long) ((java.util.Map<?, ?>) p.details.get("mix")).get("toastPlaceholderUpdates") > 0,
                    "the stream has TOAST placeholders");
        }
        assertTrue(report.allChecksEqual());
        assertTrue(Files.readString(json).contains("\"V-json-debezium/V-json-none\""));
        assertCharts(report, json, List.of("bench-quick-v-paths.svg"), List.of("V-json-debezium", "V-json-none"));
    }

    /**
     * The fingerprint of path V's check tells rows apart: ClickHouse's canonical text of a row and its MD5 prefix
     * equal the generator's for the same row, and differ for a row with one column changed.
     */
    @Test
    void changeEventFingerprintMatchesClickHouseAndSeesOneChangedColumn() {
        Stack stack = Stack.shared();
        ChangeStream stream = new ChangeStream(1, 200, 7);
        stream.generate(c -> { });
        DebeziumEvents.Row row = stream.state.get(0).rows.values().iterator().next();
        String sql = "SELECT reinterpretAsUInt64(MD5(" + ChangeStream.ROW_LINE_SQL + ")) FROM (SELECT toInt64(" + row.id()
                + ") AS `id`, toInt32(" + row.accountId() + ") AS `account_id`, toInt32(" + row.quantity()
                + ") AS `quantity`, toInt64(" + row.views() + ") AS `views`, '" + row.status() + "' AS `status`,"
                + " toDecimal64('" + row.amount().toPlainString() + "', 2) AS `amount`, fromUnixTimestamp64Micro(toInt64("
                + row.createdMicros() + "), 'UTC') AS `created`, fromUnixTimestamp64Micro(toInt64(" + row.updatedMicros()
                + "), 'UTC') AS `updated`, " + row.active() + " AS `active`, " + (row.note() == null ? "NULL"
                        : "'" + row.note() + "'") + " AS `note`, '%s' AS `body`)";
        long same = Long.parseUnsignedLong(stack.clickhouse().http().scalar(String.format(sql, row.body())));
        assertEquals(ChangeStream.md5Prefix(ChangeStream.rowLine(row)), same);
        long other = Long.parseUnsignedLong(stack.clickhouse().http().scalar(String.format(sql, row.body() + "x")));
        assertTrue(other != same, "a changed body changes the fingerprint");
    }

    /**
     * Path M on 10,000 events over 1 and then 3 topics of 2 partitions, each into its own table: every table holds
     * exactly its topic's events (count and check line against the generator's for that topic), and ClickHouse's own
     * counters saw the inserts. This connector only (the official one is not built in the test run); one task, as
     * above.
     */
    @Test
    void manyTablesEachHoldExactlyTheirTopicsEvents() throws Exception {
        Path json = json("bench-quick-m.json");
        SinkBenchReport report = run("quickm_", json, "--paths", "M", "--tables", "1,3", "--many-rows", "10000",
                "--official-plugin", "none", "--tasks", "1");

        assertEquals(List.of(1, 3), report.many.stream().map(ManyTablesPath.Run::tables).toList());
        for (ManyTablesPath.Run r : report.many) {
            assertEquals(r.tables(), r.checks().size());
            long rows = 0;
            for (ManyTablesPath.TableCheck c : r.checks()) {
                assertEquals(c.expected(), c.line(), c.table());
                rows += c.count();
            }
            assertEquals(10_000, rows, r.tables() + " tables: every event once");
            assertTrue(r.checksOk());
            assertTrue(r.inserts() >= r.tables(), "ClickHouse counted at least one insert per table: " + r.inserts());
            assertEquals(10_000, r.insertedRows(), "ClickHouse counted every row inserted once");
        }
        assertTrue(report.allChecksEqual());
        assertTrue(Files.readString(json).contains("\"manyTables\""));
        assertCharts(report, json, List.of("bench-quick-m-many-tables.svg"),
                List.of("Many tables: 10,000 events over K tables", "worker CPU µs per row", ">ours<"));
    }

    /**
     * The run's charts are exactly the files {@code names} next to its JSON, each an SVG document naming the commit
     * and carrying {@code texts} (categories, series, titles; JFreeSVG writes text as text elements).
     */
    private static void assertCharts(SinkBenchReport report, Path json, List<String> names, List<String> texts)
            throws java.io.IOException {
        List<Path> written = BenchCharts.write(report, json);
        assertEquals(names, written.stream().map(p -> p.getFileName().toString()).toList());
        StringBuilder all = new StringBuilder();
        for (Path p : written) {
            String svg = Files.readString(p);
            assertTrue(svg.startsWith("<!DOCTYPE svg") && svg.contains("<svg "), p + " is an SVG document");
            assertTrue(svg.contains("commit " + report.machine.get("commit")), p + " names the commit");
            all.append(svg);
        }
        for (String t : texts) {
            assertTrue(all.toString().contains(t.replace("'", "&apos;")) || all.toString().contains(t),
                    "the charts show " + t);
        }
    }

    private static Path json(String name) throws java.io.IOException {
        Path work = Path.of(System.getProperty("chsink.work.dir", System.getProperty("java.io.tmpdir")), "bench-quick");
        Files.createDirectories(work);
        return work.resolve(name);
    }

    /** The stand on the shared stack with {@code args}, no warm-up, tables named from {@code prefix}; printed. */
    private static SinkBenchReport run(String prefix, Path json, String... args) throws Exception {
        Stack stack = Stack.shared();
        List<String> all = new java.util.ArrayList<>(List.of(args));
        all.addAll(List.of("--no-warmup", "--prefix", prefix + Long.toString(System.currentTimeMillis(), 36),
                "--json", json.toString()));
        SinkBench.Options options = SinkBench.Options.parse(all.toArray(new String[0]), json.getParent());
        SinkBenchReport report = new SinkBench(stack.clickhouse(), stack, options).run(null);
        report.print(System.out);
        report.writeJson(options.json());
        return report;
    }
}
