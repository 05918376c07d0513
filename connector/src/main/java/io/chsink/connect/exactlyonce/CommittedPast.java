package io.chsink.connect.exactlyonce;

import io.chsink.connect.block.BlockManifest;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * The verified blocks a commit has not yet passed, per partition. Their records stay in the state table until a commit
 * passes them, and a restart rebuilds every recorded block at or after the committed offset: a commit inside one of
 * them (Connect's offset after a seek back, while refused rows are read again) would have the restart rebuild it
 * from there, a shorter block sent with the whole block's token, which the parts of a narrowed insert did not use.
 * So such a commit stays at the block's first offset ({@link #bound}).
 */
final class CommittedPast {
    /** Per partition, first offset to last offset of each verified block not yet committed past. */
    private final Map<TopicPartition, NavigableMap<Long, Long>> blocks = new HashMap<>();

    void verified(BlockManifest b) {
        blocks.computeIfAbsent(b.partition(), k -> new TreeMap<>()).put(b.firstOffset(), b.lastOffset());
    }

    /** Offsets about to be committed: the blocks they pass are no longer rebuilt. */
    void committing(TopicPartition tp, long offset) {
        NavigableMap<Long, Long> m = blocks.get(tp);
        if (m == null) {
            return;
        }
        m.headMap(offset, false).values().removeIf(last -> last < offset);
        if (m.isEmpty()) {
            blocks.remove(tp);
        }
    }

    /** The offset to commit instead of {@code offset}: the first offset of the block it falls inside, or itself. */
    long bound(TopicPartition tp, long offset) {
        NavigableMap<Long, Long> m = blocks.get(tp);
        if (m == null) {
            return offset;
        }
        Map.Entry<Long, Long> e = m.floorEntry(offset);
        return e != null && e.getKey() < offset && offset <= e.getValue() ? e.getKey() : offset;
    }

    void revoked(Collection<TopicPartition> partitions) {
        blocks.keySet().removeAll(partitions);
    }
}
