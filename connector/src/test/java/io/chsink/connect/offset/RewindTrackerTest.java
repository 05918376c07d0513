package io.chsink.connect.offset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class RewindTrackerTest {
    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);

    private static SinkRecord rec(int partition, long offset) {
        return new SinkRecord("t", partition, null, null, null, "v", offset);
    }

    @Test
    void recordsOfTheCurrentBatchFromTheRewindPointOnAreSkipped() {
        RewindTracker r = new RewindTracker();
        r.requested(Collections.singletonMap(P0, 100L));
        assertFalse(r.skip(rec(0, 99)), "before the rewind point: not redelivered");
        assertTrue(r.skip(rec(0, 100)));
        assertTrue(r.skip(rec(0, 150)));
        assertFalse(r.skip(rec(1, 150)), "another partition");
        assertEquals(100L, r.pending().get(P0));
    }

    @Test
    void aRecordOfALaterBatchEndsTheRewind() {
        RewindTracker r = new RewindTracker();
        r.requested(Collections.singletonMap(P0, 100L));
        r.batchDone();
        assertFalse(r.skip(rec(1, 7)));
        assertEquals(100L, r.pending().get(P0), "nothing of P0 re-read yet");
        assertFalse(r.skip(rec(0, 100)), "after the seek the record is wanted");
        assertTrue(r.pending().isEmpty());
    }

    @Test
    void pendingRewindsCapCommittableOffsetsAndRevocationForgetsThem() {
        RewindTracker r = new RewindTracker();
        Map<TopicPartition, Long> to = new HashMap<>();
        to.put(P0, 100L);
        to.put(P1, 40L);
        r.requested(to);
        r.requested(Collections.singletonMap(P0, 120L));
        assertEquals(100L, r.pending().get(P0), "the earliest rewind point wins");
        Map<TopicPartition, OffsetAndMetadata> consumed = new HashMap<>();
        consumed.put(P0, new OffsetAndMetadata(500));
        consumed.put(P1, new OffsetAndMetadata(500));
        Map<TopicPartition, OffsetAndMetadata> out = OffsetTracker.committable(consumed, Collections.emptyList(),
                r.pending());
        assertEquals(100, out.get(P0).offset());
        assertEquals(40, out.get(P1).offset());
        r.revoked(Collections.singletonList(P1));
        assertFalse(r.pending().containsKey(P1));
    }
}
