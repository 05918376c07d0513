package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;

/** A column whose Native serialization is one byte stream (no null map, no dictionary). */
abstract class SingleStreamColumn extends NativeColumn {
    protected final ByteSink data;
    private int rowStart;

    SingleStreamColumn(String wireType, int initialBytes) {
        super(wireType);
        this.data = new ByteSink(initialBytes);
    }

    @Override
    public final void markRow() {
        rowStart = data.size();
    }

    @Override
    public final void rollbackRow() {
        data.truncate(rowStart);
    }

    @Override
    public boolean reset() {
        data.clear();
        rowStart = 0;
        return true;
    }

    @Override
    public long capacityBytes() {
        return data.capacity();
    }

    @Override
    public final long sizeInBytes() {
        return data.size();
    }

    @Override
    public final void writeData(OutputStream out) throws IOException {
        data.writeTo(out);
    }

    /** The bytes of values [from, to), found by reading past the values before them. */
    @Override
    final ColumnSlice slice(int from, int to) {
        ByteSink.Reader r = data.reader(0);
        skipValues(r, from);
        int start = r.position();
        skipValues(r, to - from);
        int end = r.position();
        return out -> data.writeTo(out, start, end);
    }

    /** Moves {@code r} past {@code count} values of the stream. */
    abstract void skipValues(ByteSink.Reader r, int count);
}
