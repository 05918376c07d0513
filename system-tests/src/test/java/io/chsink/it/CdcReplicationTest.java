package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.it.cdc.CdcWorkload;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL 15 → Debezium 3.6.1's PostgreSQL connector → Kafka → cdc.mode=debezium → ClickHouse
 * ReplacingMergeTree(_version, _is_deleted): three tables with a broad set of column types (a composite primary key,
 * REPLICA IDENTITY DEFAULT and FULL), rows before the connectors start (the snapshot), then a seeded random stream
 * of 20,000 changes while the Connect worker (running source and sink) is SIGKILLed and restarted. ClickHouse's
 * {@code SELECT ... FINAL} must equal PostgreSQL row for row after the snapshot and at the end, under both delivery
 * guarantees. Seeds: -Dchsink.cdc.seed.
 */
class CdcReplicationTest {
    private static final long SEED = Long.getLong("chsink.cdc.seed", 20261201L);
    private static final int CHANGES = Integer.getInteger("chsink.cdc.changes", 20_000);
    /**
     * At most this many changes a second: the stream lasts about 30 s, so the kill, which waits for the Debezium source's
     * first offset commit (offset.flush.interval.ms = 10 s on the stack's worker), comes while changes are made.
     */
    private static final int CHANGES_PER_SECOND = 700;

    @Test
    void atLeastOnceSnapshotThenStreamWhileTheWorkerIsKilled() throws Exception {
        run("cdc_alo", SEED, 1500, Map.of());
    }

    @Test
    void exactlyOnceSnapshotThenStreamWhileTheWorkerIsKilled() throws Exception {
        run("cdc_eo", SEED + 1, 500, Map.of("delivery.guarantee", "exactly_once"));
    }

    private void run(String name, long seed, int snapshotRows, Map<String, String> sinkOverrides) throws Exception {
        CdcHarness c = new CdcHarness(name, seed);
        try {
            c.createTables(sinkOverrides.containsKey("delivery.guarantee"));
            c.workload.seed(snapshotRows);
            c.startSource();
            c.startSink(c.sink, c.h.db, sinkOverrides);
            c.assertConverges(c.h.db, name + " after the snapshot of " + snapshotRows + " rows per table");

            CompletableFuture<CdcWorkload.Stats> stream = CompletableFuture.supplyAsync(
                    () -> c.workload.run(CHANGES, 10, CHANGES_PER_SECOND));
            // The kill comes once the source has committed offsets during the stream: a Debezium task killed before
            // its first offset commit has no offset at its restart and takes a new snapshot, which carries no delete
            // of the rows removed since the events it sent (a source-side property, not the sink's: README, CDC).
            long nextLook = 0;
            boolean sourceCommitted = false;
            while ((c.workload.changesDone() < CHANGES / 4 || !sourceCommitted) && !stream.isDone()) {
                if (System.nanoTime() >= nextLook) {
                    sourceCommitted = c.h.rest().committedOffsetCount(c.source) > 0;
                    nextLook = System.nanoTime() + 500_000_000L;
                }
                Thread.sleep(20);
            }
            long atKill = c.workload.changesDone();
            assertEquals(137, c.h.stack.connect().kill(), "SIGKILL of the worker");
            assertFalse(c.h.stack.connect().isRunning());
            Thread.sleep(1000);
            c.h.stack.connect().start();
            CdcWorkload.Stats stats = stream.get();
            System.out.println(name + ": " + stats + "; worker killed after " + atKill + " changes");
            assertTrue(atKill < CHANGES, "the kill must come while changes are made");
            assertEquals(CHANGES, stats.total());
            assertTrue(stats.deletes > 0 && stats.keyUpdates > 0 && stats.reinserts > 0 && stats.updates > 0, stats.toString());
            c.assertConverges(c.h.db, name + " after " + CHANGES + " changes and a worker kill");
            for (var t : c.workload.tables()) {
                long deleted = c.scalar("SELECT count() FROM `" + c.h.db + "`.`" + t.name + "` WHERE _is_deleted = 1");
                assertTrue(deleted > 0, t.name + " holds delete rows (_is_deleted = 1) that FINAL leaves out");
            }
        } finally {
            c.deleteConnectors();
        }
    }
}
