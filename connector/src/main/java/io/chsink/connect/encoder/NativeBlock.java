package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Objects;
import java.util.function.IntFunction;

/**
 * A block in ClickHouse's Native format under construction: named, typed columns that grow one row at a
 * time. {@link #writeTo(OutputStream)} emits the block exactly as the server's Native input expects it: column
 * count, row count, then per column its name, its type, its serialization prefix and its data.
 * {@link #writeTo(OutputStream, int, int)} emits a range of its rows as a block of their own, for narrowing down the
 * rows of a block the server refused.
 */
public final class NativeBlock {
    private final String[] names;
    private final NativeColumn[] columns;
    private int rows;

    public NativeBlock(String[] names, NativeColumn[] columns) {
        if (names.length != columns.length) {
            throw new IllegalArgumentException("names and columns differ in length");
        }
        this.names = names.clone();
        this.columns = columns.clone();
    }

    public NativeColumn column(int i) {
        return columns[i];
    }

    public int columnCount() {
        return columns.length;
    }

    public int rows() {
        return rows;
    }

    /** Opens a row: every column remembers where it stood, so the row can be withdrawn as a whole. */
    public void beginRow() {
        for (NativeColumn c : columns) {
            c.markRow();
        }
    }

    /** Completes the open row; each column must have received exactly one value since {@link #beginRow()}. */
    public void commitRow() {
        rows++;
    }

    /** Withdraws the open row from every column. */
    public void rollbackRow() {
        for (NativeColumn c : columns) {
            c.rollbackRow();
        }
    }

    public long sizeInBytes() {
        long total = 0;
        for (NativeColumn c : columns) {
            total += c.sizeInBytes();
        }
        return total;
    }

    /**
     * Empties every column for a new block of the same columns, keeping the buffers (see {@link NativeColumn#reset});
     * false when some column cannot be reused, and then the block must not be used again.
     */
    public boolean reset() {
        boolean all = true;
        for (NativeColumn c : columns) {
            all &= c.reset();
        }
        rows = 0;
        return all;
    }

    /** Bytes of heap the columns' buffers take. */
    public long capacityBytes() {
        long total = 0;
        for (NativeColumn c : columns) {
            total += c.capacityBytes();
        }
        return total;
    }

    /**
     * About the bytes rows [fromRow, toRow) take: the block's {@link #sizeInBytes()} in proportion to the rows (exact
     * for fixed-width columns only), a cheap figure for logs.
     */
    public long estimatedBytes(int fromRow, int toRow) {
        Objects.checkFromToIndex(fromRow, toRow, rows);
        return rows == 0 ? 0 : sizeInBytes() * (toRow - fromRow) / rows;
    }

    public void writeTo(OutputStream out) throws IOException {
        write(out, rows, i -> columns[i]);
    }

    /**
     * Writes rows [fromRow, toRow) as a complete block of just those rows, byte for byte what a block that received
     * only them would write (see {@link NativeColumn#slice}), so that the server reads back exactly those rows. The
     * whole range is written as {@link #writeTo(OutputStream)} writes it (which may also list a dictionary key, a
     * Dynamic type or a JSON path that only a withdrawn row used). Nothing is kept per row for this: each column finds
     * the range by reading its buffers back, at a cost linear in the block's bytes per call, which suits the rare
     * calls of narrowing down a refused block.
     *
     * @throws IndexOutOfBoundsException unless {@code 0 <= fromRow <= toRow <= rows()}
     */
    public void writeTo(OutputStream out, int fromRow, int toRow) throws IOException {
        Objects.checkFromToIndex(fromRow, toRow, rows);
        if (fromRow == 0 && toRow == rows) {
            writeTo(out);
            return;
        }
        write(out, toRow - fromRow, i -> columns[i].slice(fromRow, toRow));
    }

    /** The block of {@code rowCount} rows whose column {@code i} is {@code column.apply(i)}. */
    private void write(OutputStream out, int rowCount, IntFunction<ColumnSlice> column) throws IOException {
        ByteSink header = new ByteSink(32);
        header.putVarUInt(columns.length);
        header.putVarUInt(rowCount);
        header.writeTo(out);
        for (int i = 0; i < columns.length; i++) {
            ByteSink colHeader = new ByteSink(64);
            colHeader.putUtf8(names[i]);
            colHeader.putUtf8(columns[i].wireType());
            colHeader.writeTo(out);
            ColumnSlice c = column.apply(i);
            c.writePrefix(out);
            c.writeData(out);
        }
    }
}
