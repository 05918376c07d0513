package io.chsink.connect.writer;

import io.chsink.connect.block.TableBlock;

/** Sends one block to ClickHouse and verifies it; runs on an insert thread ({@link BlockInserter} is the real one). */
public interface Inserter {
    /** Inserts and verifies the block; returns the rows the server reported written; throws when it was not. */
    long insert(TableBlock block) throws Exception;
}
