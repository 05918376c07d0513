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
        writeTypes(out, typeNames);
        for (NativeColumn c : columns) {
            c.writePrefix(out);
        }
    }

    private static void writeTypes(OutputStream out, List<String> names) throws IOException {
        ByteSink p = new ByteSink(64);
        p.putLong(FLATTENED);
        p.putVarUInt(names.size());
        for (String t : names) {
            p.putUtf8(t);
        }
        p.writeTo(out);
    }

    @Override
    public void writeData(OutputStream out) throws IOException {
        writeIndexes(out, 0, rows, null, typeNames.size());
        for (NativeColumn c : columns) {
            c.writeData(out);
        }
    }

    /**
     * The indexes of rows [from, to) into a list of {@code typeCount} types, type {@code i} of the column being
     * {@code renumber[i]} of the list (itself when {@code renumber} is null).
     */
    private void writeIndexes(OutputStream out, int from, int to, int[] renumber, int typeCount) throws IOException {
        int width = typeCount > 255 ? 2 : 1;
        UIntWriter idx = new UIntWriter(out, (long) (to - from) * width);
        for (int r = from; r < to; r++) {
            int i = indexes[r];
            idx.put(i < 0 ? typeCount : (renumber == null ? i : renumber[i]), width);
        }
        idx.finish();
    }

    /** Whether some row of [from, to) holds a value (is not NULL). */
    boolean hasValues(int from, int to) {
        for (int r = from; r < to; r++) {
            if (indexes[r] >= 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * The types the range's rows hold, listed in the order they first appear there, each with its column's slice of
     * the range's values: those follow the values of that type the rows before the range hold, counted from the
     * indexes (kept in memory, one int a row).
     */
    @Override
    ColumnSlice slice(int from, int to) {
        int n = columns.size();
        int[] before = new int[n];
        for (int r = 0; r < from; r++) {
            if (indexes[r] >= 0) {
                before[indexes[r]]++;
            }
        }
        int[] within = new int[n];
        int[] renumber = new int[n];
        int[] order = new int[n];
        int used = 0;
        for (int r = from; r < to; r++) {
            int i = indexes[r];
            if (i >= 0 && within[i]++ == 0) {
                renumber[i] = used;
                order[used++] = i;
            }
        }
        List<String> names = new ArrayList<>(used);
        List<ColumnSlice> parts = new ArrayList<>(used);
        for (int j = 0; j < used; j++) {
            int i = order[j];
            names.add(typeNames.get(i));
            parts.add(columns.get(i).slice(before[i], before[i] + within[i]));
        }
        return new CompositeSlice(out -> writeTypes(out, names),
                out -> writeIndexes(out, from, to, renumber, names.size()), parts);
    }
}
