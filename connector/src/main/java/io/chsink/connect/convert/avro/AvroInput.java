package io.chsink.connect.convert.avro;

import java.nio.charset.StandardCharsets;

/**
 * Avro binary encoding read straight from the record's bytes (the Avro specification's "Binary Encoding"): zig-zag
 * varints, little-endian IEEE floats, length-prefixed bytes and strings, blocked arrays and maps. Every read checks
 * the bounds, so truncated or corrupt input is a {@link BadAvro}, never an index error or a huge allocation.
 */
final class AvroInput {
    private final byte[] buf;
    private int pos;
    private final int end;
    /** Items the blocks of this input may still declare in all (see {@link #readBlockCount}). */
    private long itemBudget;

    AvroInput(byte[] buf, int from, int end) {
        this.buf = buf;
        this.pos = from;
        this.end = end;
        this.itemBudget = (long) (end - from) * 8 + 1024;
    }

    int position() {
        return pos;
    }

    int remaining() {
        return end - pos;
    }

    boolean readBoolean() {
        need(1);
        int b = buf[pos++];
        if (b == 0) {
            return false;
        }
        if (b == 1) {
            return true;
        }
        throw new BadAvro("a boolean byte of " + (b & 0xFF) + " (only 0 and 1 are booleans)");
    }

    int readInt() {
        int n = 0;
        for (int shift = 0; shift < 32; shift += 7) {
            need(1);
            int b = buf[pos++] & 0xFF;
            n |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return (n >>> 1) ^ -(n & 1);
            }
        }
        throw new BadAvro("an int varint longer than 5 bytes");
    }

    long readLong() {
        long n = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            need(1);
            long b = buf[pos++] & 0xFF;
            n |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return (n >>> 1) ^ -(n & 1);
            }
        }
        throw new BadAvro("a long varint longer than 10 bytes");
    }

    float readFloat() {
        return Float.intBitsToFloat(readFixedInt());
    }

    double readDouble() {
        long lo = readFixedInt() & 0xFFFFFFFFL;
        long hi = readFixedInt() & 0xFFFFFFFFL;
        return Double.longBitsToDouble(lo | (hi << 32));
    }

    private int readFixedInt() {
        need(4);
        int v = (buf[pos] & 0xFF) | (buf[pos + 1] & 0xFF) << 8 | (buf[pos + 2] & 0xFF) << 16 | (buf[pos + 3] & 0xFF) << 24;
        pos += 4;
        return v;
    }

    String readString() {
        int len = length("string");
        String s = new String(buf, pos, len, StandardCharsets.UTF_8);
        pos += len;
        return s;
    }

    byte[] readBytes() {
        return readFixed(length("bytes"));
    }

    byte[] readFixed(int size) {
        need(size);
        byte[] out = new byte[size];
        System.arraycopy(buf, pos, out, 0, size);
        pos += size;
        return out;
    }

    /** A union branch or enum symbol index. */
    int readIndex(int count, String what) {
        int i = readInt();
        if (i < 0 || i >= count) {
            throw new BadAvro(what + " index " + i + " (the writer schema has " + count + ")");
        }
        return i;
    }

    /**
     * The item count of the next array or map block (0: the end). A negative count is followed by the block's size
     * in bytes, which is read and checked. A count far beyond the bytes left is refused before anything is allocated
     * (items of zero-byte types, such as empty records, are why it is not simply the bytes left), and so are blocks
     * whose counts add up, over the whole input, to more than 8 items per byte of it: without that bound, a record
     * of many small blocks of empty records would make billions of values from a few kilobytes.
     */
    long readBlockCount() {
        long count = readLong();
        if (count < 0) {
            if (count == Long.MIN_VALUE) {
                throw new BadAvro("a block count of " + count);
            }
            count = -count;
            long size = readLong();
            if (size < 0 || size > remaining()) {
                throw new BadAvro("a block of " + size + " bytes with " + remaining() + " bytes left");
            }
        }
        if (count > Integer.MAX_VALUE - 8 || count > (long) remaining() * 8 + 1024) {
            throw new BadAvro("a block of " + count + " items with " + remaining() + " bytes left");
        }
        itemBudget -= count;
        if (itemBudget < 0) {
            throw new BadAvro("blocks of more items in all than 8 per byte of the record (a block of " + count
                    + " items at byte " + pos + ")");
        }
        return count;
    }

    private int length(String what) {
        long len = readLong();
        if (len < 0 || len > remaining()) {
            throw new BadAvro("a " + what + " of " + len + " bytes with " + remaining() + " bytes left");
        }
        return (int) len;
    }

    private void need(int n) {
        if (end - pos < n) {
            throw new BadAvro("the data ends early (" + n + " more bytes needed at byte " + pos + ")");
        }
    }

    /** Input that does not decode with its writer schema. */
    static final class BadAvro extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadAvro(String message) {
            super(message, null, false, false);
        }
    }
}
