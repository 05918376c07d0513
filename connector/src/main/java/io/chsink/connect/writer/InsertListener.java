package io.chsink.connect.writer;

import io.chsink.connect.block.TableBlock;

/** What the insert threads report as it happens (for metrics); called on insert threads, so it must be thread-safe. */
public interface InsertListener {
    InsertListener NONE = new InsertListener() {
    };

    /** An attempt failed with a retriable error and will be retried. */
    default void retried(TableBlock block, InsertFailure failure) {
    }

    /** One attempt's duration, failed or not. */
    default void attempted(TableBlock block, long elapsedMs, boolean success) {
    }
}
