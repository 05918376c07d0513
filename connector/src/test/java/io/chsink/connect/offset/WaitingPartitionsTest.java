package io.chsink.connect.offset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.testing.RecordingConsumption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class WaitingPartitionsTest {
    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);

    private final RecordingConsumption consumer = new RecordingConsumption();
    private final WaitingPartitions waits = new WaitingPartitions(consumer);

    @Test
    void aWaitingPartitionIsPausedForLongerEachTimeItWaitsAgainUpToASecond() {
        long now = 1_000;
        List<Long> pauses = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            waits.waiting(A0, now);
            assertTrue(consumer.paused.contains(A0));
            long pause = waits.millisUntilDue(now);
            pauses.add(pause);
            waits.resumeDue(now + pause - 1, false);
            assertTrue(consumer.paused.contains(A0), "not before its pause is over");
            now += pause;
            waits.resumeDue(now, false);
            assertFalse(consumer.paused.contains(A0), "resumed when it is over");
            assertEquals(-1, waits.millisUntilDue(now));
        }
        assertEquals(List.of(50L, 100L, 200L, 400L, 800L, 1_000L, 1_000L), pauses);
        waits.resumeDue(now + 1_001, false);
        waits.waiting(A0, now + 1_001);
        assertEquals(50, waits.millisUntilDue(now + 1_001), "a partition that stopped waiting starts over");
    }

    @Test
    void moreRecordsOfAPausedPartitionDoNotPauseItAgainAndOthersAreLeftAlone() {
        waits.waiting(A0, 0);
        waits.waiting(A0, 10); // the rest of its batch, after the seek
        assertEquals(40, waits.millisUntilDue(10));
        assertEquals(Set.of(A0), consumer.paused);
        waits.resumeDue(50, false);
        assertEquals(List.of(A0), consumer.resumed, "one resume, of the waiting partition only");
        assertFalse(consumer.paused.contains(A1));
    }

    @Test
    void whileTheTaskIsPausedAtItsBoundTheBoundResumesIt() {
        waits.waiting(A0, 0);
        waits.resumeDue(60, true);
        assertTrue(consumer.resumed.isEmpty(), "left to the bound's resume");
        assertFalse(waits.isPaused(A0));
        assertEquals(-1, waits.millisUntilDue(60));
    }

    @Test
    void aRevokedPartitionIsForgottenAndResumedWhenAssignedAgain() {
        waits.waiting(A1, 0);
        waits.waiting(A0, 40);
        waits.resumeDue(60, false); // A1 is no longer paused, A0 is until 90
        consumer.resumed.clear();
        waits.revoked(List.of(A0, A1));
        assertFalse(waits.isPaused(A0));
        waits.resumeDue(100, false);
        assertTrue(consumer.resumed.isEmpty(), "nothing resumed while not assigned");
        assertEquals(-1, waits.millisUntilDue(100));
        // Connect pauses A0 again when the rebalance gives it back (it keeps the task's paused partitions).
        waits.opened(List.of(A0, A1));
        assertEquals(List.of(A0), consumer.resumed, "resumed once assigned again; A1 was not paused");
        waits.opened(List.of(A0));
        assertEquals(List.of(A0), consumer.resumed, "once");
    }
}
