package io.chsink.connect.offset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/** Polls held back for one read of current rows: the bounds, the order, and the offsets they keep uncommitted. */
class HeldPollsTest {
    private static SinkRecord rec(int partition, long offset) {
        return new SinkRecord("t", partition, null, null, null, "v" + offset, offset);
    }

    @Test
    void holdsUpToOneLessThanThePollsAReadServesAndNeverAnEmptyPoll() {
        HeldPolls h = new HeldPolls(3);
        assertFalse(h.mayHold(List.of(), 0), "an empty poll: the partitions went quiet, nothing waits");
        assertTrue(h.mayHold(List.of(rec(0, 0)), 0));
        h.hold(List.of(rec(0, 0)), 0);
        assertTrue(h.mayHold(List.of(rec(0, 1)), 10));
        h.hold(List.of(rec(0, 1)), 10);
        assertFalse(h.mayHold(List.of(rec(0, 2)), 20), "the third poll is read with the two held");
        assertFalse(new HeldPolls(1).mayHold(List.of(rec(0, 0)), 0), "1: every poll reads at once");
    }

    @Test
    void aPollHeldTooLongStopsTheWait() {
        HeldPolls h = new HeldPolls(8);
        h.hold(List.of(rec(0, 0)), 1_000);
        assertTrue(h.mayHold(List.of(rec(0, 1)), 1_000 + HeldPolls.MAX_HOLD_MS - 1));
        assertFalse(h.mayHold(List.of(rec(0, 1)), 1_000 + HeldPolls.MAX_HOLD_MS));
    }

    @Test
    void theHeldRecordsComeFirstInTheirOrderAndKeepTheirOffsetsUncommitted() {
        HeldPolls h = new HeldPolls(8);
        List<SinkRecord> poll = List.of(rec(1, 7));
        assertSame(poll, h.with(poll), "nothing held: the poll itself");
        h.hold(List.of(rec(0, 5), rec(1, 3)), 0);
        h.hold(List.of(rec(0, 6)), 1);
        assertEquals(Map.of(new TopicPartition("t", 0), 5L, new TopicPartition("t", 1), 3L), h.firstOffsets());
        List<Long> offsets = new ArrayList<>();
        h.with(poll).forEach(r -> offsets.add(r.kafkaOffset()));
        assertEquals(List.of(5L, 3L, 6L, 7L), offsets);
        h.clear();
        assertTrue(h.isEmpty() && h.firstOffsets().isEmpty());
        assertTrue(h.mayHold(poll, 10_000), "cleared: the wait starts again");
    }

    @Test
    void aPartitionRevokedOrSoughtBackLosesItsHeldRecords() {
        HeldPolls h = new HeldPolls(8);
        h.hold(List.of(rec(0, 5), rec(1, 3), rec(0, 6)), 0);
        h.drop(Set.of(new TopicPartition("t", 0)));
        assertEquals(1, h.size());
        assertEquals(Map.of(new TopicPartition("t", 1), 3L), h.firstOffsets());
        h.drop(Set.of(new TopicPartition("t", 1)));
        assertTrue(h.isEmpty() && h.firstOffsets().isEmpty());
    }
}
