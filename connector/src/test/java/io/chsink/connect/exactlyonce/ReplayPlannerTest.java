package io.chsink.connect.exactlyonce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.block.BlockManifest;
import io.chsink.connect.schema.TableId;
import java.util.Arrays;
import java.util.Collections;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ReplayPlannerTest {
    private static final TableId T = new TableId("db", "t");
    private static final TopicPartition P0 = new TopicPartition("topic", 0);

    private static BlockManifest block(long first, long last, long ts) {
        return new BlockManifest(T, P0, first, last, (int) (last - first + 1), ts,
                BlockManifest.token("c", P0, first, last, ts));
    }

    @Test
    void recordsOfRecordedRangesGoToTheirBlockOthersToNewOnes() {
        ReplayPlanner p = new ReplayPlanner();
        assertFalse(p.isLoaded(P0));
        BlockManifest a = block(100, 199, 7);
        BlockManifest b = block(200, 249, 9);
        assertFalse(p.loaded(P0, Arrays.asList(a, b), 100, 7));
        assertTrue(p.isLoaded(P0));
        assertSame(a, p.blockOf(P0, 100));
        assertSame(a, p.blockOf(P0, 199));
        assertSame(b, p.blockOf(P0, 200));
        assertNull(p.blockOf(P0, 250));
        assertNull(p.blockOf(P0, 99));
        assertNull(p.blockOf(new TopicPartition("topic", 1), 150));
        p.verified(a);
        assertNull(p.blockOf(P0, 150), "a verified block is not rebuilt again");
        assertSame(b, p.blockOf(P0, 220));
        p.revoked(Collections.singleton(P0));
        assertFalse(p.isLoaded(P0));
    }

    @Test
    void recordedBlocksOfAnEarlierTopicOfTheSameNameAreIgnored() {
        ReplayPlanner p = new ReplayPlanner();
        assertTrue(p.loaded(P0, Collections.singletonList(block(0, 99, 1000)), 0, 5000));
        assertTrue(p.isLoaded(P0));
        assertNull(p.blockOf(P0, 50));
    }

    @Test
    void blocksAddedByTheTaskAreRebuiltAfterARewindUntilVerified() {
        ReplayPlanner p = new ReplayPlanner();
        p.loaded(P0, Collections.emptyList(), 0, 1);
        BlockManifest n = block(0, 9, 1);
        p.add(n);
        assertSame(n, p.blockOf(P0, 5));
        assertEquals(1, p.size(P0));
        p.verified(n);
        assertEquals(0, p.size(P0));
    }

    @Test
    void tokenIsDerivedFromTheComposition() {
        assertEquals(block(5, 9, 3).token(), block(5, 9, 3).token());
        assertFalse(block(5, 9, 3).token().equals(block(5, 10, 3).token()));
        assertFalse(block(5, 9, 3).token().equals(block(5, 9, 4).token()));
    }
}
