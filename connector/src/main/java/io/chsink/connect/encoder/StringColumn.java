package io.chsink.connect.encoder;

/** String: each value is a varint length followed by its bytes. */
public final class StringColumn extends SingleStreamColumn {
    public StringColumn(String wireType, int expectedRows) {
        super(wireType, 32 * Math.max(16, expectedRows));
    }

    public void putString(String s) {
        data.putUtf8(s);
    }

    public void putBytes(byte[] bytes, int off, int len) {
        data.putVarUInt(len);
        data.putBytes(bytes, off, len);
    }

    @Override
    public void putDefault() {
        data.putByte(0);
    }

    /** Reads each value's length and skips its bytes. */
    @Override
    void skipValues(ByteSink.Reader r, int count) {
        for (int i = 0; i < count; i++) {
            r.skip((int) r.readVarUInt());
        }
    }
}
