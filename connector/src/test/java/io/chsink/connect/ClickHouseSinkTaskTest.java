package io.chsink.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.clickhouse.client.api.ServerException;
import io.chsink.connect.block.BlockBuffer;
import io.chsink.connect.block.BlockManifest;
import io.chsink.connect.block.TableBlock;
import io.chsink.connect.cdc.AppendedRecords;
import io.chsink.connect.cdc.RowSource;
import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.delivery.BlockOpener;
import io.chsink.connect.delivery.Deliveries;
import io.chsink.connect.delivery.Delivery;
import io.chsink.connect.evolve.FixedTables;
import io.chsink.connect.evolve.TableEvolution;
import io.chsink.connect.exactlyonce.HandledOffsets;
import io.chsink.connect.exactlyonce.RecordedBlocks;
import io.chsink.connect.exactlyonce.RecordedPartition;
import io.chsink.connect.offset.Consumption;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import io.chsink.connect.schema.TableSchemaSource;
import io.chsink.connect.testing.MemoryStateTable;
import io.chsink.connect.testing.TestTables;
import io.chsink.connect.writer.BlockInserter;
import io.chsink.connect.writer.InsertLimits;
import io.chsink.connect.writer.Inserter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.function.ToIntFunction;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.runtime.WorkerSinkTaskStandIn;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The real task driven as Connect's WorkerSinkTask drives it (initialize, start, open, put, preCommit, close, stop),
 * with ClickHouse's side in memory ({@link ClickHouseParts}: tables of one Int64 column, an inserter that holds,
 * fails or inserts as told, exactly_once's state table as a list) and a {@link SinkTaskContext} of our own that
 * keeps what the task asked of Connect. What is asserted is what Connect would commit: the offsets preCommit
 * returns for the consumer's partitions, against the rows the inserter got. The offset scenarios run for both
 * delivery guarantees. Inserts run on the task's insert threads: a test holds them at the inserter's gate, and waits for
 * offsets to settle by polling as Connect does (an empty put, then preCommit) for a bounded time.
 */
