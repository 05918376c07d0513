package io.chsink.connect.writer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.chsink.connect.schema.TableId;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The per-table limits the task gives the insert pipeline, on engines as system.tables would describe them. */
class InsertLimitsTest {
    private static final TableId COLLAPSING = new TableId("db", "collapsing");
    private static final TableId REPLACING = new TableId("db", "replacing");
    private static final TableId VERSIONED = new TableId("db", "versioned");
    private static final TableId PLAIN = new TableId("db", "plain");
    private static final TableId BROKEN = new TableId("db", "broken");

    private final Map<TableId, InsertLimits.Engine> engines = new HashMap<>();
    private final AtomicInteger reads = new AtomicInteger();
    private final InsertLimits.EngineSource source = t -> {
        reads.incrementAndGet();
        if (t.equals(BROKEN)) {
            throw new IllegalStateException("Code: 497. not enough privileges");
        }
        return engines.get(t);
    };

    InsertLimitsTest() {
        engines.put(COLLAPSING, engine("CollapsingMergeTree", "CollapsingMergeTree(sign) ORDER BY id"));
        engines.put(REPLACING, engine("ReplicatedReplacingMergeTree",
                "ReplicatedReplacingMergeTree('/p', '{replica}') ORDER BY id"));
        engines.put(VERSIONED, engine("ReplacingMergeTree", "ReplacingMergeTree(v) ORDER BY id"));
        engines.put(PLAIN, engine("MergeTree", "MergeTree ORDER BY id"));
    }

    private static InsertLimits.Engine engine(String engine, String full) {
        return new InsertLimits.Engine(engine, full, Map.of());
    }

    @Test
    void orderSensitiveTablesGetOneInsertInFlightOthersKeepTheDeliverysNumber() {
        InsertLimits limits = new InsertLimits(source, 2);
        for (TableId t : new TableId[] {COLLAPSING, REPLACING, VERSIONED, PLAIN}) {
            assertEquals(2, limits.applyAsInt(t), "before its check a table has the delivery's number");
            limits.checkTable(t);
        }
        assertEquals(1, limits.applyAsInt(COLLAPSING));
        assertEquals(1, limits.applyAsInt(REPLACING));
        assertEquals(2, limits.applyAsInt(VERSIONED));
        assertEquals(2, limits.applyAsInt(PLAIN));
    }

    @Test
    void aTableReCreatedWithAnotherEngineIsDecidedAgainAtItsNextLoad() {
        InsertLimits limits = new InsertLimits(source, 2);
        limits.checkTable(REPLACING);
        assertEquals(1, limits.applyAsInt(REPLACING));
        engines.put(REPLACING, engine("ReplacingMergeTree", "ReplacingMergeTree(v, d) ORDER BY id"));
        limits.checkTable(REPLACING);
        assertEquals(2, limits.applyAsInt(REPLACING));
        engines.put(REPLACING, engine("CollapsingMergeTree", "CollapsingMergeTree(s) ORDER BY id"));
        limits.checkTable(REPLACING);
        assertEquals(1, limits.applyAsInt(REPLACING));
    }

    @Test
    void anEngineThatCannotBeReadGetsOneInsertInFlight() {
        InsertLimits limits = new InsertLimits(source, 2);
        limits.checkTable(BROKEN);
        assertEquals(1, limits.applyAsInt(BROKEN));
    }

    @Test
    void withOneInsertPerTableAlreadyNothingIsRead() {
        InsertLimits limits = new InsertLimits(source, 1);
        limits.checkTable(COLLAPSING);
        limits.checkTable(PLAIN);
        assertEquals(0, reads.get(), "exactly_once keeps every table in order: no engine query");
        assertEquals(1, limits.applyAsInt(COLLAPSING));
        assertEquals(1, limits.applyAsInt(PLAIN));
    }
}
