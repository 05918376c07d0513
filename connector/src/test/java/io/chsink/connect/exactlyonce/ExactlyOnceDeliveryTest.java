package io.chsink.connect.exactlyonce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.block.BlockBuffer;
import io.chsink.connect.block.BlockKey;
import io.chsink.connect.block.BlockManifest;
import io.chsink.connect.block.TableBlock;
import io.chsink.connect.delivery.BlockOpener;
import io.chsink.connect.mapping.RecordMappingException;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.testing.MemoryStateTable;
import io.chsink.connect.testing.RecordedSeeks;
import io.chsink.connect.testing.TestTables;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/** The exactly_once delivery with a real buffer and real blocks; the state table is an in-memory list. */
class ExactlyOnceDeliveryTest {
    private static final TableId T = new TableId("db", "t");
    private static final TopicPartition P0 = new TopicPartition("a", 0);
    private static final TopicPartition P1 = new TopicPartition("a", 1);

    /** One task life: its own buffer and delivery on the shared state table. */
    static final class Life {
        final BlockBuffer buffer = new BlockBuffer(1000, 1 << 20, 60_000);
        final ExactlyOnceDelivery delivery;
        final List<SinkRecord> reported = new ArrayList<>();
        final RecordedSeeks consumption = new RecordedSeeks();
        final List<Map<TopicPartition, Long>> seeks = consumption.seeks;
        final List<SinkRecord> appended = new ArrayList<>();

        Life(MemoryStateTable store) {
            this(store, (t, engine) -> null);
        }

        Life(MemoryStateTable store, TargetTables targets) {
            BlockOpener opener = (key, topic) -> {
                TableBlock b = buffer.open(key);
                if (b == null) {
                    b = new TableBlock(key, TestTables.mapping(key.table()), 4, 0);
                    buffer.putOpen(b);
                }
                return b;
            };
            delivery = new ExactlyOnceDelivery(buffer, opener, () -> store, targets, "c", consumption);
        }

        /** What the task does with a batch. */
        void put(List<SinkRecord> batch) {
            for (SinkRecord r : delivery.admit(batch)) {
                TableBlock b = delivery.blockFor(r, T, null);
                try {
                    b.append(r);
                } catch (RecordMappingException e) {
                    reported.add(r);
                    delivery.skipped(r, T);
                    continue;
                }
                delivery.appended(r, T, b);
                appended.add(r);
            }
        }

        /** Seals what memory pressure would seal and submits it (the insert thread's record included). */
        List<TableBlock> flush() throws Exception {
            buffer.sealAll(t -> true);
            List<TableBlock> out = new ArrayList<>();
            List<TableBlock> taken;
            while (!(taken = buffer.takeSealed(t -> true)).isEmpty()) {
                for (TableBlock b : taken) {
                    delivery.beforeSubmit(b);
                    delivery.beforeAttempt(b);
                    out.add(b);
                }
            }
            return out;
        }
    }

    private static List<SinkRecord> records(int partition, long from, long to) {
        List<SinkRecord> out = new ArrayList<>();
        for (long o = from; o <= to; o++) {
            out.add(TestTables.record("a", partition, o));
        }
        return out;
    }

    @Test
    void blocksHoldOnePartitionAndAreRecordedWithTheirTokenBeforeInsert() throws Exception {
        MemoryStateTable store = new MemoryStateTable();
        Life first = new Life(store);
        List<SinkRecord> batch = records(0, 0, 4);
        batch.addAll(records(1, 0, 1));
        first.put(batch);
        assertNotNull(first.buffer.open(BlockKey.of(T, P0)));
        assertNotNull(first.buffer.open(BlockKey.of(T, P1)));
        List<TableBlock> sent = first.flush();
        assertEquals(2, sent.size());
        assertEquals(2, store.recorded.size(), "recorded before the first attempt");
        BlockManifest m0 = store.recorded.stream().filter(m -> m.partition().equals(P0)).findFirst().get();
        assertEquals("chsink/c/a/0/0-4/1000", m0.token());
        assertEquals(5, m0.rows());
        assertTrue(m0.isRecorded());
        assertEquals(1, first.delivery.insertsPerTable());
    }

