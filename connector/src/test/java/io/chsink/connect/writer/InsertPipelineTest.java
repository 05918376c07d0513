package io.chsink.connect.writer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.block.TableBlock;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.testing.TestTables;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The insert pipeline on real blocks with an inserter of our own that fails or holds as told. */
class InsertPipelineTest {
    private static final TableId A = new TableId("db", "a");
    private static final TableId B = new TableId("db", "b");

    /** Per block: how many attempts fail retriably before one succeeds; -1: fail permanently. */
    private final Map<TableBlock, Integer> failFirst = new ConcurrentHashMap<>();
    private final Map<TableBlock, AtomicInteger> attempts = new ConcurrentHashMap<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private volatile boolean hold;
    private final AtomicInteger retries = new AtomicInteger();

    private final Inserter inserter = block -> {
        int n = attempts.computeIfAbsent(block, b -> new AtomicInteger()).incrementAndGet();
        if (hold) {
            release.await();
        }
        int fail = failFirst.getOrDefault(block, 0);
        if (fail < 0) {
            throw new IllegalStateException("Code: 999. permanent");
        }
        if (n <= fail) {
            throw new IOException("connection reset");
        }
        return block.rows();
    };
    private final InsertPipeline pipeline = new InsertPipeline(inserter, 4, 1, "test-insert",
            new RetryPolicy(10, Long.MAX_VALUE), new InsertListener() {
                @Override
                public void retried(TableBlock block, InsertFailure failure) {
                    retries.incrementAndGet();
                }
            });

    @AfterEach
    void close() {
        release.countDown();
        pipeline.close();
    }

    private static TableBlock block(TableId t, int rows) {
        TableBlock b = new TableBlock(t, TestTables.mapping(t), 4, 0);
        for (int i = 0; i < rows; i++) {
            b.append(TestTables.record("topic", 0, i));
        }
        return b;
    }

    private List<InsertPipeline.Completion> drainUntil(int n) throws InterruptedException {
        List<InsertPipeline.Completion> out = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (out.size() < n && System.nanoTime() < deadline) {
            pipeline.awaitAny(100);
            out.addAll(pipeline.drain());
        }
        return out;
    }

    @Test
    void aBlockRefusedForSomeRowsIsInsertedWithoutThem() throws Exception {
        java.util.Set<Integer> bad = java.util.Set.of(2, 5);
        List<String> parts = new java.util.concurrent.CopyOnWriteArrayList<>();
        Inserter refusing = new Inserter() {
            @Override
            public long insert(TableBlock block) throws Exception {
                return insert(block, 0, block.rows());
            }

            @Override
            public long insert(TableBlock block, int from, int to) throws Exception {
                parts.add(from + "-" + to);
                for (int i = from; i < to; i++) {
                    if (bad.contains(i)) {
                        throw new com.clickhouse.client.api.ServerException(469, "Code: 469. DB::Exception: "
                                + "Constraint `c` for table db.a (u) is violated at row " + (i - from + 1)
                                + ". Expression: (x < 2). (VIOLATED_CONSTRAINT)", 500, "q");
                    }
                }
                return to - from;
            }
        };
        try (InsertPipeline p = new InsertPipeline(refusing, 1, 1, "test-narrow", new RetryPolicy(10, Long.MAX_VALUE),
                InsertListener.NONE)) {
            TableBlock b = block(A, 8);
            p.submit(b);
            p.awaitAll(10_000);
            List<InsertPipeline.Completion> done = p.drain();
            assertEquals(1, done.size());
            InsertPipeline.Completion c = done.get(0);
            assertNull(c.failure);
            assertEquals(6, c.writtenRows);
            assertEquals(List.of(2, 5), c.refused.stream().map(x -> x.row).collect(java.util.stream.Collectors.toList()));
            assertEquals(5, b.rowOffset(5), "a refused row is found by its record's offset");
            assertEquals(List.of("0-8", "0-2", "2-3", "3-8", "3-5", "5-6", "6-8"), parts);
        }
    }

