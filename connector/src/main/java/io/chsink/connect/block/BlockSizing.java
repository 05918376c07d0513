package io.chsink.connect.block;

/**
 * How the task sizes new blocks and the spares it keeps: one place, read by the task and by the benchmark stand
 * (which must encode exactly as the task does).
 */
public final class BlockSizing {
    /** Rows a new block's column buffers are first sized for (never more than flush.max.rows); they grow as needed. */
    public static final int INITIAL_ROWS = 1024;

    private BlockSizing() {
    }

    /** The row capacity a new block starts with under {@code flush.max.rows}. */
    public static int initialRows(int flushMaxRows) {
        return Math.min(flushMaxRows, INITIAL_ROWS);
    }

    /** Heap the spare blocks of a task may keep: about two full blocks (a block's bytes plus a chunk per stream). */
    public static long spareBytes(long flushMaxBytes) {
        return 2 * flushMaxBytes;
    }
}
