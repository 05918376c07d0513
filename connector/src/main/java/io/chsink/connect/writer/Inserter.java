package io.chsink.connect.writer;

import io.chsink.connect.block.TableBlock;

/** Sends one block to ClickHouse and verifies it; runs on an insert thread ({@link BlockInserter} is the real one). */
public interface Inserter {
    /** Inserts and verifies the block; returns the rows the server reported written; throws when it was not. */
    long insert(TableBlock block) throws Exception;

    /**
     * Inserts rows [from, to) of the block on their own: a part of a block narrowed down to the rows ClickHouse
     * refuses ({@link Narrowing}). exactly_once gives the part a token of its own, made from the block's.
     */
    default long insert(TableBlock block, int from, int to) throws Exception {
        if (from == 0 && to == block.rows()) {
            return insert(block);
        }
        throw new UnsupportedOperationException("this inserter cannot insert part of a block");
    }
}
