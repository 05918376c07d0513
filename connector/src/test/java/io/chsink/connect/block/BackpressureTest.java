package io.chsink.connect.block;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.testing.RecordingConsumption;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class BackpressureTest {
    private static final TopicPartition P0 = new TopicPartition("a", 0);
    private static final TopicPartition P1 = new TopicPartition("a", 1);
    private static final TopicPartition P2 = new TopicPartition("a", 2);
    private static final Set<TopicPartition> ALL = Set.of(P0, P1, P2);

    private final RecordingConsumption consumer = new RecordingConsumption();
    private final Backpressure bp = new Backpressure(1000, consumer);

    @Test
    void pausesEveryPartitionAtTheBoundAndResumesBelowIt() {
        bp.apply(999, () -> ALL, List.of(), 0, () -> "");
        assertFalse(bp.isPaused());
        assertTrue(consumer.paused.isEmpty());
        bp.apply(1000, () -> ALL, List.of(), 1, () -> "");
        assertTrue(bp.isPaused());
        assertEquals(ALL, consumer.paused);
        bp.apply(1500, () -> ALL, List.of(), 2, () -> "");
        assertEquals(1, consumer.pauses, "paused once");
        bp.apply(10, () -> ALL, List.of(), 3, () -> "");
        assertFalse(bp.isPaused());
        assertTrue(consumer.paused.isEmpty());
    }

    @Test
    void theOldestBlockThatMustCompleteKeepsItsPartitionConsumed() {
        bp.apply(5000, () -> ALL, List.of(P1, P2), 0, () -> "");
        assertEquals(Set.of(P0, P2), consumer.paused, "P1's rebuild goes on beyond the bound");
        bp.apply(5000, () -> ALL, List.of(P2), 1, () -> "");
        assertEquals(Set.of(P0, P1), consumer.paused, "P1's rebuild is whole: P2's goes on next");
        bp.apply(5000, () -> ALL, List.of(), 2, () -> "");
        assertEquals(ALL, consumer.paused);
        bp.apply(5000, () -> ALL, List.of(P2), 3, () -> "");
        assertEquals(Set.of(P0, P1), consumer.paused, "a partition paused meanwhile goes on when it must complete again");
        bp.apply(0, () -> ALL, List.of(), 3, () -> "");
        assertTrue(consumer.paused.isEmpty());
    }

    @Test
    void partitionsAssignedWhilePausedArePausedAndRevokedOnesForgotten() {
        bp.apply(5000, () -> Set.of(P0), List.of(), 0, () -> "");
        bp.opened(List.of(P1));
        assertEquals(Set.of(P0, P1), consumer.paused);
        bp.revoked(List.of(P0));
        assertEquals(Set.of(P1), bp.paused());
        bp.apply(0, () -> Set.of(P1), List.of(), 1, () -> "");
        assertEquals(Set.of(P0), consumer.paused, "only what it still owns is resumed");
    }

    @Test
    void aStalledTaskDescribesItselfOnlyAfterAMinuteWithoutProgress() {
        int[] described = {0};
        bp.apply(5000, () -> ALL, List.of(), 0, () -> "s" + described[0]++);
        bp.apply(5000, () -> ALL, List.of(), Backpressure.STALL_WARN_MS - 1, () -> "s" + described[0]++);
        assertEquals(0, described[0]);
        bp.progressed(30_000);
        bp.apply(5000, () -> ALL, List.of(), Backpressure.STALL_WARN_MS + 1, () -> "s" + described[0]++);
        assertEquals(0, described[0], "an insert completed 30 s ago");
        bp.apply(5000, () -> ALL, List.of(), 30_000 + Backpressure.STALL_WARN_MS, () -> "s" + described[0]++);
        assertEquals(1, described[0]);
        bp.apply(5000, () -> ALL, List.of(), 30_001 + Backpressure.STALL_WARN_MS, () -> "s" + described[0]++);
        assertEquals(1, described[0], "once a minute");
    }
}
