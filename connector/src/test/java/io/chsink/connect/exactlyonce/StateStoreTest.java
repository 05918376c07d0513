package io.chsink.connect.exactlyonce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.LocalDateTime;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class StateStoreTest {
    @Test
    void epochOnlyGrows() {
        long now = 1_767_225_600_000L;
        assertEquals(now, StateStore.nextEpoch(0, now), "the first reset: the reset's time");
        assertEquals(now + 1, StateStore.nextEpoch(now, now), "two resets within a millisecond");
        assertEquals(now + 6, StateStore.nextEpoch(now + 5, now), "a clock that went back");
        assertEquals(now + 1000, StateStore.nextEpoch(now, now + 1000));
        assertEquals(8, StateStore.nextEpoch(7, 0));
    }

    @Test
    void markerIsNeverLoadedNorPruned() {
        // load(): last_offset >= a Kafka offset (>= 0); prune: first_offset >= 0 only
        assertTrue(StateStore.MARKER_OFFSET < 0);
        // the ReplacingMergeTree's TTL is recorded_at + 30 days, and DateTime ends in 2106: no wrap-around
        LocalDateTime at = LocalDateTime.parse(StateStore.MARKER_RECORDED_AT.replace(' ', 'T'));
        assertTrue(at.plusDays(30).isBefore(LocalDateTime.parse("2106-02-07T06:28:15")), at.toString());
        assertTrue(at.getYear() >= 2100, at.toString());
    }

    @Test
    void partitionKeysAreTopicSlashPartition() {
        assertEquals("events/0,events/11,a.b-c_d/2", StateStore.keys(List.of(new TopicPartition("events", 0),
                new TopicPartition("events", 11), new TopicPartition("a.b-c_d", 2))));
        assertEquals("", StateStore.keys(List.of()));
    }
}
