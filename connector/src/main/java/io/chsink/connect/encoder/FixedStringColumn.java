package io.chsink.connect.encoder;

/** FixedString(N): exactly N bytes per value, shorter values padded with zero bytes. */
public final class FixedStringColumn extends SingleStreamColumn {
    private final int length;

    public FixedStringColumn(String wireType, int length, int expectedRows) {
        super(wireType, length * Math.max(16, expectedRows));
        this.length = length;
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
    void skipValues(ByteSink.Reader r, int count) {
        r.skip(count * length);
    }
}