    @Test
    void renamedRecordsAreRecordedUnderTheConsumersPartitionAndAPartitionsBlocksNeverOverlap() throws Exception {
        MemoryStateTable store = new MemoryStateTable();
        Life life = new Life(store);
        TableId day1 = new TableId("db", "events-20260101");
        TableId day2 = new TableId("db", "events-20260102");
        // TimestampRouter near midnight: one consumer partition's records alternate between two tables
        TableId[] route = {day1, day1, day2, day1, day2, day2};
        List<SinkRecord> batch = new ArrayList<>();
        for (int o = 0; o < route.length; o++) {
            batch.add(TestTables.renamed("events-" + o, 0, "events", 0, o));
        }
        int i = 0;
        for (SinkRecord r : life.delivery.admit(batch)) {
            TableBlock b = life.delivery.blockFor(r, route[i++], null);
            b.append(r);
            life.delivery.appended(r, b.table(), b);
        }
        List<TableBlock> sent = life.flush();
        TopicPartition src = new TopicPartition("events", 0);
        List<long[]> ranges = new ArrayList<>();
        for (BlockManifest m : store.recorded) {
            assertEquals(src, m.partition(), "recorded under the partition Connect commits");
            ranges.add(new long[] {m.firstOffset(), m.lastOffset()});
        }
        ranges.sort(java.util.Comparator.comparingLong(r -> r[0]));
        assertEquals(4, ranges.size(), "a new block at each change of table: [0..1] [2] [3] [4..5]");
        for (int k = 1; k < ranges.size(); k++) {
            assertTrue(ranges.get(k)[0] > ranges.get(k - 1)[1], "blocks of one partition must not overlap");
        }
        assertEquals(4, sent.size());
    }

    @Test
    void aRestartRebuildsTheRecordedBlockWithTheSameRowsAndTokenBeforeNewOnes() throws Exception {
        MemoryStateTable store = new MemoryStateTable();
        Life first = new Life(store);
        first.put(records(0, 0, 4));
        TableBlock original = first.flush().get(0);
        // crash before verification; the next owner gets the records again, and more
        Life second = new Life(store);
        second.put(records(0, 0, 2));
        assertEquals(List.of(P0), second.delivery.mustComplete(), "a rebuild in progress must be completed");
        second.buffer.sealAll(t -> true);
        second.buffer.sealDue(Long.MAX_VALUE);
        second.buffer.sealBurstEnd();
        assertFalse(second.buffer.hasSealed(), "neither memory pressure nor time seals a rebuild");
        second.put(records(0, 3, 6));
        assertTrue(second.delivery.mustComplete().isEmpty(), "the rebuild was sealed at its last offset");
        List<TableBlock> sent = second.flush();
        assertEquals(2, sent.size());
        TableBlock rebuilt = sent.get(0);
        assertTrue(rebuilt.isReplay());
        assertEquals(original.manifest().token(), rebuilt.manifest().token());
        assertEquals(original.rows(), rebuilt.rows());
        assertEquals(original.offsetRanges().get(P0)[0], rebuilt.offsetRanges().get(P0)[0]);
        assertEquals(original.offsetRanges().get(P0)[1], rebuilt.offsetRanges().get(P0)[1]);
        assertEquals(2, store.recorded.size(), "the new block is recorded; the rebuild is not recorded twice");
        TableBlock fresh = sent.get(1);
        assertFalse(fresh.isReplay());
        assertEquals("chsink/c/a/0/5-6/1005", fresh.manifest().token());
    }

