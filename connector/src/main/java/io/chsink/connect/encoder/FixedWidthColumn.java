package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;

/** Integers, floats, dates, decimals, UUIDs, enums: a fixed number of little-endian bytes per value. */
public final class FixedWidthColumn extends NativeColumn {
    private final int width;
    private final ByteSink data;
    private int rowStart;

    public FixedWidthColumn(String wireType, int width, int expectedRows) {
        super(wireType);
        this.width = width;
        this.data = new ByteSink(width * Math.max(16, expectedRows));
    }

    public int width() {
        return width;
    }

    public void putByte(int v) {
        data.putByte(v);
    }

    public void putShort(int v) {
        data.putShort(v);
    }

    public void putInt(int v) {
        data.putInt(v);
    }

    public void putLong(long v) {
        data.putLong(v);
    }

    /** Appends exactly {@link #width()} bytes, already little-endian. */
    public void putRaw(byte[] littleEndian) {
        data.putBytes(littleEndian, 0, width);
    }

    @Override
    public void putDefault() {
        data.putZeros(width);
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
