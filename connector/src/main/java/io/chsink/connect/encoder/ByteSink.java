package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/** A growable little-endian byte buffer: the storage of one Native column stream. */
public final class ByteSink {
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[] buf;
    private int size;

    public ByteSink(int initialCapacity) {
        buf = new byte[Math.max(16, initialCapacity)];
    }

    private void ensure(int extra) {
        int needed = size + extra;
        if (needed > buf.length) {
            int grown = Math.max(needed, buf.length + (buf.length >> 1));
            buf = Arrays.copyOf(buf, grown);
        }
    }

    public void putByte(int v) {
        ensure(1);
        buf[size++] = (byte) v;
    }

    public void putShort(int v) {
        ensure(2);
        SHORT.set(buf, size, (short) v);
        size += 2;
    }

    public void putInt(int v) {
        ensure(4);
        INT.set(buf, size, v);
        size += 4;
    }

    public void putLong(long v) {
        ensure(8);
        LONG.set(buf, size, v);
        size += 8;
    }

    public void putBytes(byte[] src, int off, int len) {
        ensure(len);
        System.arraycopy(src, off, buf, size, len);
        size += len;
    }

    public void putZeros(int len) {
        ensure(len);
        Arrays.fill(buf, size, size + len, (byte) 0);
        size += len;
    }

    /** Unsigned LEB128, as ClickHouse writes sizes and string lengths. */
    public void putVarUInt(long v) {
        ensure(10);
        while ((v & ~0x7FL) != 0) {
            buf[size++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[size++] = (byte) v;
    }

    /**
     * Writes a String as varint length plus UTF-8 bytes, encoding straight into the buffer (no intermediate
     * byte[] for the common ASCII case).
     */
    public void putUtf8(String s) {
        int len = s.length();
        int start = size;
        // Optimistic ASCII path: reserve 1 byte of length (<128) and len bytes.
        if (len < 128) {
            ensure(1 + len);
            int p = start + 1;
            for (int i = 0; i < len; i++) {
                char c = s.charAt(i);
                if (c >= 0x80) {
                    putUtf8Slow(s, start);
                    return;
                }
                buf[p++] = (byte) c;
            }
            buf[start] = (byte) len;
            size = p;
            return;
        }
        putUtf8Slow(s, start);
    }

    private void putUtf8Slow(String s, int start) {
        size = start;
        byte[] bytes = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        putVarUInt(bytes.length);
        putBytes(bytes, 0, bytes.length);
    }

    public int size() {
        return size;
    }

    public int capacity() {
        return buf.length;
    }

    /** Forgets everything written after {@code position} (used to roll back a rejected row). */
    public void truncate(int position) {
        size = position;
    }

    public void clear() {
        size = 0;
    }

    public void writeTo(OutputStream out) throws IOException {
        out.write(buf, 0, size);
    }
}
