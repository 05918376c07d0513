package io.chsink.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.config.TableRouter;
import io.chsink.connect.mapping.TableMapping;
import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.TableColumn;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import io.chsink.connect.schema.TableSchemaSource;
import io.chsink.connect.testing.TestTables;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.junit.jupiter.api.Test;

/** A task's table mappings over a schema source of our own (what system.columns would answer). */
class TableMappingsTest {
    private static final TableId EVENTS = new TableId("default", "events");

    private final Map<TableId, TableSchema> tables = new HashMap<>();
    private RuntimeException unreadable;
    private int reads;
    private final List<TableId> checked = new ArrayList<>();
    private int batchReads;
    private final TableSchemaSource source = new TableSchemaSource() {
        @Override
        public TableSchema load(TableId t) {
            reads++;
            if (unreadable != null) {
                throw unreadable;
            }
            return tables.get(t);
        }

        @Override
        public Map<TableId, TableSchema> loadAll(java.util.Collection<TableId> ts) {
            batchReads++;
            if (unreadable != null) {
                throw unreadable;
            }
            Map<TableId, TableSchema> out = new HashMap<>();
            ts.forEach(t -> out.put(t, tables.get(t)));
            return out;
        }
    };

    private TableMappings mappings(boolean reportMissing) {
        Map<String, String> p = new HashMap<>();
        p.put("clickhouse.url", "http://localhost:8123");
        SinkConfig config = new SinkConfig(p);
        return new TableMappings(source, new TableRouter(config), config, reportMissing, checked::add, 30_000, false);
    }

