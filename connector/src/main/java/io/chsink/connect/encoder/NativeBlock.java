package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A block in ClickHouse's Native format under construction: named, typed columns that grow one row at a
 * time. {@link #writeTo} emits the block exactly as the server's Native input expects it: column count,
 * row count, then per column its name, its type, its serialization prefix and its data.
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

    public void writeTo(OutputStream out) throws IOException {
        ByteSink header = new ByteSink(32);
        header.putVarUInt(columns.length);
        header.putVarUInt(rows);
        header.writeTo(out);
        for (int i = 0; i < columns.length; i++) {
            ByteSink colHeader = new ByteSink(64);
            colHeader.putUtf8(names[i]);
            colHeader.putUtf8(columns[i].wireType());
            colHeader.writeTo(out);
            columns[i].writePrefix(out);
            columns[i].writeData(out);
        }
    }
}
