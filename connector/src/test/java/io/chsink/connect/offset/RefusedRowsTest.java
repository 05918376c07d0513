package io.chsink.connect.offset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.testing.RecordedSeeks;
import io.chsink.connect.testing.TestTables;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/** Refused rows read again: reported once, the other records of the re-read dropped, offsets held until then. */
class RefusedRowsTest {
    private static final TopicPartition P = new TopicPartition("src", 0);
    private static final TopicPartition Q = new TopicPartition("src", 1);

    private final RecordedSeeks consumer = new RecordedSeeks();
    private final List<Map<TopicPartition, Long>> seeks = consumer.seeks;
    private final RefusedRows refused = new RefusedRows(consumer);
    private final AssignedPartitions assigned = new AssignedPartitions(false);
    private final List<String> reported = new ArrayList<>();

    private static List<SinkRecord> records(TopicPartition tp, long from, long to) {
        List<SinkRecord> out = new ArrayList<>();
        for (long o = from; o <= to; o++) {
            // renamed by a transform: the consumer's coordinates count
            out.add(TestTables.renamed("t", tp.partition(), tp.topic(), tp.partition(), o));
        }
        return out;
    }

    /** One put(): what the task does with a batch before anything else. */
    private Collection<SinkRecord> put(List<SinkRecord> batch, Map<TopicPartition, Long> rewinds) {
        return put(batch, rewinds, () -> { });
    }

    /** One put() in which {@code completions} run where the task collects its inserts' completions. */
    private Collection<SinkRecord> put(List<SinkRecord> batch, Map<TopicPartition, Long> rewinds,
            Runnable completions) {
        refused.batchStarts(assigned.lastOffsets(), rewinds);
        completions.run();
        assigned.received(batch);
        return refused.filter(batch, (r, why) -> reported.add(Origin.offset(r) + ":" + why));
    }

    @Test
    void refusedRecordsAreReportedOnceAndTheRestOfTheReReadIsDropped() {
        assertEquals(20, put(records(P, 0, 19), Map.of()).size());
        put(records(Q, 0, 9), Map.of());
        // the batch being handled when the seek is asked: still new records
        assertEquals(5, put(records(P, 20, 24), Map.of(), () -> {
            refused.refused(P, 5, 0, "why 5");
            refused.refused(P, 12, 0, "why 12");
            refused.seekBack(Map.of());
        }).size());
        assertEquals(List.of(Map.of(P, 5L)), seeks);
        assertEquals(Map.of(P, 0L), refused.pending(), "held from the start of the refused rows' block");
        // after the seek: 5..24 again, then new ones
        List<SinkRecord> again = records(P, 5, 30);
        Collection<SinkRecord> kept = put(again, Map.of());
        assertEquals(List.of("5:why 5", "12:why 12"), reported);
        assertEquals(6, kept.size(), "only 25..30 are new");
        assertEquals(25, Origin.offset(kept.iterator().next()));
        assertTrue(refused.pending().isEmpty());
        assertEquals(10, put(records(Q, 10, 19), Map.of()).size(), "other partitions untouched");
    }

    @Test
    void rowsRefusedWhileAReplayPassedTheirRecordsAreReadAgainNotTakenForGone() {
        put(records(P, 0, 29), Map.of());
        put(List.of(), Map.of(), () -> {
            refused.refused(P, 3, 0, "why 3");
            refused.seekBack(Map.of());
        });
        // the replay of 3..29: 3 reported, the rest dropped, 12 among them (its block is still in flight)
        assertEquals(0, put(records(P, 3, 29), Map.of()).size());
        assertEquals(List.of("3:why 3"), reported);
        // the block holding 12 completes with 12 refused while a batch fetched before the new seek arrives: its
        // records pass where the replay ends, but 12 is not gone, its seek is still to come
        assertEquals(5, put(records(P, 30, 34), Map.of(), () -> {
            refused.refused(P, 12, 10, "why 12");
            refused.seekBack(Map.of());
        }).size());
        assertEquals(Map.of(P, 12L), seeks.get(1));
        assertEquals(Map.of(P, 10L), refused.pending(), "held until 12 is reported");
        Collection<SinkRecord> kept = put(records(P, 12, 40), Map.of());
        assertEquals(List.of("3:why 3", "12:why 12"), reported);
        assertEquals(6, kept.size(), "35..40 are new");
        assertTrue(refused.pending().isEmpty());
    }

    @Test
    void aRewindInsideTheReReadIsNotDroppedAndNeverSkipsARefusedRecord() {
        put(records(P, 0, 19), Map.of());
        put(List.of(), Map.of(), () -> {
            refused.refused(P, 3, 0, "why 3");
            refused.seekBack(Map.of(P, 10L)); // a rewind to 10 is pending: the seek goes to 3 all the same
        });
        assertEquals(Map.of(P, 3L), seeks.get(0));
        // records from 10 on go to blocks again (the rewind's), 3 is reported, 4..9 dropped
        Collection<SinkRecord> kept = put(records(P, 3, 19), Map.of(P, 10L));
        assertEquals(List.of("3:why 3"), reported);
        assertEquals(10, kept.size());
        assertEquals(10, Origin.offset(kept.iterator().next()));
    }

    @Test
    void aRefusedRecordComingBackThroughARewindIsReportedNotAppended() {
        put(records(P, 0, 9), Map.of());
        refused.refused(P, 4, 0, "why 4");
        refused.rewound(Map.of(P, 0L));
        Collection<SinkRecord> kept = refused.filter(records(P, 0, 9), (r, why) -> reported.add("" + Origin.offset(r)));
        assertEquals(List.of("4"), reported);
        assertEquals(9, kept.size());
    }

    @Test
    void revokedPartitionsHoldNothingBack() {
        put(records(P, 0, 9), Map.of());
        refused.refused(P, 4, 0, "why");
        refused.revoked(List.of(P));
        assertTrue(refused.pending().isEmpty());
    }
}