    @Test
    void aCommitNeverLandsInsideARecordedBlock() throws Exception {
        MemoryStateTable store = new MemoryStateTable();
        Life first = new Life(store);
        first.put(records(0, 0, 4));
        TableBlock sent = first.flush().get(0);
        assertEquals(0, first.delivery.commitBound(P0, 3), "inside the block in flight: its first offset");
        assertEquals(0, first.delivery.commitBound(P0, 0));
        assertEquals(5, first.delivery.commitBound(P0, 5), "past the block");
        assertEquals(3, first.delivery.commitBound(P1, 3), "another partition has no block");
        first.delivery.verified(sent);
        assertEquals(0, first.delivery.commitBound(P0, 3), "verified, still in the state table: a restart rebuilds it");
        first.delivery.committing(Map.of(P0, new OffsetAndMetadata(0)));
        assertEquals(0, first.delivery.commitBound(P0, 3), "a commit at its start has not passed it");
        first.delivery.committing(Map.of(P0, new OffsetAndMetadata(5)));
        assertEquals(3, first.delivery.commitBound(P0, 3), "committed past: no longer rebuilt");
        // the next owner loads the block recorded but not verified: commits stay at its start until it is rebuilt
        Life crashed = new Life(store);
        crashed.put(records(0, 0, 4));
        crashed.flush();
        Life second = new Life(store);
        second.put(records(0, 0, 2));
        assertEquals(0, second.delivery.commitBound(P0, 2), "a rebuild in progress holds the block's start");
    }

    @Test
    void aRebuildMissingRecordsIsSealedByTheFirstRecordPastItsRange() throws Exception {
        MemoryStateTable store = new MemoryStateTable();
        Life first = new Life(store);
        first.put(records(0, 0, 4));
        first.flush();
        Life second = new Life(store);
        List<SinkRecord> batch = records(0, 0, 2);
        batch.addAll(records(0, 7, 8)); // 3 and 4 were deleted
        second.put(batch);
        List<TableBlock> sent = second.flush();
        assertEquals(3, sent.get(0).rows());
        assertEquals("chsink/c/a/0/0-4/1000", sent.get(0).manifest().token());
        assertEquals("chsink/c/a/0/7-8/1007", sent.get(1).manifest().token());
    }

    @Test
    void aDeadLetteredLastRecordCompletesTheRebuild() throws Exception {
        MemoryStateTable store = new MemoryStateTable();
        Life first = new Life(store);
        first.put(records(0, 0, 4));
        first.flush();
        Life second = new Life(store);
        List<SinkRecord> batch = records(0, 0, 3);
        batch.add(TestTables.badRecord("a", 0, 4));
        second.put(batch);
        assertEquals(1, second.reported.size());
        assertTrue(second.delivery.mustComplete().isEmpty());
        assertTrue(second.buffer.hasSealed(), "sealed by the dead-lettered record at its last offset");
        assertEquals(4, second.flush().get(0).rows());
    }

    @Test
    void verifiedBlocksAreNotRebuiltByTheSameTaskAndRevocationForgetsPartitions() throws Exception {
        MemoryStateTable store = new MemoryStateTable();
        Life life = new Life(store);
        life.put(records(0, 0, 4));
        TableBlock b = life.flush().get(0);
        life.delivery.verified(b);
        life.put(records(0, 5, 5));
        assertFalse(life.buffer.open(BlockKey.of(T, P0)).isReplay());
        assertEquals(1, store.loads());
        life.buffer.clear();
        life.delivery.revoked(List.of(P0));
        life.put(records(0, 5, 5));
        assertEquals(2, store.loads(), "a partition got again is loaded again");
    }

    @Test
    void theTableCheckRunsThroughTheDelivery() {
        Life life = new Life(new MemoryStateTable());
        ExactlyOnceDelivery refusing = new ExactlyOnceDelivery(life.buffer, (k, t) -> null, MemoryStateTable::new,
                (t, engine) -> {
                    throw new ConnectException("no dedup on " + t + " (state table " + engine + ")");
                }, "c", null);
        assertThrows(ConnectException.class, () -> refusing.checkTable(T));
        assertNull(refusing.blockFor(TestTables.record("a", 0, 0), T, null), "a missing table gives no block");
    }

