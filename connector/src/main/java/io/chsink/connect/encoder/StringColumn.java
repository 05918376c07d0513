package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;

/** String: each value is a varint length followed by its bytes. */
public final class StringColumn extends NativeColumn {
    private final ByteSink data;
    private int rowStart;

    public StringColumn(String wireType, int expectedRows) {
        super(wireType);
        this.data = new ByteSink(32 * Math.max(16, expectedRows));
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
