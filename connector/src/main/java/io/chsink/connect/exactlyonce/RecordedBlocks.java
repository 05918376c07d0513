package io.chsink.connect.exactlyonce;

import io.chsink.connect.block.BlockManifest;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/** The durable record of block compositions that exactly_once relies on ({@link StateStore} is the real one). */
public interface RecordedBlocks {
    /**
     * The recorded blocks of a partition whose range ends at or after {@code fromOffset} (the first offset
     * redelivered), in offset order: the ones that may not be committed yet.
     */
    List<BlockManifest> load(TopicPartition tp, long fromOffset);

    /**
     * The partition's epoch: 0 until its offsets are first altered or reset through Connect's REST API, then larger
     * with every such change; it goes into the tokens of blocks built from then on.
     */
    long epoch(TopicPartition tp);

    /** The state table's engine (KeeperMap, ReplacingMergeTree, ...): whether every replica sees it. */
    String engine();

    /** Writes the manifest; returns when it is durable. */
    void record(BlockManifest m);
}