    @Test
    void aPartialRebuildIsRefusedWhereTheServerNumbersPartitionParts() throws Exception {
        MemoryStateTable store = new MemoryStateTable();
        Life first = new Life(store);
        first.put(records(0, 0, 4));
        first.flush();
        // a partitioned table on a server with ordinal block IDs (before 26.2)
        Life second = new Life(store, (t, engine) -> new RebuildCheck("toYYYYMM(ts)", true, "25.8.1.1"));
        second.delivery.checkTable(T);
        List<SinkRecord> batch = records(0, 0, 2);
        batch.addAll(records(0, 7, 7));
        ConnectException e = assertThrows(ConnectException.class, () -> second.put(batch));
        assertTrue(e.getMessage().contains("a-0"), e.getMessage());
        // the same rebuild on 26.7's unified IDs goes
        Life third = new Life(store, (t, engine) -> new RebuildCheck("toYYYYMM(ts)", false, "26.7.2.1"));
        third.delivery.checkTable(T);
        third.put(batch);
        assertEquals(3, third.flush().get(0).rows());
    }

    @Test
    void blocksBuiltAfterAnOffsetsResetCarryThePartitionsEpoch() throws Exception {
        MemoryStateTable store = new MemoryStateTable();
        store.epochs.put(P0, 1234L);
        Life life = new Life(store);
        List<SinkRecord> batch = records(0, 0, 1);
        batch.addAll(records(1, 0, 1));
        life.put(batch);
        List<TableBlock> sent = life.flush();
        assertEquals("chsink/c/a/0/0-1/1000/e1234", sent.get(0).manifest().token());
        assertEquals("chsink/c/a/1/0-1/1000", sent.get(1).manifest().token(), "epoch 0: the token of old");
    }

    /** Records as {@link TestTables#record} writes them, with Kafka timestamps of another life of the topic. */
    private static List<SinkRecord> recreated(int partition, long from, long to) {
        List<SinkRecord> out = new ArrayList<>();
        for (SinkRecord r : records(partition, from, to)) {
            out.add(r.newRecord(r.topic(), r.kafkaPartition(), null, null, null, r.value(), r.timestamp() + 50_000));
        }
        return out;
    }

    private static Map<TopicPartition, OffsetAndMetadata> at(TopicPartition tp, long offset) {
        return Map.of(tp, new OffsetAndMetadata(offset));
    }

    private static List<Long> offsets(List<SinkRecord> records) {
        List<Long> out = new ArrayList<>();
        records.forEach(r -> out.add(r.kafkaOffset()));
        return out;
    }

    /**
     * A first task writes 70 one-record blocks, verified; preCommit returns 70, which makes a prune due: the mark is
     * stored, the blocks below it deleted. Then it records [70..74] and dies before its insert is verified.
     */
    private static MemoryStateTable handledToSeventy() throws Exception {
        MemoryStateTable store = new MemoryStateTable();
        Life first = new Life(store);
        for (int i = 0; i < 70; i++) {
            first.put(records(0, i, i));
            first.flush().forEach(first.delivery::verified);
            if (i == 62) {
                first.delivery.committing(at(P0, 63));
                assertEquals(0, store.markWrites(), "63 blocks below: no prune due, no mark written");
            }
        }
        first.delivery.committing(at(P0, 70));
        assertEquals(new HandledOffsets.Mark(70, 69, 1069), store.marks.get(P0), "anchor: the newest verified block");
        assertEquals(List.of(Map.of(P0, 70L)), store.prunes);
        first.put(records(0, 70, 74));
        first.flush();
        assertEquals(1, store.blocks(P0));
        return store;
    }

