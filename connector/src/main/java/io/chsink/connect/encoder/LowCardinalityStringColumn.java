package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * LowCardinality(String) and LowCardinality(Nullable(String)), dictionary-encoded on the client: the block
 * carries each distinct value once plus one small index per row, which is both less to send and less for the
 * server to hash. Layout (Native): key version 1 (prefix); index type with the has-additional-keys flag; the
 * dictionary as a String column; the row count and the indexes. For the Nullable variant, index 0 is NULL.
 */
public final class LowCardinalityStringColumn extends NativeColumn {
    private static final long SHARED_DICTIONARIES_WITH_ADDITIONAL_KEYS = 1;
    private static final long HAS_ADDITIONAL_KEYS = 1L << 9;
    /** Dictionary entries are counted at about this many bytes of map overhead each. */
    private static final int ENTRY_OVERHEAD = 64;
    private static final int INDEX_CHUNK = 16 * 1024;

    private final boolean nullable;
    private final Map<String, Integer> dictionary = new HashMap<>();
    private final ByteSink keys = new ByteSink(256);
    private int keyCount;
    private int[] indexes;
    private int rows;
    private int rowStart;

    public LowCardinalityStringColumn(String wireType, boolean nullable, int expectedRows) {
        super(wireType);
        this.nullable = nullable;
        this.indexes = new int[Math.max(16, expectedRows)];
        if (nullable) {
            keys.putByte(0); // index 0: the NULL placeholder (an empty string)
            keyCount = 1;
        }
    }

    public void putString(String s) {
        Integer idx = dictionary.get(s);
        if (idx == null) {
            idx = keyCount++;
            dictionary.put(s, idx);
            keys.putUtf8(s);
        }
        append(idx);
    }

    public void putNull() {
        if (!nullable) {
            throw new IllegalStateException("NULL written to a non-Nullable LowCardinality column");
        }
        append(0);
    }

    private void append(int idx) {
        if (rows == indexes.length) {
            indexes = Arrays.copyOf(indexes, rows + (rows >> 1) + 16);
        }
        indexes[rows++] = idx;
    }

    @Override
    public void putDefault() {
        if (nullable) {
            putNull();
        } else {
            putString("");
        }
    }

    @Override
    public void markRow() {
        rowStart = rows;
    }

    @Override
    public void rollbackRow() {
        rows = rowStart; // a dictionary entry added by the withdrawn row stays: unused keys are harmless
    }

    @Override
    public boolean reset() {
        dictionary.clear();
        keys.clear();
        keyCount = 0;
        rows = 0;
        rowStart = 0;
        if (nullable) {
            keys.putByte(0);
            keyCount = 1;
        }
        return true;
    }

    @Override
    public long capacityBytes() {
        return keys.capacity() + 4L * indexes.length + (long) ENTRY_OVERHEAD * dictionary.size();
    }

    @Override
    public long sizeInBytes() {
        return keys.size() + 4L * rows + (long) ENTRY_OVERHEAD * dictionary.size();
    }

    @Override
    public void writePrefix(OutputStream out) throws IOException {
        ByteSink p = new ByteSink(8);
        p.putLong(SHARED_DICTIONARIES_WITH_ADDITIONAL_KEYS);
        p.writeTo(out);
    }

    @Override
    public void writeData(OutputStream out) throws IOException {
        int indexType;
        int indexWidth;
        if (keyCount <= 0x100) {
            indexType = 0;
            indexWidth = 1;
        } else if (keyCount <= 0x10000) {
            indexType = 1;
            indexWidth = 2;
        } else {
            indexType = 2;
            indexWidth = 4;
        }
        ByteSink head = new ByteSink(16);
        head.putLong(HAS_ADDITIONAL_KEYS | indexType);
        head.putLong(keyCount);
        head.writeTo(out);
        keys.writeTo(out);
        // The indexes go out through a small buffer: no copy of the whole column per insert.
        ByteSink idx = new ByteSink(Math.min(8 + rows * indexWidth, INDEX_CHUNK + 8));
        idx.putLong(rows);
        for (int i = 0; i < rows; i++) {
            int v = indexes[i];
            if (indexWidth == 1) {
                idx.putByte(v);
            } else if (indexWidth == 2) {
                idx.putShort(v);
            } else {
                idx.putInt(v);
            }
            if (idx.size() >= INDEX_CHUNK) {
                idx.writeTo(out);
                idx.clear();
            }
        }
        idx.writeTo(out);
    }
}
