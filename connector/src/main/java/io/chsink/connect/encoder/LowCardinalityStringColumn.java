package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
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
        writeData(out, keyCount, keys::writeTo, 0, rows, null);
    }

    /**
     * The data of rows [from, to) with a dictionary of {@code dictionarySize} keys (written by {@code dictionary}):
     * index {@code i} of the column is written as {@code renumber[i]} (as is when {@code renumber} is null). The
     * indexes go out through a small buffer: no copy of the whole column per insert.
     */
    private void writeData(OutputStream out, int dictionarySize, CompositeSlice.Stream dictionary, int from, int to,
            int[] renumber) throws IOException {
        int indexType;
        int indexWidth;
        if (dictionarySize <= 0x100) {
            indexType = 0;
            indexWidth = 1;
        } else if (dictionarySize <= 0x10000) {
            indexType = 1;
            indexWidth = 2;
        } else {
            indexType = 2;
            indexWidth = 4;
        }
        ByteSink head = new ByteSink(16);
        head.putLong(HAS_ADDITIONAL_KEYS | indexType);
        head.putLong(dictionarySize);
        head.writeTo(out);
        dictionary.writeTo(out);
        UIntWriter idx = new UIntWriter(out, 8 + (long) (to - from) * indexWidth);
        idx.put(to - from, Long.BYTES);
        for (int i = from; i < to; i++) {
            idx.put(renumber == null ? indexes[i] : renumber[indexes[i]], indexWidth);
        }
        idx.finish();
    }

    /**
     * The rows' own dictionary: the keys they use, renumbered in the order they first use them (after the NULL
     * placeholder of the Nullable variant), as a fresh column of these rows numbers them. Reads the range's indexes
     * (in memory) and the dictionary's bytes twice; copies the keys the range uses.
     */
    @Override
    ColumnSlice slice(int from, int to) {
        int[] renumber = new int[keyCount];
        Arrays.fill(renumber, -1);
        int used = 0;
        if (nullable) {
            renumber[0] = used++;
        }
        for (int i = from; i < to; i++) {
            if (renumber[indexes[i]] < 0) {
                renumber[indexes[i]] = used++;
            }
        }
        byte[] dictionary = dictionary(renumber, used);
        int sliceKeys = used;
        return new CompositeSlice(this::writePrefix,
                out -> writeData(out, sliceKeys, o -> o.write(dictionary), from, to, renumber), List.of());
    }

    /**
     * The keys {@code renumber} keeps, as the dictionary writes them (length, UTF-8), in their new order: one pass
     * finds where each key starts, a second copies the kept ones.
     */
    private byte[] dictionary(int[] renumber, int used) {
        int[] starts = new int[keyCount + 1];
        ByteSink.Reader r = keys.reader(0);
        for (int k = 0; k < keyCount; k++) {
            starts[k] = r.position();
            r.skip((int) r.readVarUInt());
        }
        starts[keyCount] = r.position();
        int[] at = new int[used + 1];
        for (int k = 0; k < keyCount; k++) {
            if (renumber[k] >= 0) {
                at[renumber[k] + 1] = starts[k + 1] - starts[k];
            }
        }
        for (int j = 0; j < used; j++) {
            at[j + 1] += at[j];
        }
        byte[] dictionary = new byte[at[used]];
        r = keys.reader(0);
        for (int k = 0; k < keyCount; k++) {
            if (renumber[k] >= 0) {
                r.skip(starts[k] - r.position());
                r.readBytes(dictionary, at[renumber[k]], starts[k + 1] - starts[k]);
            }
        }
        return dictionary;
    }
}
