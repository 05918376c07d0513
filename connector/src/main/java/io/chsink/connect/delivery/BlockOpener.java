package io.chsink.connect.delivery;

import io.chsink.connect.block.BlockKey;
import io.chsink.connect.block.TableBlock;

/**
 * The open block of a key, opened (and put in the buffer) when there is none: the task's job, as it owns the table
 * mappings and the spare buffers.
 */
public interface BlockOpener {
    /** The key's open block; null when the table does not exist and its records go to the error reporter. */
    TableBlock open(BlockKey key, String topic);
}