    @Test
    void partitionsAssignedBeforeABatchHaveTheirTablesReadTogetherFirst() {
        List<org.apache.kafka.common.TopicPartition> partitions = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            TableId t = new TableId("default", "t" + i);
            tables.put(t, TestTables.schema(t));
            partitions.add(new org.apache.kafka.common.TopicPartition("t" + i, 0));
            partitions.add(new org.apache.kafka.common.TopicPartition("t" + i, 1));
        }
        TableMappings m = mappings(false);
        m.assigned(partitions);
        assertEquals(0, batchReads, "nothing read at assignment");
        m.resolve(List.of(TestTables.record("t4", 1, 0)), 0);
        assertEquals(1, batchReads, "the 10 tables of the 20 partitions in one read");
        assertEquals(0, reads);
        assertEquals(10, checked.size());
        m.resolve(List.of(TestTables.record("t9", 0, 0)), 1);
        assertEquals(1, batchReads, "read once");
    }

    @Test
    void assignedTablesAreReadInOneQueryBeforeTheirRecordsAndMissingOnesAreLeftToResolve() {
        List<TableId> assigned = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            TableId t = new TableId("default", "t" + i);
            if (i != 3) {
                tables.put(t, TestTables.schema(t)); // t3 does not exist
            }
            assigned.add(t);
        }
        Map<String, String> p = new HashMap<>();
        p.put("clickhouse.url", "http://localhost:8123");
        SinkConfig config = new SinkConfig(p);
        List<java.util.Collection<TableId>> told = new ArrayList<>();
        TableMappings m = new TableMappings(source, new TableRouter(config), config, false, checked::add,
                ts -> told.add(new ArrayList<>(ts)), 30_000, false, new io.chsink.connect.evolve.FixedTables());
        m.prefetch(assigned, 0);
        assertEquals(1, batchReads);
        assertEquals(19, checked.size(), "the 19 existing tables were installed and checked");
        assertEquals(19, told.get(0).size());
        m.resolve(List.of(TestTables.record("t5", 0, 0)), 1);
        assertEquals(0, reads, "t5 was known already");
        assertThrows(ConnectException.class, () -> m.resolve(List.of(TestTables.record("t3", 0, 0)), 2),
                "the missing table fails as before, on its own read");
        assertEquals(1, reads);
    }

    @Test
    void aBatchOfManyTablesReadsThemInOneQueryAndChecksEach() {
        List<org.apache.kafka.connect.sink.SinkRecord> batch = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            TableId t = new TableId("default", "t" + i);
            tables.put(t, TestTables.schema(t));
            batch.add(TestTables.record("t" + i, 0, 0));
        }
        Map<String, String> p = new HashMap<>();
        p.put("clickhouse.url", "http://localhost:8123");
        p.put("table.name.format", "${topic}");
        SinkConfig config = new SinkConfig(p);
        List<java.util.Collection<TableId>> prefetched = new ArrayList<>();
        TableMappings m = new TableMappings(source, new TableRouter(config), config, false, checked::add,
                ts -> prefetched.add(new ArrayList<>(ts)), 30_000, false, new io.chsink.connect.evolve.FixedTables());
        m.resolve(batch, 0);
        assertEquals(1, batchReads, "one read for the batch's 50 tables");
        assertEquals(0, reads, "no read per table");
        assertEquals(50, checked.size(), "each table's first-load check ran");
        assertEquals(1, prefetched.size());
        assertEquals(50, prefetched.get(0).size(), "the checks were told of all 50 tables first");

        // Re-reads: the first table due takes with it every table due within the next third of the interval.
        for (int i = 0; i < 50; i++) {
            assertNotNull(m.forNewBlock(new TableId("default", "t" + i), "t" + i, 10_000));
        }
        assertEquals(1, batchReads, "within the recheck interval: no read");
        assertNotNull(m.forNewBlock(new TableId("default", "t7"), "t7", 30_000));
        assertEquals(2, batchReads, "one read for the 50 tables due");
        for (int i = 0; i < 50; i++) {
            assertNotNull(m.forNewBlock(new TableId("default", "t" + i), "t" + i, 30_001));
        }
        assertEquals(2, batchReads, "the others were re-read with it");
        assertEquals(0, reads);
    }

    @Test
    void aFailedBatchReadLeavesEachTableToItsOwnRead() {
        TableId other = new TableId("default", "other");
        tables.put(EVENTS, TestTables.schema(EVENTS));
        tables.put(other, TestTables.schema(other));
        Map<String, String> p = new HashMap<>();
        p.put("clickhouse.url", "http://localhost:8123");
        SinkConfig config = new SinkConfig(p);
        TableSchemaSource failingBatch = new TableSchemaSource() {
            @Override
            public TableSchema load(TableId t) {
                return source.load(t);
            }

            @Override
            public Map<TableId, TableSchema> loadAll(java.util.Collection<TableId> ts) {
                throw new IllegalStateException("Code: 62. Syntax error");
            }
        };
        TableMappings m = new TableMappings(failingBatch, new TableRouter(config), config, false, checked::add, 30_000,
                false);
        m.resolve(List.of(TestTables.record("events", 0, 0), TestTables.record("other", 0, 0)), 0);
        assertEquals(2, reads);
        assertEquals(List.of(EVENTS, other), checked);
    }

    @Test
    void aTableIsReadAndCheckedOnceThenReReadAtMostEveryRecheckInterval() {
        tables.put(EVENTS, TestTables.schema(EVENTS));
        TableMappings m = mappings(false);
        m.resolve(List.of(TestTables.record("events", 0, 0), TestTables.record("events", 1, 0)), 0);
        assertEquals(1, reads);
        assertEquals(List.of(EVENTS), checked);
        TableMapping first = m.forNewBlock(EVENTS, "events", 1000);
        assertEquals(1, reads, "within the recheck interval: no read");
        assertSame(first, m.forNewBlock(EVENTS, "events", 31_000), "re-read, same columns: same mapping");
        assertEquals(2, reads);
        tables.put(EVENTS, new TableSchema(EVENTS, List.of(
                new TableColumn("x", ClickHouseType.parse("Int64"), TableColumn.DefaultKind.NONE),
                new TableColumn("y", ClickHouseType.parse("String"), TableColumn.DefaultKind.NONE))));
        assertTrue(m.changedSince(EVENTS, first));
        TableMapping second = m.forNewBlock(EVENTS, "events", 62_000);
        assertNotSame(first, second);
        assertEquals(2, second.schema().columns().size());
        assertEquals(1, checked.size(), "the delivery's check runs at the first read only");
        assertFalse(m.changedSince(EVENTS, second));
    }

    @Test
    void aMissingTableFailsTheTaskUnlessBadRecordsAreReported() {
        ConnectException e = assertThrows(ConnectException.class,
                () -> mappings(false).resolve(List.of(TestTables.record("events", 0, 0)), 0));
        assertTrue(e.getMessage().contains("`default`.`events`"), e.getMessage());
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
        TableMappings tolerant = mappings(true);
        tolerant.resolve(List.of(TestTables.record("events", 0, 0)), 0);
        assertNull(tolerant.forNewBlock(EVENTS, "events", 10), "missing: records go to the reporter");
        int before = reads;
        assertNull(tolerant.forNewBlock(EVENTS, "events", 20));
        assertEquals(before, reads, "a missing table is not re-read at every record");
        tables.put(EVENTS, TestTables.schema(EVENTS));
        assertEquals(1, tolerant.forNewBlock(EVENTS, "events", 40_000).schema().columns().size(),
                "created meanwhile: found at the next recheck");
    }

    @Test
    void withAutoCreateAMissingTableIsCreatedFromItsFirstRowAndChecked() {
        Map<String, String> p = new HashMap<>();
        p.put("clickhouse.url", "http://localhost:8123");
        SinkConfig config = new SinkConfig(p);
        List<String> created = new ArrayList<>();
        io.chsink.connect.evolve.TableEvolution creating = new io.chsink.connect.evolve.TableEvolution() {
            @Override
            public boolean createsTables() {
                return true;
            }

            @Override
            public TableSchema create(TableId table, org.apache.kafka.connect.sink.SinkRecord row) {
                created.add(table + " from offset " + row.kafkaOffset());
                tables.put(table, TestTables.schema(table));
                return tables.get(table);
            }

            @Override
            public boolean mustEvolve(TableMapping mapping, org.apache.kafka.connect.sink.SinkRecord row) {
                return false;
            }

            @Override
            public TableSchema evolve(TableId t, TableMapping seen, org.apache.kafka.connect.sink.SinkRecord row) {
                throw new AssertionError();
            }

            @Override
            public String name() {
                return "create";
            }
        };
        TableMappings m = new TableMappings(source, new TableRouter(config), config, false, checked::add, t -> { },
                30_000, false, creating);
        m.resolve(List.of(TestTables.record("events", 0, 3)), 0); // missing: no failure, nothing created yet
        assertTrue(created.isEmpty());
        assertNull(m.forNewBlock(EVENTS, "events", 5), "no block before the table exists");
        assertTrue(m.create(TestTables.record("events", 0, 3), EVENTS, 10));
        assertEquals(List.of("default.events from offset 3"), created);
        assertEquals(List.of(EVENTS), checked, "the delivery's check runs on the created table");
        assertEquals(1, m.forNewBlock(EVENTS, "events", 20).schema().columns().size());
        assertFalse(mappings(false).create(TestTables.record("events", 0, 3), EVENTS, 10), "auto.create off");
    }

    @Test
    void anUnreadableTableIsRetriableUntilItsColumnsAreKnown() {
        unreadable = new IllegalStateException("x", new IOException("connection refused"));
        TableMappings m = mappings(false);
        assertThrows(RetriableException.class, () -> m.resolve(List.of(TestTables.record("events", 0, 0)), 0));
        unreadable = null;
        tables.put(EVENTS, TestTables.schema(EVENTS));
        m.resolve(List.of(TestTables.record("events", 0, 0)), 0);
        TableMapping known = m.forNewBlock(EVENTS, "events", 0);
        unreadable = new IllegalStateException("x", new IOException("connection refused"));
        assertSame(known, m.forNewBlock(EVENTS, "events", 40_000), "known columns are kept during an outage");
    }
}
