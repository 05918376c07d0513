package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/** Nullable(T): a null map (one byte per row, 1 = NULL) followed by the nested column with defaults at NULLs. */
public final class NullableColumn extends NativeColumn {
    private final ByteSink nulls;
    private final NativeColumn nested;
    private int rowStart;

    public NullableColumn(String wireType, NativeColumn nested, int expectedRows) {
        super(wireType);
        this.nested = nested;
        this.nulls = new ByteSink(Math.max(16, expectedRows));
    }

    public NativeColumn nested() {
        return nested;
    }

    public void putNull() {
        nulls.putByte(1);
        nested.putDefault();
    }

    /** Marks the row as not NULL; the caller then appends the value to {@link #nested()}. */
    public void putNotNull() {
        nulls.putByte(0);
    }

    @Override
    public void putDefault() {
        putNull();
    }

    @Override
    public void markRow() {
        rowStart = nulls.size();
        nested.markRow();
    }

    @Override
    public void rollbackRow() {
        nulls.truncate(rowStart);
        nested.rollbackRow();
    }

    @Override
    public boolean reset() {
        if (!nested.reset()) {
            return false;
        }
        nulls.clear();
        rowStart = 0;
        return true;
    }

    @Override
    public long capacityBytes() {
        return nulls.capacity() + nested.capacityBytes();
    }

    @Override
    public long sizeInBytes() {
        return nulls.size() + nested.sizeInBytes();
    }

    @Override
    public void writePrefix(OutputStream out) throws IOException {
        nested.writePrefix(out);
    }

    @Override
    public void writeData(OutputStream out) throws IOException {
        nulls.writeTo(out);
        nested.writeData(out);
    }

    /** The null map's bytes of the range (one per row) and the nested column's slice of the same range. */
    @Override
    ColumnSlice slice(int from, int to) {
        return new CompositeSlice(CompositeSlice.NONE, out -> nulls.writeTo(out, from, to),
                List.of(nested.slice(from, to)));
    }
}
