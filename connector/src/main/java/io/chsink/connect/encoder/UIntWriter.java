package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Little-endian unsigned integers computed while a column is written (dictionary indexes, type indexes, offsets of a
 * slice) sent to the stream through a small buffer: no copy of a whole column is made for them.
 */
final class UIntWriter {
    private static final int FLUSH_AT = 16 * 1024;

    private final OutputStream out;
    private final ByteSink buf;

    /** {@code expectedBytes}: about how many bytes will be written (sizes the buffer, up to its bound). */
    UIntWriter(OutputStream out, long expectedBytes) {
        this.out = out;
        this.buf = new ByteSink((int) Math.min(FLUSH_AT + 8, expectedBytes));
    }

    /** Appends {@code v} in {@code width} bytes (1, 2, 4 or 8). */
    void put(long v, int width) throws IOException {
        switch (width) {
            case 1:
                buf.putByte((int) v);
                break;
            case 2:
                buf.putShort((int) v);
                break;
            case 4:
                buf.putInt((int) v);
                break;
            default:
                buf.putLong(v);
        }
        if (buf.size() >= FLUSH_AT) {
            buf.writeTo(out);
            buf.clear();
        }
    }

    /** Writes what is still buffered. */
    void finish() throws IOException {
        buf.writeTo(out);
    }
}
