package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * Array(T), and Map(K, V) which ClickHouse lays out as Array(Tuple(K, V)): per row the running total of elements
 * as a UInt64 offset, then the nested column holding every row's elements back to back. Nested prefixes (e.g. a
 * LowCardinality element's key version) come before any data, as the Native format expects.
 */
public final class ArrayColumn extends NativeColumn {
    private final NativeColumn nested;
    private final ByteSink offsets;
    private long total;
    private long lastLength;
    private int offsetsMark;
    private long totalMark;

    public ArrayColumn(String wireType, NativeColumn nested, int expectedRows) {
        super(wireType);
        this.nested = nested;
        this.offsets = new ByteSink(8 * Math.max(16, expectedRows));
    }

    /** The column the elements of the open array are appended to. */
    public NativeColumn nested() {
        return nested;
    }

    /** Closes the current row's array after {@code length} elements were appended to {@link #nested()}. */
    public void endArray(int length) {
        total += length;
        lastLength = length;
        offsets.putLong(total);
    }

    /** The number of elements of the last array closed. */
    public long lastLength() {
        return lastLength;
    }

    @Override
    public void putDefault() {
        endArray(0);
    }

    @Override
    public void markRow() {
        offsetsMark = offsets.size();
        totalMark = total;
        nested.markRow();
    }

    @Override
    public void rollbackRow() {
        offsets.truncate(offsetsMark);
        total = totalMark;
        nested.rollbackRow();
    }

    @Override
    public long sizeInBytes() {
        return offsets.size() + nested.sizeInBytes();
    }

    @Override
    public void writePrefix(OutputStream out) throws IOException {
        nested.writePrefix(out);
    }

    @Override
    public void writeData(OutputStream out) throws IOException {
        offsets.writeTo(out);
        nested.writeData(out);
    }

    /**
     * The range's offsets less the elements of the rows before it, and the nested column's slice of the range's
     * elements: the offsets before and at the range's end say which (two reads of the offsets).
     */
    @Override
    ColumnSlice slice(int from, int to) {
        long first = from == 0 ? 0 : offsets.reader((from - 1) * Long.BYTES).readLong();
        long last = to == from ? first : offsets.reader((to - 1) * Long.BYTES).readLong();
        return new CompositeSlice(CompositeSlice.NONE, out -> writeOffsets(out, from, to, first),
                List.of(nested.slice((int) first, (int) last)));
    }

    private void writeOffsets(OutputStream out, int from, int to, long first) throws IOException {
        ByteSink.Reader r = offsets.reader(from * Long.BYTES);
        UIntWriter w = new UIntWriter(out, (long) (to - from) * Long.BYTES);
        for (int i = from; i < to; i++) {
            w.put(r.readLong() - first, Long.BYTES);
        }
        w.finish();
    }
}