    @Test
    void aTableTakesAsManyInsertsAsAllowedOthersAreIndependent() throws Exception {
        hold = true;
        TableBlock a = block(A, 3);
        pipeline.submit(a);
        assertTrue(pipeline.busy(A));
        assertTrue(pipeline.inserting(A));
        assertFalse(pipeline.busy(B));
        assertThrows(IllegalStateException.class, () -> pipeline.submit(block(A, 1)));
        pipeline.submit(block(B, 2));
        assertEquals(2, pipeline.inFlightBlocks().size());
        assertEquals(a.heldBytes() + pipeline.inFlightBlocks().stream().filter(x -> x != a)
                .mapToLong(TableBlock::heldBytes).sum(), pipeline.inFlightBytes());
        assertFalse(pipeline.awaitAll(50), "held inserts do not complete");
        release.countDown();
        List<InsertPipeline.Completion> done = drainUntil(2);
        assertEquals(2, done.size());
        for (InsertPipeline.Completion c : done) {
            assertNull(c.failure);
            assertEquals(c.block.rows(), c.writtenRows);
        }
        assertTrue(pipeline.isEmpty());
        assertFalse(pipeline.busy(A));
    }

    @Test
    void eachTableTakesAsManyInsertsAsItsOwnLimitAllows() throws Exception {
        Map<TableId, Integer> limits = new ConcurrentHashMap<>(Map.of(A, 1));
        hold = true;
        try (InsertPipeline p = new InsertPipeline(inserter, 4, t -> limits.getOrDefault(t, 2), "test-limits",
                new RetryPolicy(10, Long.MAX_VALUE), InsertListener.NONE)) {
            p.submit(block(A, 1));
            assertTrue(p.busy(A), "a table limited to one insert is busy with one in flight");
            assertThrows(IllegalStateException.class, () -> p.submit(block(A, 1)));
            p.submit(block(B, 1));
            assertFalse(p.busy(B), "a table with the default of two takes a second insert");
            p.submit(block(B, 1));
            assertTrue(p.busy(B));
            assertThrows(IllegalStateException.class, () -> p.submit(block(B, 1)));
            limits.put(B, 1);
            assertTrue(p.busy(B), "a lowered limit holds the next insert back until those in flight are done");
            limits.put(A, 2);
            assertFalse(p.busy(A), "a raised limit takes effect at once");
            p.submit(block(A, 1));
            assertEquals(4, p.inFlightBlocks().size());
            release.countDown();
            assertTrue(p.awaitAll(10_000));
            assertEquals(4, p.drain().size());
            assertTrue(p.isEmpty());
            assertFalse(p.busy(A));
            assertFalse(p.busy(B));
        }
    }

    @Test
    void retriableFailuresAreRetriedInPlaceAndReportedWhileTheyLast() throws Exception {
        TableBlock a = block(A, 5);
        failFirst.put(a, 3);
        hold = false;
        pipeline.submit(a);
        List<InsertPipeline.Completion> done = drainUntil(1);
        assertEquals(1, done.size());
        assertNull(done.get(0).failure);
        assertEquals(4, attempts.get(a).get());
        assertEquals(3, retries.get());
        assertNull(pipeline.failing(), "nothing is failing once it succeeded");
    }

    @Test
    void aFailingInsertIsVisibleWithItsFirstFailureTime() throws Exception {
        TableBlock a = block(A, 1);
        failFirst.put(a, Integer.MAX_VALUE);
        long before = System.currentTimeMillis();
        pipeline.submit(a);
        InsertPipeline.Failing f = null;
        for (int i = 0; i < 100 && (f == null || f.attempts < 2); i++) {
            Thread.sleep(20);
            f = pipeline.failing();
        }
        assertNotNull(f);
        assertTrue(f.attempts >= 2);
        assertTrue(f.last.retriable());
        assertTrue(f.sinceMs >= before);
        assertTrue(pipeline.drain().isEmpty(), "a retriable failure never completes the block");
    }

    @Test
    void aPermanentFailureCompletesTheBlockAtOnce() throws Exception {
        TableBlock a = block(A, 2);
        failFirst.put(a, -1);
        pipeline.submit(a);
        List<InsertPipeline.Completion> done = drainUntil(1);
        assertEquals(1, done.size());
        assertNotNull(done.get(0).failure);
        assertFalse(done.get(0).failure.retriable());
        assertEquals(1, attempts.get(a).get());
        assertEquals(0, retries.get());
    }
}
