package io.chsink.connect.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ShardChoiceTest {
    private static final List<Shard> ONE_TO_THREE = List.of(new Shard(1, 1, "a", 9000, ""),
            new Shard(2, 3, "b", 9000, ""));

    @Test
    void theSameTokenAlwaysGoesToTheSameShard() {
        String token = "sink/events/3/1000-1999/1733500000000";
        int first = ShardChoice.of(token, ONE_TO_THREE);
        for (int i = 0; i < 10; i++) {
            assertEquals(first, ShardChoice.of(token, ONE_TO_THREE));
        }
    }

    @Test
    void blocksAreSharedByWeight() {
        int[] counts = new int[3];
        for (int i = 0; i < 40_000; i++) {
            counts[ShardChoice.of("sink/t/0/" + i * 500 + "-" + (i * 500 + 499) + "/0", ONE_TO_THREE)]++;
        }
        assertEquals(0, counts[0]);
        double share = counts[2] / 40_000.0;
        assertTrue(share > 0.73 && share < 0.77, "weight 3 of 4 got " + share);
    }

    @Test
    void zeroWeightsGetNothingUnlessAllAreZero() {
        List<Shard> zeroFirst = List.of(new Shard(1, 0, "a", 9000, ""), new Shard(2, 1, "b", 9000, ""));
        for (int i = 0; i < 100; i++) {
            assertEquals(2, ShardChoice.of("t" + i, zeroFirst));
        }
        List<Shard> allZero = List.of(new Shard(1, 0, "a", 9000, ""), new Shard(2, 0, "b", 9000, ""));
        boolean[] seen = new boolean[3];
        for (int i = 0; i < 100; i++) {
            seen[ShardChoice.of("t" + i, allZero)] = true;
        }
        assertTrue(seen[1] && seen[2]);
    }
}
