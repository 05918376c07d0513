package io.chsink.connect.cluster;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * The shard a whole block goes to ({@link Routing#WHOLE_BLOCKS}): a function of the block's deduplication token and
 * the shards' weights only, so a block rebuilt after a crash or rebalance (same records, same token) goes to the
 * shard that may already hold it, where the token deduplicates it. Over many blocks each shard gets a share of
 * blocks proportional to its weight, as the Distributed table itself shares rows. Pure logic.
 */
public final class ShardChoice {
    private ShardChoice() {
    }

    /** The {@code shard_num} for {@code token}: SHA-256 of the token, modulo the total weight, over cumulative weights. */
    public static int of(String token, List<Shard> shards) {
        long total = 0;
        for (Shard s : shards) {
            total += Math.max(0, s.weight());
        }
        if (total == 0) { // every weight 0: equal shares
            return shards.get((int) Long.remainderUnsigned(hash(token), shards.size())).number();
        }
        long point = Long.remainderUnsigned(hash(token), total);
        for (Shard s : shards) {
            point -= Math.max(0, s.weight());
            if (point < 0) {
                return s.number();
            }
        }
        throw new IllegalStateException("unreachable");
    }

    static long hash(String token) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
            long h = 0;
            for (int i = 0; i < 8; i++) {
                h = (h << 8) | (d[i] & 0xff);
            }
            return h;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