class ClickHouseSinkTaskTest {
    private static final String DB = "db";
    private static final long WAIT_MS = 10_000;
    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);

    private final Server server = new Server();
    private final FakeContext context = new FakeContext();
    private ClickHouseSinkTask task;

    @AfterEach
    void stop() {
        server.open(); // an insert held at the gate ends, so that stop() does not wait for it
        if (task != null) {
            task.stop();
        }
    }

    // ---- the scenarios ----

    /**
     * A partition's offset never passes a row in an open or in-flight block: first one block in flight, held at the
     * gate, then that block verified and the next ones open or in flight; once every insert is through, preCommit
     * gives back everything Connect handed over, and every offset was inserted exactly once.
     */
    @ParameterizedTest
    @ValueSource(strings = {"at_least_once", "exactly_once"})
    void offsetsAdvanceOnlyPastVerifiedBlocks(String guarantee) throws Exception {
        start(guarantee, Map.of(), "a");
        open(A0, A1);
        server.shut();
        task.put(records("a", 0, 0, 4)); // flush.max.rows=5: full, sealed and sent at once
        server.awaitAttempts(1);
        assertEquals(Map.of(A0, 0L, A1, 0L), preCommit(Map.of(A0, 5L, A1, 0L)), "a block in flight holds its rows");
        server.open();
        assertEquals(Map.of(A0, 5L, A1, 0L), settle(Map.of(A0, 5L, A1, 0L)));
        assertTrue(context.commitRequests > 0, "a verified block asks Connect for a commit");

        server.shut();
        List<SinkRecord> batch = records("a", 0, 5, 6);
        batch.addAll(records("a", 1, 0, 2));
        task.put(batch);
        assertEquals(Map.of(A0, 5L, A1, 0L), preCommit(Map.of(A0, 7L, A1, 3L)),
                "open or in-flight blocks hold every partition with rows in them");
        server.open();
        assertEquals(Map.of(A0, 7L, A1, 3L), settle(Map.of(A0, 7L, A1, 3L)));
        assertEquals(Map.of(A0, "0-4,5-6", A1, "0-2"), server.insertedRanges());
        assertEquals(10, server.insertedRows());
        if (guarantee.equals("exactly_once")) {
            assertEquals(Map.of(A0, "0-4,5-6", A1, "0-2"), server.store.recordedRanges(),
                    "each block recorded before its insert, under its partition");
        }
    }

    /**
     * Records as Kafka's RegexRouter leaves them: another topic, the consumer's partition and offset kept as KIP-793's
     * originals. Connect opens, commits and asks preCommit about the consumer's partitions ({@code events-N}): while
     * their rows are in open or in-flight blocks they are held back, and they advance once the insert is verified.
     * The table is the renamed topic's ({@code topic.to.table.map}); no table is named after the consumer's topic,
     * so routing by it would fail the task.
     */
    @ParameterizedTest
    @ValueSource(strings = {"at_least_once", "exactly_once"})
    void renamedTopicsHoldAndReleaseTheConsumersPartitions(String guarantee) throws Exception {
        start(guarantee, Map.of("topic.to.table.map", "renamed-events:target"), "target");
        TopicPartition e0 = new TopicPartition("events", 0);
        TopicPartition e1 = new TopicPartition("events", 1);
        open(e0, e1);
        server.shut();
        List<SinkRecord> batch = renamed(0, 0, 4); // full: in flight
        batch.addAll(renamed(1, 0, 1)); // open
        task.put(batch);
        server.awaitAttempts(1);
        assertEquals(Map.of(e0, 0L, e1, 0L), preCommit(Map.of(e0, 5L, e1, 2L)),
                "the consumer's partitions are held while their rows are in open or in-flight blocks");
        server.open();
        assertEquals(Map.of(e0, 5L, e1, 2L), settle(Map.of(e0, 5L, e1, 2L)));
        assertEquals(Set.of(new TableId(DB, "target")), server.insertedTables(), "routed by the renamed topic");
        assertEquals(Map.of(e0, "0-4", e1, "0-1"), server.insertedRanges(), "ranges of the consumer's partitions");
        if (guarantee.equals("exactly_once")) {
            assertEquals(Map.of(e0, "0-4", e1, "0-1"), server.store.recordedRanges());
        }
    }

    /**
     * Cooperative rebalancing revokes one partition and leaves the other: Connect's closing preCommit (only the
     * revoked partition) commits none of its rows still in open blocks; close() drops the open blocks, seeks the kept
     * partition back to its first dropped record and not the revoked one; the kept partition's offset stays there
     * until its records come again, then advances past them once they are inserted. The revoked partition's dropped
     * rows are never inserted.
     */
    @ParameterizedTest
    @ValueSource(strings = {"at_least_once", "exactly_once"})
    void revokedPartitionsDropTheirBlocksAndKeptOnesAreSoughtBack(String guarantee) throws Exception {
        // Blocks are sealed only by an idle poll (settle: a tenth of flush.max.rows open), never by size or time
        // here: those of the second batch stay open.
        start(guarantee, Map.of("flush.max.rows", "20", "flush.interval.ms", "60000"), "a");
        open(A0, A1);
        List<SinkRecord> batch = records("a", 0, 0, 2);
        batch.addAll(records("a", 1, 0, 2));
        task.put(batch);
        assertEquals(Map.of(A0, 3L, A1, 3L), settle(Map.of(A0, 3L, A1, 3L)));

        batch = records("a", 0, 3, 5);
        batch.addAll(records("a", 1, 3, 5));
        task.put(batch);
        Map<TopicPartition, Long> closing = closingPreCommit(Map.of(A1, 6L));
        assertEquals(Map.of(A1, 3L), closing, "the revoked partition's rows in open blocks are not committed");
        task.close(List.of(A1));
        context.assignment.remove(A1);
        if (guarantee.equals("exactly_once")) {
            // Blocks of one partition: the kept partition's open block stays, nothing is sought back.
            assertEquals(List.of(), context.seeks, "a kept partition's own block is not dropped");
            assertEquals(Map.of(A0, 3L), preCommit(Map.of(A0, 6L)), "its open block holds the offset");
            task.put(records("a", 0, 6, 7));
        } else {
            // Blocks of every partition of a table: dropped, and the kept partition re-read.
            assertEquals(List.of(Map.of(A0, 3L)), context.seeks, "only the kept partition, to its first dropped record");
            assertEquals(Map.of(A0, 3L), preCommit(Map.of(A0, 6L)), "nothing past the rewind until its records are back");
            task.put(records("a", 0, 3, 7)); // Connect redelivers from the sought offset
        }
        assertEquals(Map.of(A0, 8L), settle(Map.of(A0, 8L)));
        assertEquals(Map.of(A0, "0-2,3-7", A1, "0-2"), server.insertedRanges());
        assertEquals(11, server.insertedRows());
    }

    /**
     * A permanent insert failure (ClickHouse error 60, UNKNOWN_TABLE) fails the task: preCommit commits nothing more
     * (an empty map: not even the partitions' earlier verified offsets are repeated) and the next put throws.
     */
    @ParameterizedTest
    @ValueSource(strings = {"at_least_once", "exactly_once"})
    void aPermanentInsertFailureFailsTheTaskAndCommitsNothingPastIt(String guarantee) throws Exception {
        start(guarantee, Map.of(), "a");
        open(A0);
        task.put(records("a", 0, 0, 4));
        assertEquals(Map.of(A0, 5L), settle(Map.of(A0, 5L)));

        server.failNext(new ServerException(60, "Code: 60. DB::Exception: Table db.a does not exist", 404, "q"));
        task.put(records("a", 0, 5, 9));
        assertEquals(Map.of(), awaitPreCommit(Map.of(A0, 10L), Map.of()), "nothing committed past the failed block");
        ConnectException e = assertThrows(ConnectException.class, () -> task.put(records("a", 0, 10, 10)));
        assertTrue(e.getMessage().contains("Insert of 5 rows into db.a failed"), e.getMessage());
        assertEquals(Map.of(A0, "0-4"), server.insertedRanges());
    }

    /**
     * A retriable failure (the connection reset) is retried in place: while the retry is held at the gate the
     * partition's offset stays before the block; once it goes through, the offset passes it. The block was inserted
     * once, and under exactly_once recorded once (before its first attempt), so its retry carries the same token.
     */
    @ParameterizedTest
    @ValueSource(strings = {"at_least_once", "exactly_once"})
    void aRetriableInsertFailureIsRetriedAndHoldsOffsetsUntilItSucceeds(String guarantee) throws Exception {
        start(guarantee, Map.of(), "a");
        open(A0);
        server.shut();
        server.failNext(new IOException("Connection reset"));
        task.put(records("a", 0, 0, 4));
        server.awaitAttempts(2); // the first failed; the retry waits at the gate
        assertEquals(Map.of(A0, 0L), preCommit(Map.of(A0, 5L)));
        server.open();
        assertEquals(Map.of(A0, 5L), settle(Map.of(A0, 5L)));
        assertEquals(Map.of(A0, "0-4"), server.insertedRanges());
        assertEquals(2, server.attempts.get());
        if (guarantee.equals("exactly_once")) {
            assertEquals(1, server.store.recorded.size());
        }
    }

    /**
     * Records a transform filtered out never reach put(), but Connect's offsets count them: a partition whose every
     * record was filtered commits them at once, even while another partition's block is held; a filtered record
     * inside or at the end of a partition's run is committed with the block around it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"at_least_once", "exactly_once"})
    void recordsDroppedByAFilterStillAdvanceTheirPartition(String guarantee) throws Exception {
        start(guarantee, Map.of(), "a");
        open(A0, A1);
        server.shut();
        List<SinkRecord> kept = new ArrayList<>();
        for (long o : new long[] {0, 1, 3, 4}) { // offsets 2 and 5 filtered, and all of partition 1 (0..3)
            kept.add(TestTables.record("a", 0, o));
        }
        task.put(kept);
        Map<TopicPartition, Long> consumed = Map.of(A0, 6L, A1, 4L);
        assertEquals(Map.of(A0, 0L, A1, 4L), preCommit(consumed));
        server.open();
        assertEquals(consumed, settle(consumed));
        assertEquals(Map.of(A0, "0-4"), server.insertedRanges());
        assertEquals(4, server.insertedRows());
    }

    /**
     * With errors.tolerance=all a record no column takes goes to Connect's errant record reporter and its offset is
     * committed with its partition's other rows; the rest land.
     */
    @Test
    void aReportedBadRecordIsCommittedWithItsPartition() throws Exception {
        start("at_least_once", Map.of("errors.tolerance", "all"), "a");
        open(A0);
        List<SinkRecord> batch = records("a", 0, 0, 1);
        batch.add(TestTables.badRecord("a", 0, 2));
        batch.add(TestTables.record("a", 0, 3));
        task.put(batch);
        assertEquals(Map.of(A0, 4L), settle(Map.of(A0, 4L)));
        assertEquals(List.of(2L), context.reportedOffsets());
        assertEquals(3, server.insertedRows());
    }

    /**
     * With errors.tolerance=all a row ClickHouse refuses (a CHECK constraint) leaves the rest of its block inserted;
     * the task seeks its partition back to the refused record, reports it when Connect delivers it again, drops the
     * replayed records whose rows are in, and holds the partition's offset until then.
     */
    @ParameterizedTest
    @ValueSource(strings = {"at_least_once", "exactly_once"})
    void aRefusedRowIsReadAgainReportedAndCommitted(String guarantee) throws Exception {
        start(guarantee, Map.of("errors.tolerance", "all"), "a");
        open(A0);
        server.refuse(A0, 2);
        task.put(records("a", 0, 0, 4)); // full: sent at once
        server.awaitAttempts(1);
        // at_least_once holds from the refused row (the rows before it are in); exactly_once from the block's
        // start, which a restart rebuilds
        long hold = guarantee.equals("exactly_once") ? 0 : 2;
        assertEquals(Map.of(A0, hold), awaitPreCommit(Map.of(A0, 5L), Map.of(A0, hold)));
        long deadline = System.currentTimeMillis() + WAIT_MS;
        while (context.seeks.isEmpty() && System.currentTimeMillis() < deadline) {
            task.put(List.of());
            Thread.sleep(10);
        }
        assertEquals(List.of(Map.of(A0, 2L)), context.seeks, "sought back to the refused record");
        assertEquals(Map.of(A0, hold), preCommit(Map.of(A0, 5L)), "held until it is reported");
        task.put(records("a", 0, 2, 3)); // Connect delivers from the seek: 2 reported, 3 a replay
        assertEquals(List.of(2L), context.reportedOffsets());
        // Connect's own offset (4, moved back by the seek) lies inside the inserted block, and Connect refuses one
        // beyond it: at_least_once commits it; exactly_once the block's start, which a restart rebuilds whole
        assertEquals(Map.of(A0, guarantee.equals("exactly_once") ? 0L : 4L), preCommit(Map.of(A0, 4L)),
                "a commit inside a block already inserted");
        task.put(records("a", 0, 4, 6)); // 4 a replay, 5-6 new
        assertEquals(Map.of(A0, 7L), settle(Map.of(A0, 7L)));
        assertEquals(6, server.insertedRows(), "every row but the refused one, once");
    }

    /**
     * A refused row found during the commit Connect makes before it revokes its partition: the task never hands
     * Connect a seek of the revoked partition (Connect would make it after the partition has gone, and the consumer
     * would stop the task: "No current assignment for partition"), and the partition is committed only up to the
     * refused row (exactly_once: its block's start), so that its next owner reads the refused record again. The kept partition's seek goes through.
     */
    @ParameterizedTest
    @ValueSource(strings = {"at_least_once", "exactly_once"})
    void aRefusedRowOfARevokedPartitionIsLeftToItsNextOwner(String guarantee) throws Exception {
        start(guarantee, Map.of("errors.tolerance", "all", "flush.max.rows", "3", "flush.interval.ms", "60000"), "a");
        open(A0, A1);
        server.refuse(A1, 1);
        server.shut();
        task.put(records("a", 1, 0, 2)); // full: sent at once, held at the gate
        server.awaitAttempts(1);
        task.put(records("a", 0, 0, 1)); // an open block
        server.open();
        Map<TopicPartition, Long> closing = closingPreCommit(Map.of(A0, 2L, A1, 3L));
        long hold = guarantee.equals("exactly_once") ? 0 : 1; // the block's start, or the refused row
        assertEquals(Map.of(A0, 0L, A1, hold), closing, "the revoked partition is committed up to its refused row");
        assertTrue(server.insertedRows() == 2, "the refused row's block went in without it, in the closing commit");
        task.close(List.of(A1));
        context.assignment.remove(A1);
        task.put(List.of());
        assertTrue(context.seeks.stream().noneMatch(m -> m.containsKey(A1)), "a seek of the revoked partition: "
                + context.seeks);
        assertEquals(List.of(), context.reportedOffsets());
        if (guarantee.equals("exactly_once")) {
            assertEquals(List.of(), context.seeks, "the kept partition's own block stays");
        } else {
            assertEquals(List.of(Map.of(A0, 0L)), context.seeks, "the kept partition re-reads its dropped rows");
            task.put(records("a", 0, 0, 1));
        }
        assertEquals(Map.of(A0, 2L), settle(Map.of(A0, 2L)));
        assertEquals(4, server.insertedRows());
    }

    /**
     * A record that cannot become its row yet (the create of a primary-key change waiting for its old key's delete):
     * its partition is sought back to it, nothing of that partition from it on is appended or committed, the other
     * partitions go on; when it comes again and can, every row lands once.
     */
    @ParameterizedTest
    @ValueSource(strings = {"at_least_once", "exactly_once"})
    void aRecordThatCannotBecomeItsRowYetComesAgain(String guarantee) throws Exception {
        start(guarantee, Map.of("flush.max.rows", "100"), "a");
        open(A0, A1);
        server.notYet(A0, 2, 2);
        List<SinkRecord> batch = new ArrayList<>(records("a", 0, 0, 4));
        batch.addAll(records("a", 1, 0, 2));
        task.put(batch);
        assertEquals(List.of(Map.of(A0, 2L)), context.seeks, "sought back to the waiting record");
        assertEquals(Set.of(A0), context.paused, "paused, not read again at once");
        assertTrue(context.timeoutMs > 0 && context.timeoutMs <= 50, "polled again when its pause is over: "
                + context.timeoutMs);
        assertEquals(Map.of(A0, 2L, A1, 3L), settle(Map.of(A0, 5L, A1, 3L), Map.of(A0, 2L, A1, 3L)),
                "held at the waiting record");
        assertEquals(5, server.insertedRows(), "a-0's records before it and a-1's");
        Thread.sleep(60);
        task.put(List.of());
        assertEquals(Set.of(), context.paused, "resumed after its pause");
        task.put(records("a", 0, 2, 4)); // Connect delivers from the seek: it waits once more
        assertEquals(2, context.seeks.size());
        assertEquals(Set.of(A0), context.paused, "paused again");
        task.put(records("a", 0, 2, 6));
        assertEquals(Map.of(A0, 7L, A1, 3L), settle(Map.of(A0, 7L, A1, 3L)));
        assertEquals(10, server.insertedRows(), "every row once");
    }

    // ---- driving the task as Connect does ----

    /**
     * cdc.mode=debezium with Kafka's JsonConverter and no replace.null.with.default on the connector: the task
     * refuses to start (a connector created before validate() refused it), naming the key, before it connects.
     */
    @Test
    void aConverterThatPutsDefaultsInPlaceOfNullsIsRefusedAtStart() {
        Map<String, String> props = new HashMap<>();
        props.put("name", "task-test");
        props.put("clickhouse.url", "http://127.0.0.1:9");
        props.put("cdc.mode", "debezium");
        props.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        int[] connected = {0};
        ClickHouseSinkTask refused = new ClickHouseSinkTask(c -> {
            connected[0]++;
            return server.parts(c);
        });
        refused.initialize(context);
        ConnectException e = assertThrows(ConnectException.class, () -> refused.start(props));
        assertTrue(e.getMessage().contains("value.converter.replace.null.with.default=false")
                && e.getMessage().contains("cdc.null.defaults=allow"), e.getMessage());
        assertEquals(0, connected[0], "refused before connecting");
    }

    private void start(String guarantee, Map<String, String> settings, String... tables) {
        Map<String, String> props = new HashMap<>();
        props.put("name", "task-test");
        props.put("clickhouse.url", "http://127.0.0.1:9"); // never contacted: the parts are the test's
        props.put("clickhouse.database", DB);
        props.put("delivery.guarantee", guarantee);
        props.put("flush.max.rows", "5");
        props.put("flush.interval.ms", "50");
        props.put("retry.backoff.ms", "10");
        props.putAll(settings);
        for (String t : tables) {
            server.tables.add(new TableId(DB, t));
        }
        task = new ClickHouseSinkTask(server::parts);
        task.initialize(context);
        task.start(props);
    }

    private void open(TopicPartition... partitions) {
        context.assignment.addAll(List.of(partitions));
        task.open(List.of(partitions));
    }

    private Map<TopicPartition, Long> preCommit(Map<TopicPartition, Long> consumed) {
        return offsets(task.preCommit(committed(consumed)));
    }

    /** The preCommit Connect makes just before it closes the partitions (as {@code ClosingCommit} tells it). */
    private Map<TopicPartition, Long> closingPreCommit(Map<TopicPartition, Long> consumed) {
        List<Map<TopicPartition, Long>> out = new ArrayList<>();
        BooleanSupplier commit = () -> out.add(preCommit(consumed));
        WorkerSinkTaskStandIn.closePartitions(commit);
        return out.get(0);
    }

    /**
     * Polls as Connect does while nothing arrives (an empty put, which also seals idle and due blocks, then
     * preCommit) until preCommit returns {@code consumed}, for at most {@value #WAIT_MS} ms; returns the last answer.
     */
    private Map<TopicPartition, Long> settle(Map<TopicPartition, Long> consumed) throws InterruptedException {
        return settle(consumed, consumed);
    }

    /** {@link #settle} until preCommit returns {@code expected}. */
    private Map<TopicPartition, Long> settle(Map<TopicPartition, Long> consumed, Map<TopicPartition, Long> expected)
            throws InterruptedException {
        long deadline = System.currentTimeMillis() + WAIT_MS;
        Map<TopicPartition, Long> got;
        while (true) {
            task.put(List.of());
            got = preCommit(consumed);
            if (got.equals(expected) || System.currentTimeMillis() > deadline) {
                return got;
            }
            Thread.sleep(10);
        }
    }

    /** preCommit alone, until it returns {@code expected} (at most {@value #WAIT_MS} ms); returns the last answer. */
    private Map<TopicPartition, Long> awaitPreCommit(Map<TopicPartition, Long> consumed,
            Map<TopicPartition, Long> expected) throws InterruptedException {
        long deadline = System.currentTimeMillis() + WAIT_MS;
        Map<TopicPartition, Long> got;
        while (!(got = preCommit(consumed)).equals(expected) && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
        return got;
    }

    private static Map<TopicPartition, OffsetAndMetadata> committed(Map<TopicPartition, Long> offsets) {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        offsets.forEach((tp, o) -> out.put(tp, new OffsetAndMetadata(o)));
        return out;
    }

    private static Map<TopicPartition, Long> offsets(Map<TopicPartition, OffsetAndMetadata> committed) {
        Map<TopicPartition, Long> out = new HashMap<>();
        committed.forEach((tp, o) -> out.put(tp, o.offset()));
        return out;
    }

    private static List<SinkRecord> records(String topic, int partition, long from, long to) {
        List<SinkRecord> out = new ArrayList<>();
        for (long o = from; o <= to; o++) {
            out.add(TestTables.record(topic, partition, o));
        }
        return out;
    }

    /** Records of {@code events} partition {@code partition} as RegexRouter renames them to {@code renamed-events}. */
    private static List<SinkRecord> renamed(int partition, long from, long to) {
        List<SinkRecord> out = new ArrayList<>();
        for (long o = from; o <= to; o++) {
            out.add(TestTables.renamed("renamed-events", partition, "events", partition, o));
        }
        return out;
    }

    // ---- ClickHouse's side, in memory ----

    /** An inserted block as the inserter saw it (the task recycles the block itself once it is verified). */
    private static final class Inserted {
        final TableId table;
        final int rows;
        final Map<TopicPartition, long[]> ranges = new HashMap<>();

        Inserted(TableBlock b, int from, int to) {
            table = b.table();
            rows = to - from;
            for (int i = from; i < to; i++) {
                long o = b.rowOffset(i);
                ranges.merge(b.rowPartition(i), new long[] {o, o}, (x, y) -> new long[] {Math.min(x[0], y[0]),
                        Math.max(x[1], y[1])});
            }
        }
    }

    /**
     * The server: which tables exist (one Int64 column each), every table a MergeTree, an inserter whose attempts
     * wait at a gate while it is shut and fail as scripted, the blocks it took, and exactly_once's state table.
     */
    private static final class Server {
        final Set<TableId> tables = new HashSet<>();
        final ConcurrentLinkedQueue<Inserted> inserted = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Exception> failures = new ConcurrentLinkedQueue<>();
        final AtomicInteger attempts = new AtomicInteger();
        final Set<String> refused = ConcurrentHashMap.newKeySet();
        /** Records (tp@offset) the row source answers RowSource.NotYet for, and how many more times. */
        final Map<String, Integer> notYet = new ConcurrentHashMap<>();
        final MemoryStateTable store = new MemoryStateTable();
        private final Object gate = new Object();
        private boolean shut;

        /** The task's parts for its config (the task calls this once, in start()). */
        ClickHouseParts parts(SinkConfig config) {
            return new Parts(config);
        }

        void shut() {
            synchronized (gate) {
                shut = true;
            }
        }

        void open() {
            synchronized (gate) {
                shut = false;
                gate.notifyAll();
            }
        }

        /** The next attempt fails with {@code e} (at once, without waiting at the gate). */
        void failNext(Exception e) {
            failures.add(e);
        }

        void awaitAttempts(int n) throws InterruptedException {
            long deadline = System.currentTimeMillis() + WAIT_MS;
            while (attempts.get() < n && System.currentTimeMillis() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(attempts.get() >= n, attempts.get() + " insert attempts, expected " + n);
        }

        /** ClickHouse refuses the row of this record, as a CHECK constraint would (error 469, naming the row). */
        void refuse(TopicPartition tp, long offset) {
            refused.add(tp + "@" + offset);
        }

        /** The record at {@code offset} of {@code tp} cannot become a row the next {@code times} times it comes. */
        void notYet(TopicPartition tp, long offset, int times) {
            notYet.put(tp + "@" + offset, times);
        }

        long insert(TableBlock block, int from, int to) throws Exception {
            attempts.incrementAndGet();
            Exception failure = failures.poll();
            if (failure != null) {
                throw failure;
            }
            synchronized (gate) {
                long deadline = System.currentTimeMillis() + WAIT_MS;
                while (shut) {
                    long left = deadline - System.currentTimeMillis();
                    if (left <= 0) {
                        throw new IllegalStateException("the test left the gate shut");
                    }
                    gate.wait(left);
                }
            }
            for (int i = from; i < to; i++) {
                if (refused.contains(block.rowPartition(i) + "@" + block.rowOffset(i))) {
                    throw new ServerException(469, "Code: 469. DB::Exception: Constraint `c` for table " + block.table()
                            + " is violated at row " + (i - from + 1) + ". (VIOLATED_CONSTRAINT)", 500, "q");
                }
            }
            inserted.add(new Inserted(block, from, to));
            return to - from;
        }

        Map<TopicPartition, String> insertedRanges() {
            Map<TopicPartition, TreeMap<Long, Long>> out = new HashMap<>();
            for (Inserted b : inserted) {
                b.ranges.forEach((tp, r) -> out.computeIfAbsent(tp, k -> new TreeMap<>()).put(r[0], r[1]));
            }
            return MemoryStateTable.describe(out);
        }

        int insertedRows() {
            return inserted.stream().mapToInt(b -> b.rows).sum();
        }

        Set<TableId> insertedTables() {
            Set<TableId> out = new HashSet<>();
            inserted.forEach(b -> out.add(b.table));
            return out;
        }

        /** What {@link ClickHouseParts#connect} makes on a client, made of this server. */
        private final class Parts implements ClickHouseParts {
            private final SinkConfig config;

            Parts(SinkConfig config) {
                this.config = config;
            }

            @Override
            public TableSchemaSource schemas() {
                return table -> tables.contains(table) ? TestTables.schema(table) : null;
            }

            @Override
            public void checkTarget(TableId table) {
                // plain tables only
            }

            @Override
            public Inserter inserter(long timeoutMs, BlockInserter.BeforeInsert beforeAttempt) {
                return new Inserter() {
                    @Override
                    public long insert(TableBlock block) throws Exception {
                        beforeAttempt.accept(block); // as BlockInserter: exactly_once records the block here
                        return Server.this.insert(block, 0, block.rows());
                    }

                    @Override
                    public long insert(TableBlock block, int from, int to) throws Exception {
                        return Server.this.insert(block, from, to);
                    }
                };
            }

            @Override
            public InsertLimits limits(int perTable) {
                return new InsertLimits(t -> new InsertLimits.Engine("MergeTree", "MergeTree ORDER BY x", Map.of()),
                        perTable);
            }

            @Override
            public Delivery delivery(BlockBuffer buffer, BlockOpener opener, String connector,
                    ToIntFunction<TableId> partitionsOf, Consumption consumption) {
                return Deliveries.create(config, buffer, opener, () -> store, (table, engine) -> null, connector,
                        consumption);
            }

            @Override
            public RowSource rows(LongConsumer currentRowRead, Runnable cacheHit) {
                AppendedRecords appended = new AppendedRecords();
                return new RowSource() {
                    @Override
                    public SinkRecord toRow(SinkRecord r) {
                        String id = new TopicPartition(r.topic(), r.kafkaPartition()) + "@" + r.kafkaOffset();
                        Integer left = notYet.get(id);
                        if (left != null && left > 0) {
                            notYet.put(id, left - 1);
                            throw new RowSource.NotYet("not yet");
                        }
                        return appended.toRow(r);
                    }

                    @Override
                    public void checkTable(TableId table) {
                        appended.checkTable(table);
                    }

                    @Override
                    public boolean nullsTakeDefaults() {
                        return appended.nullsTakeDefaults();
                    }

                    @Override
                    public String name() {
                        return appended.name();
                    }
                };
            }

            @Override
            public TableEvolution evolution() {
                return new FixedTables();
            }

            @Override
            public void close() {
            }
        }
    }

    /**
     * Connect's side: the assignment, every seek ({@code offset()}), pauses, commit requests, and an errant record
     * reporter that keeps what it is given.
     */
    private static final class FakeContext implements SinkTaskContext {
        final Set<TopicPartition> assignment = new HashSet<>();
        final List<Map<TopicPartition, Long>> seeks = new ArrayList<>();
        final Set<TopicPartition> paused = new HashSet<>();
        final List<SinkRecord> reported = new ArrayList<>();
        int commitRequests;
        long timeoutMs = -1;

        @Override
        public Map<String, String> configs() {
            return Map.of();
        }

        @Override
        public void offset(Map<TopicPartition, Long> offsets) {
            seeks.add(new HashMap<>(offsets));
        }

        @Override
        public void offset(TopicPartition tp, long offset) {
            offset(Map.of(tp, offset));
        }

        @Override
        public void timeout(long timeoutMs) {
            this.timeoutMs = timeoutMs;
        }

        @Override
        public Set<TopicPartition> assignment() {
            return new HashSet<>(assignment);
        }

        @Override
        public void pause(TopicPartition... partitions) {
            paused.addAll(List.of(partitions));
        }

        @Override
        public void resume(TopicPartition... partitions) {
            paused.removeAll(List.of(partitions));
        }

        @Override
        public void requestCommit() {
            commitRequests++;
        }

        @Override
        public ErrantRecordReporter errantRecordReporter() {
            return new ErrantRecordReporter() {
                @Override
                public Future<Void> report(SinkRecord record, Throwable error) {
                    reported.add(record);
                    return CompletableFuture.completedFuture(null);
                }
            };
        }

        @Override
        public PluginMetrics pluginMetrics() {
            return null;
        }

        List<Long> reportedOffsets() {
            List<Long> out = new ArrayList<>();
            reported.forEach(r -> out.add(r.kafkaOffset()));
            return out;
        }
    }
}