    @Test
    void recordsBelowTheMarkComingAgainAreDroppedOnceItsAnchorIsFound() throws Exception {
        MemoryStateTable store = handledToSeventy();
        Life second = new Life(store); // Connect's commit of 70 failed: it redelivers from 0
        second.put(records(0, 0, 40));
        assertEquals(List.of(Map.of(P0, 69L)), second.seeks, "seeks to the anchor to look at it");
        assertEquals(List.of(), second.appended);
        assertEquals(Map.of(P0, 0L), second.delivery.uncommittable(), "nothing beyond 0 until the mark is settled");
        second.put(records(0, 69, 72)); // redelivered from the anchor
        assertEquals(List.of(70L, 71L, 72L), offsets(second.appended), "below the mark: written before, dropped");
        assertEquals(Map.of(), second.delivery.uncommittable());
        assertTrue(second.buffer.open(BlockKey.of(T, P0)).isReplay(), "[70..74] is rebuilt, the rest dropped");
    }

    @Test
    void aPartitionRedeliveredFromItsAnchorIsSettledWithoutASeek() throws Exception {
        Life second = new Life(handledToSeventy());
        second.put(records(0, 69, 71));
        assertEquals(List.of(), second.seeks);
        assertEquals(List.of(70L, 71L), offsets(second.appended));
    }

    @Test
    void aMarkWhoseAnchorHasAnotherTimestampIsIgnoredAndThePartitionReadAgainFromItsStart() throws Exception {
        MemoryStateTable store = handledToSeventy();
        Life second = new Life(store); // the topic was deleted and re-created: offsets from 0 again
        second.put(recreated(0, 0, 7));
        assertEquals(List.of(Map.of(P0, 69L)), second.seeks);
        assertEquals(1, store.blocks(P0), "[70..74] of the earlier topic");
        second.put(recreated(0, 69, 72)); // the record at the anchor offset is another one
        assertEquals(List.of(Map.of(P0, 69L), Map.of(P0, 0L)), second.seeks, "back to where Connect started");
        assertEquals(0, store.blocks(P0), "the earlier topic's blocks are deleted, never rebuilt from this one");
        assertEquals(List.of(), second.appended);
        assertEquals(Map.of(P0, 0L), second.delivery.uncommittable());
        second.put(recreated(0, 0, 74));
        assertEquals(75, second.appended.size(), "nothing of it is lost");
        assertFalse(second.buffer.open(BlockKey.of(T, P0)).isReplay());
        assertEquals(Map.of(), second.delivery.uncommittable());
    }

    @Test
    void recordedBlocksStayBoundedWhileTheTaskRunsAndTheMarkOnlyGrows() throws Exception {
        MemoryStateTable store = new MemoryStateTable();
        Life life = new Life(store);
        long most = 0;
        for (int i = 0; i < 300; i++) {
            life.put(records(0, 2 * i, 2 * i + 1));
            life.flush().forEach(life.delivery::verified);
            life.delivery.committing(at(P0, 2 * i + 2));
            most = Math.max(most, store.blocks(P0));
        }
        assertTrue(most <= HandledOffsets.PRUNE_AFTER_BLOCKS, "at most " + most + " blocks recorded at once");
        assertEquals(300 / HandledOffsets.PRUNE_AFTER_BLOCKS, store.markWrites(), "marks are written when a prune is due");
        assertEquals(store.markWrites(), store.prunes.size());
        HandledOffsets.Mark m = store.marks.get(P0);
        assertEquals(2 * 4 * HandledOffsets.PRUNE_AFTER_BLOCKS, m.below());
        assertEquals(new HandledOffsets.Mark(m.below(), m.below() - 2, 1000 + m.below() - 2), m);
        life.delivery.committing(at(P0, 590)); // never back
        assertEquals(m, store.marks.get(P0));
    }

    @Test
    void blocksBelowWhereConnectStartsAPartitionArePrunedAtTheFirstCommit() throws Exception {
        MemoryStateTable store = new MemoryStateTable();
        Life first = new Life(store);
        first.put(records(0, 0, 4));
        first.flush(); // recorded; the task dies before preCommit: no mark
        Life second = new Life(store);
        second.put(records(0, 5, 6)); // Connect had committed 5 after all
        second.flush().forEach(second.delivery::verified);
        second.delivery.committing(at(P0, 7));
        assertEquals(List.of(Map.of(P0, 7L)), store.prunes, "once after the partition was assigned");
        assertEquals(0, store.blocks(P0));
    }
}
