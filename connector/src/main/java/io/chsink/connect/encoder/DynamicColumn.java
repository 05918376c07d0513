package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Dynamic in the FLATTENED Native serialization (structure version 3), the one ClickHouse provides for clients:
 * prefix = UInt64 3, the number of types and their names, then each type's own prefix; data = one index per row
 * into the type list (the list's size for NULL; UInt8, or UInt16 past 255 types), then each type's column holding
 * only its rows. Types are added as values of new types arrive.
 */
public final class DynamicColumn extends NativeColumn {
    private static final long FLATTENED = 3;

    private final Map<String, Integer> typeIndex = new HashMap<>();
    private final List<String> typeNames = new ArrayList<>();
    private final List<NativeColumn> columns = new ArrayList<>();
    private int[] indexes;
    private int rows;
    private int rowsMark;

    public DynamicColumn(String wireType, int expectedRows) {
        super(wireType);
        this.indexes = new int[Math.max(16, expectedRows)];
    }

    /**
     * Records that the row holds a value of {@code typeName} and returns that type's column, created with
     * {@code factory} (which gets the type name) on first use.
     */
    public NativeColumn select(String typeName, Function<String, NativeColumn> factory) {
        Integer i = typeIndex.get(typeName);
        if (i == null) {
            NativeColumn c = factory.apply(typeName);
            c.markRow(); // the rows before this one never touch it; a rollback of this row empties it
            i = columns.size();
            columns.add(c);
            typeNames.add(typeName);
            typeIndex.put(typeName, i);
        }
        append(i);
        return columns.get(i);
    }

    public void putNull() {
        append(-1);
    }

    private void append(int i) {
        if (rows == indexes.length) {
            indexes = Arrays.copyOf(indexes, rows + (rows >> 1) + 16);
        }
        indexes[rows++] = i;
    }

    /** Rows written so far. */
    public int rows() {
        return rows;
    }

    public int typeCount() {
        return columns.size();
    }

    @Override
    public void putDefault() {
        putNull();
    }

    @Override
    public void markRow() {
        rowsMark = rows;
        for (NativeColumn c : columns) {
            c.markRow();
        }
    }

    @Override
    public void rollbackRow() {
        rows = rowsMark;
        for (NativeColumn c : columns) {
            c.rollbackRow(); // a type first seen in the withdrawn row stays in the list, with no rows
        }
    }

    @Override
    public long sizeInBytes() {
        long n = 4L * rows;
        for (NativeColumn c : columns) {
            n += c.sizeInBytes();
        }
        return n;
    }

    @Override
    public void writePrefix(OutputStream out) throws IOException {
        ByteSink p = new ByteSink(64);
        p.putLong(FLATTENED);
        p.putVarUInt(typeNames.size());
        for (String t : typeNames) {
            p.putUtf8(t);
        }
        p.writeTo(out);
        for (NativeColumn c : columns) {
            c.writePrefix(out);
        }
    }

    @Override
    public void writeData(OutputStream out) throws IOException {
        int nullIndex = typeNames.size();
        boolean wide = nullIndex > 255;
        ByteSink idx = new ByteSink(Math.max(16, rows * (wide ? 2 : 1)));
        for (int r = 0; r < rows; r++) {
            int v = indexes[r] < 0 ? nullIndex : indexes[r];
            if (wide) {
                idx.putShort(v);
            } else {
                idx.putByte(v);
            }
        }
        idx.writeTo(out);
        for (NativeColumn c : columns) {
            c.writeData(out);
        }
    }
}
