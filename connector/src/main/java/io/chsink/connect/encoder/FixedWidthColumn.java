package io.chsink.connect.encoder;

/** Integers, floats, dates, decimals, UUIDs, enums: a fixed number of little-endian bytes per value. */
public final class FixedWidthColumn extends SingleStreamColumn {
    private final int width;

    public FixedWidthColumn(String wireType, int width, int expectedRows) {
        super(wireType, width * Math.max(16, expectedRows));
        this.width = width;
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
    void skipValues(ByteSink.Reader r, int count) {
        r.skip(count * width);
    }
}
