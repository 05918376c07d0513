package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A little-endian byte stream in memory: the storage of one Native column stream.
 * <p>
 * It grows by adding chunks (each twice the last, up to {@value #MAX_CHUNK} bytes: never a humongous object for G1), never by copying: a block that
 * ends at tens of megabytes leaves no trail of outgrown arrays behind, and its heap is at most its bytes plus one
 * chunk. {@link #clear()} keeps the chunks for the next block. A fixed-width value never straddles two chunks (the
 * rest of a chunk is left unused instead); byte runs and strings may. A {@link Reader} reads the stream back, for
 * slicing a block.
 */
public final class ByteSink {
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** 256 KiB: below half a G1 region of a heap under 4 GiB (1 MiB regions), so chunks are never humongous. */
    static final int MAX_CHUNK = 256 << 10;

    /** Every chunk allocated so far, in stream order; those after {@link #cur} are empty, kept for reuse. */
    private byte[][] chunks;
    /** Bytes used in each chunk before {@link #cur}. */
    private int[] used;
    private int chunkCount;
    private int cur;
    /** The current chunk and the write position in it. */
    private byte[] buf;
    private int pos;
    /** Bytes in the chunks before the current one. */
    private int base;

    public ByteSink(int initialCapacity) {
        buf = new byte[Math.min(MAX_CHUNK, Math.max(16, initialCapacity))];
        chunks = new byte[4][];
        used = new int[4];
        chunks[0] = buf;
        chunkCount = 1;
    }

    /** Makes room for {@code extra} contiguous bytes at {@link #pos}. */
    private void ensure(int extra) {
        if (pos + extra > buf.length) {
            nextChunk(extra);
        }
    }

    /** Closes the current chunk where it stands and moves on to the next one, of at least {@code min} bytes. */
    private void nextChunk(int min) {
        used[cur] = pos;
        base += pos;
        cur++;
        if (cur < chunkCount && chunks[cur].length >= min) {
            buf = chunks[cur];
        } else {
            int size = Math.max(min, Math.min(MAX_CHUNK, buf.length * 2));
            if (chunkCount == chunks.length) {
                chunks = Arrays.copyOf(chunks, chunkCount * 2);
                used = Arrays.copyOf(used, chunkCount * 2);
            }
            // A reused chunk too small for this value stays where it is, behind the new one.
            System.arraycopy(chunks, cur, chunks, cur + 1, chunkCount - cur);
            buf = new byte[size];
            chunks[cur] = buf;
            chunkCount++;
        }
        pos = 0;
    }

    public void putByte(int v) {
        if (pos == buf.length) {
            nextChunk(1);
        }
        buf[pos++] = (byte) v;
    }

    public void putShort(int v) {
        ensure(2);
        SHORT.set(buf, pos, (short) v);
        pos += 2;
    }

    public void putInt(int v) {
        ensure(4);
        INT.set(buf, pos, v);
        pos += 4;
    }

    public void putLong(long v) {
        ensure(8);
        LONG.set(buf, pos, v);
        pos += 8;
    }

    public void putBytes(byte[] src, int off, int len) {
        while (len > 0) {
            if (pos == buf.length) {
                nextChunk(Math.min(len, MAX_CHUNK));
            }
            int n = Math.min(len, buf.length - pos);
            System.arraycopy(src, off, buf, pos, n);
            pos += n;
            off += n;
            len -= n;
        }
    }

    public void putZeros(int len) {
        while (len > 0) {
            if (pos == buf.length) {
                nextChunk(Math.min(len, MAX_CHUNK));
            }
            int n = Math.min(len, buf.length - pos);
            Arrays.fill(buf, pos, pos + n, (byte) 0);
            pos += n;
            len -= n;
        }
    }

    /** Unsigned LEB128, as ClickHouse writes sizes and string lengths. */
    public void putVarUInt(long v) {
        ensure(10);
        while ((v & ~0x7FL) != 0) {
            buf[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[pos++] = (byte) v;
    }

    /**
     * Writes a String as varint length plus UTF-8 bytes, encoding straight into the buffer (no intermediate
     * byte[] for the common ASCII case).
     */
    public void putUtf8(String s) {
        int len = s.length();
        // Optimistic ASCII path: one byte of length (< 128) and len bytes, in the current chunk.
        if (len < 128) {
            ensure(1 + len);
            byte[] b = buf;
            int start = pos;
            int p = start + 1;
            for (int i = 0; i < len; i++) {
                char c = s.charAt(i);
                if (c >= 0x80) {
                    putUtf8Slow(s);
                    return;
                }
                b[p++] = (byte) c;
            }
            b[start] = (byte) len;
            pos = p;
            return;
        }
        putUtf8Slow(s);
    }

    private void putUtf8Slow(String s) {
        byte[] bytes = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        putVarUInt(bytes.length);
        putBytes(bytes, 0, bytes.length);
    }

    public int size() {
        return base + pos;
    }

    /** Heap bytes the chunks take. */
    public int capacity() {
        int total = 0;
        for (int i = 0; i < chunkCount; i++) {
            total += chunks[i].length;
        }
        return total;
    }

    /** Forgets everything written after {@code position} (used to roll back a rejected row). */
    public void truncate(int position) {
        while (position < base) {
            cur--;
            base -= used[cur];
        }
        buf = chunks[cur];
        pos = position - base;
    }

    /** Empties the stream, keeping its chunks for what is written next. */
    public void clear() {
        cur = 0;
        base = 0;
        pos = 0;
        buf = chunks[0];
    }

    public void writeTo(OutputStream out) throws IOException {
        for (int i = 0; i < cur; i++) {
            out.write(chunks[i], 0, used[i]);
        }
        out.write(buf, 0, pos);
    }

    /** Writes bytes [from, to) of the stream (what a slice of a column's rows takes from it). */
    public void writeTo(OutputStream out, int from, int to) throws IOException {
        int start = 0;
        for (int i = 0; i <= cur && from < to; i++) {
            int end = start + usedIn(i);
            if (from < end) {
                int n = Math.min(to, end) - from;
                out.write(chunks[i], from - start, n);
                from += n;
            }
            start = end;
        }
    }

    /** Bytes written to chunk {@code i}, one of those up to the current one. */
    private int usedIn(int i) {
        return i == cur ? pos : used[i];
    }

    /** A reader of the stream from byte {@code position}. */
    Reader reader(int position) {
        return new Reader(position);
    }

    /**
     * Reads the stream back, to find where a row's values lie when a block is sliced (the writer keeps no per-row
     * positions). It relies on the layout the writer keeps: a fixed-width value or a varint lies within one chunk.
     * Valid until the stream is written to again.
     */
    final class Reader {
        private int chunk;
        /** The position in {@link #chunk}: before its end unless the chunk is the current one. */
        private int off;
        /** The stream position where {@link #chunk} starts. */
        private int start;

        private Reader(int position) {
            skip(position);
        }

        int position() {
            return start + off;
        }

        void skip(int n) {
            off += n;
            while (chunk < cur && off >= usedIn(chunk)) {
                off -= usedIn(chunk);
                start += usedIn(chunk);
                chunk++;
            }
        }

        int readByte() {
            int v = chunks[chunk][off] & 0xFF;
            skip(1);
            return v;
        }

        long readLong() {
            long v = (long) LONG.get(chunks[chunk], off);
            skip(8);
            return v;
        }

        /** Unsigned LEB128, as {@link #putVarUInt} writes it. */
        long readVarUInt() {
            long v = 0;
            for (int shift = 0;; shift += 7) {
                int b = readByte();
                v |= (long) (b & 0x7F) << shift;
                if (b < 0x80) {
                    return v;
                }
            }
        }

        void readBytes(byte[] dst, int dstOff, int len) {
            while (len > 0) {
                int n = Math.min(len, usedIn(chunk) - off);
                System.arraycopy(chunks[chunk], off, dst, dstOff, n);
                skip(n);
                dstOff += n;
                len -= n;
            }
        }
    }
}
