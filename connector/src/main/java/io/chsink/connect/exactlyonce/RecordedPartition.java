package io.chsink.connect.exactlyonce;

import io.chsink.connect.block.BlockManifest;
import java.util.List;

/** What the state table holds for one partition when the task gets it ({@link RecordedBlocks#load}). */
public final class RecordedPartition {
    private final List<BlockManifest> blocks;
    private final long blocksBelow;
    private final long epoch;
    private final HandledOffsets.Mark mark;

    public RecordedPartition(List<BlockManifest> blocks, long blocksBelow, long epoch, HandledOffsets.Mark mark) {
        this.blocks = blocks;
        this.blocksBelow = blocksBelow;
        this.epoch = epoch;
        this.mark = mark;
    }

    /** The recorded blocks that end at or after the first offset redelivered, in offset order. */
    public List<BlockManifest> blocks() {
        return blocks;
    }

    /** How many recorded blocks end before the first offset redelivered (never needed again: to be pruned). */
    public long blocksBelow() {
        return blocksBelow;
    }

    /**
     * The partition's epoch: 0 until its offsets are first altered or reset through Connect's REST API, then larger
     * with every such change; it goes into the tokens of blocks built from then on.
     */
    public long epoch() {
        return epoch;
    }

    /** The partition's handled mark ({@link HandledOffsets}), or {@link HandledOffsets.Mark#NONE}. */
    public HandledOffsets.Mark mark() {
        return mark;
    }
}
