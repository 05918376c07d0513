package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;

/** FixedString(N): exactly N bytes per value, shorter values padded with zero bytes. */
public final class FixedStringColumn extends NativeColumn {
    private final int length;
    private final ByteSink data;
    private int rowStart;

    public FixedStringColumn(String wireType, int length, int expectedRows) {
        super(wireType);
        this.length = length;
        this.data = new ByteSink(length * Math.max(16, expectedRows));
    }

    public int length() {
        return length;
    }

    /** Appends a value of at most {@link #length()} bytes; the caller checks the length. */
    public void putBytes(byte[] bytes) {
        data.putBytes(bytes, 0, bytes.length);
        data.putZeros(length - bytes.length);
    }

    @Override
    public void putDefault() {
        data.putZeros(length);
    }

    @Override
    public void markRow() {
        rowStart = data.size();
    }

    @Override
    public void rollbackRow() {
        data.truncate(rowStart);
    }

    @Override
    public long sizeInBytes() {
        return data.capacity();
    }

    @Override
    public void writeData(OutputStream out) throws IOException {
        data.writeTo(out);
    }
}
