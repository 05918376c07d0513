package io.chsink.connect.exactlyonce;

import io.chsink.connect.block.BlockManifest;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * Which recorded block, if any, a record of an owned partition belongs to. A partition's recorded blocks are
 * loaded once, when its first record arrives after the task got it (they are the blocks that may not be
 * committed); blocks recorded by this task are added as they are submitted; a block leaves once its insert is
 * verified (its records cannot come to this task again: rewinds only go back to blocks not yet verified).
 */
public final class ReplayPlanner {
    private final Map<TopicPartition, NavigableMap<Long, BlockManifest>> recorded = new HashMap<>();

    /** Whether the partition's recorded blocks were loaded since the task got it. */
    public boolean isLoaded(TopicPartition tp) {
        return recorded.containsKey(tp);
    }

    /**
     * The partition's recorded blocks, loaded from the state table for its first redelivered record. When that
     * record starts a recorded block but its Kafka timestamp differs from the recorded one, the blocks are of
     * another life of the topic (deleted and re-created under the same name) and are ignored; returns whether
     * they were.
     */
    public boolean loaded(TopicPartition tp, List<BlockManifest> blocks, long firstOffset, long firstTimestamp) {
        NavigableMap<Long, BlockManifest> m = new TreeMap<>();
        for (BlockManifest b : blocks) {
            if (b.firstOffset() == firstOffset && b.firstTimestamp() != firstTimestamp) {
                recorded.put(tp, new TreeMap<>());
                return true;
            }
            m.put(b.firstOffset(), b);
        }
        recorded.put(tp, m);
        return false;
    }

    /** The partition's recorded blocks are of an earlier topic of the same name: none is rebuilt. */
    public void forget(TopicPartition tp) {
        recorded.put(tp, new TreeMap<>());
    }

    /** The recorded block holding this offset, or null: the record goes to a new block. */
    public BlockManifest blockOf(TopicPartition tp, long offset) {
        NavigableMap<Long, BlockManifest> m = recorded.get(tp);
        if (m == null || m.isEmpty()) {
            return null;
        }
        Map.Entry<Long, BlockManifest> e = m.floorEntry(offset);
        return e != null && e.getValue().contains(offset) ? e.getValue() : null;
    }

    /** A block this task is about to insert. */
    public void add(BlockManifest b) {
        recorded.computeIfAbsent(b.partition(), k -> new TreeMap<>()).put(b.firstOffset(), b);
    }

    /** The block's insert is verified. */
    public void verified(BlockManifest b) {
        NavigableMap<Long, BlockManifest> m = recorded.get(b.partition());
        if (m != null) {
            m.remove(b.firstOffset(), b);
        }
    }

    public void revoked(Collection<TopicPartition> partitions) {
        recorded.keySet().removeAll(partitions);
    }

    /** How many recorded blocks are known for the partition (for logs and tests). */
    public int size(TopicPartition tp) {
        NavigableMap<Long, BlockManifest> m = recorded.get(tp);
        return m == null ? 0 : m.size();
    }
}
