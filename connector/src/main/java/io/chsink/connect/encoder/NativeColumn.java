package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;

/**
 * One column of a Native block under construction: typed values appended row by row, serialized in
 * ClickHouse's Native column layout. A row is opened with {@link #markRow()} and can be withdrawn with
 * {@link #rollbackRow()} when a later column of the same record rejects its value. {@link #slice} serializes a range
 * of the values alone, found by reading the buffers back: appending keeps no per-row positions for it.
 */
public abstract class NativeColumn implements ColumnSlice {
    private final String wireType;

    protected NativeColumn(String wireType) {
        this.wireType = wireType;
    }

    /** The type written into the block header (the table's type, or one ClickHouse converts from). */
    public final String wireType() {
        return wireType;
    }

    /** Appends the type's default value (zero, empty string) for a row that carries no value. */
    public abstract void putDefault();

    public abstract void markRow();

    public abstract void rollbackRow();

    /**
     * Bytes written to this column so far (what flush.max.bytes and buffer.max.bytes count). The buffers behind
     * them grow by chunks ({@link ByteSink}), so the heap they take is this plus at most one chunk per stream.
     */
    public abstract long sizeInBytes();

    /**
     * Empties the column for reuse by a new block, keeping its buffers, so that the table's next block writes into
     * memory that is already there instead of growing new buffers from a small start. Returns false, leaving the
     * column as it was, when the column cannot be reused (the default).
     */
    public boolean reset() {
        return false;
    }

    /** Bytes of heap the column's buffers take (by default what was written). */
    public long capacityBytes() {
        return sizeInBytes();
    }

    /**
     * Writes the serialization state prefix: non-empty for LowCardinality, Variant, Dynamic and JSON, and for the
     * columns holding them, which write their parts' prefixes.
     */
    @Override
    public void writePrefix(OutputStream out) throws IOException {
    }

    /** Writes the column's data for all rows. */
    @Override
    public abstract void writeData(OutputStream out) throws IOException;

    /**
     * Values [from, to) of this column (rows of a block's column; elements of an array's; the values of one type of
     * a Variant or Dynamic) serialized as a column that received just those values would write them: byte for byte,
     * so a dictionary, a type list or a path list holds what those values use, in the order they first use it, and
     * withdrawn rows leave no trace. The one exception is a JSON path that every value of the range holds NULL at: it
     * is left out (see {@link JsonColumn}). Finding the range reads the column's buffers from their start, each a
     * bounded number of times, so the cost is linear in the column's bytes; only what is renumbered (indexes,
     * offsets) or reordered (a dictionary's keys) is copied, the rest is written from the buffers. The slice is valid
     * until the column changes.
     */
    abstract ColumnSlice slice(int from, int to);
}
