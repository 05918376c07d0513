package io.chsink.connect.exactlyonce;

import io.chsink.connect.block.BlockManifest;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** The durable record of block compositions that exactly_once relies on ({@link StateStore} is the real one). */
public interface RecordedBlocks {
    /**
     * What the state table holds for a partition whose first record since the task got it is at {@code fromOffset}:
     * the recorded blocks that end at or after it (the ones that may not be committed yet), how many end before it,
     * its epoch and its handled mark.
     */
    RecordedPartition load(TopicPartition tp, long fromOffset);

    /** The state table's engine (KeeperMap, ReplacingMergeTree, ...): whether every replica sees it. */
    String engine();

    /** Writes the manifest; returns when it is durable. */
    void record(BlockManifest m);

    /** Writes the partitions' handled marks (one statement); returns when they are durable. */
    void storeMarks(Map<TopicPartition, HandledOffsets.Mark> marks);

    /** Deletes each partition's recorded blocks that end below its bound (one statement). */
    void prune(Map<TopicPartition, Long> below);
}
