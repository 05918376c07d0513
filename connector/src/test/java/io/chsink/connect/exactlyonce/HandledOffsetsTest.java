package io.chsink.connect.exactlyonce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.block.BlockManifest;
import io.chsink.connect.exactlyonce.HandledOffsets.Decision;
import io.chsink.connect.exactlyonce.HandledOffsets.Mark;
import io.chsink.connect.exactlyonce.HandledOffsets.Outcome;
import io.chsink.connect.schema.TableId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The branches of the handled marks that the delivery's tests do not reach. */
class HandledOffsetsTest {
    private static final TopicPartition P = new TopicPartition("t", 0);
    private static final TopicPartition Q = new TopicPartition("t", 1);

    private static BlockManifest block(TopicPartition tp, long first, long last) {
        return new BlockManifest(new TableId("db", "t"), tp, first, last, (int) (last - first + 1), 1000 + first, "x");
    }

    @Test
    void aMarkWithoutAnAnchorIsIgnoredWithAWarning() {
        HandledOffsets h = new HandledOffsets();
        Outcome o = h.first(P, new Mark(50, -1, 0), 0, List.of(), 20, 1020);
        assertEquals(Decision.KEEP, o.decision());
        assertTrue(o.warn() && o.log().contains("records from 20 to 49 are written again"), o.log());
        assertEquals(Decision.KEEP, h.next(P, 21, 1021).decision());
        assertEquals(Map.of(), h.unsettled());
    }

    @Test
    void anAnchorNoLongerInThePartitionLeavesTheMarkIgnoredAndSeeksBack() {
        HandledOffsets h = new HandledOffsets();
        Outcome o = h.first(P, new Mark(50, 40, 1040), 0, List.of(), 20, 1020);
        assertEquals(40, o.seekTo());
        assertEquals(Decision.DROP, h.next(P, 21, 1021).decision(), "the rest of the batch comes again");
        h.batchDone();
        Outcome after = h.next(P, 43, 1043); // 40..42 were deleted or compacted: cannot tell
        assertEquals(Decision.DROP, after.decision());
        assertEquals(20, after.seekTo(), "read again from where Connect started");
        assertTrue(after.warn() && after.log().contains("the anchor record 40 is not in the partition"), after.log());
        assertEquals(Map.of(P, 20L), h.unsettled());
        h.batchDone();
        assertEquals(Decision.KEEP, h.next(P, 20, 1020).decision());
        assertEquals(Decision.KEEP, h.next(P, 21, 1021).decision());
        assertEquals(Map.of(), h.unsettled());
        assertEquals(Mark.NONE, h.stored(P), "the next mark written replaces the stale one");
        assertEquals(new Mark(22, -1, 0), h.toStore(P, 22));
    }

    @Test
    void theStartAtOrPastTheMarkDropsNothing() {
        HandledOffsets h = new HandledOffsets();
        assertEquals(Decision.KEEP, h.first(P, new Mark(50, 40, 1040), 0, List.of(), 50, 1050).decision());
        assertTrue(h.keepsFrom(P, 50));
        assertNull(h.toStore(P, 50), "marks only grow");
        assertNull(h.toStore(P, 10));
        assertEquals(new Mark(60, 40, 1040), h.toStore(P, 60), "no block verified since: the old anchor still is one");
        h.verified(block(P, 50, 59));
        h.verified(block(P, 60, 69));
        assertEquals(new Mark(70, 60, 1060), h.toStore(P, 70));
        assertEquals(new Mark(65, 50, 1050), h.toStore(P, 65), "the newest block wholly below the mark");
    }

    @Test
    void aPruneIsDueAtTheThresholdAndTakesEveryPartitionWithBlocksBelowItsBound() {
        HandledOffsets h = new HandledOffsets();
        h.first(P, Mark.NONE, 0, List.of(), 0, 1000);
        h.first(Q, Mark.NONE, 0, List.of(), 0, 1000);
        List<BlockManifest> q = new ArrayList<>();
        for (int i = 0; i < HandledOffsets.PRUNE_AFTER_BLOCKS; i++) {
            h.recorded(block(P, i, i));
            if (i < 3) {
                h.recorded(block(Q, i, i));
            }
        }
        h.stored(P, new Mark(HandledOffsets.PRUNE_AFTER_BLOCKS - 1, -1, 0));
        h.stored(Q, new Mark(3, -1, 0));
        assertEquals(Map.of(), h.toPrune(), "63 and 3 blocks below their marks: not yet");
        h.stored(P, new Mark(HandledOffsets.PRUNE_AFTER_BLOCKS, -1, 0));
        Map<TopicPartition, Long> due = h.toPrune();
        assertEquals(Map.of(P, (long) HandledOffsets.PRUNE_AFTER_BLOCKS, Q, 3L), due);
        h.pruned(due);
        assertEquals(0, h.recordedBlocks(P));
        assertEquals(0, h.recordedBlocks(Q));
        assertEquals(Map.of(), h.toPrune());
    }

    @Test
    void aPartitionBeingCheckedIsNeitherPrunedNorGivenAMark() {
        HandledOffsets h = new HandledOffsets();
        h.first(P, new Mark(50, 40, 1040), 7, List.of(block(P, 30, 39)), 20, 1020);
        assertEquals(Map.of(), h.toPrune(), "7 blocks below the start, but the mark is unsettled");
        assertNull(h.toStore(P, 20));
        h.batchDone();
        assertEquals(Decision.DROP, h.next(P, 40, 1040).decision(), "the anchor holds");
        assertEquals(Map.of(P, 50L), h.toPrune(), "below the start and the block below the mark");
    }

    @Test
    void marksAreStoredOnlyWhenTheyMakeAPruneDue() {
        HandledOffsets h = new HandledOffsets();
        h.first(P, Mark.NONE, 0, List.of(), 0, 1000);
        h.first(Q, Mark.NONE, 0, List.of(), 0, 1000);
        for (int i = 0; i < HandledOffsets.PRUNE_AFTER_BLOCKS; i++) {
            h.recorded(block(P, i, i));
            h.verified(block(P, i, i));
        }
        h.recorded(block(Q, 0, 9));
        h.verified(block(Q, 0, 9));
        assertEquals(Map.of(), h.toStore(Map.of(P, 63L, Q, 10L)), "63 and 1 blocks below: nothing to write");
        Map<TopicPartition, Mark> marks = h.toStore(Map.of(P, 64L, Q, 10L));
        assertEquals(Map.of(P, new Mark(64, 63, 1063), Q, new Mark(10, 0, 1000)), marks, "every mark that grows");
    }
}
