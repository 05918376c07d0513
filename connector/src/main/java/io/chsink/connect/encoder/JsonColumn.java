package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * JSON in the FLATTENED Native serialization (version 3), the one ClickHouse provides for clients: prefix = UInt64
 * 3, the number of dynamic paths and their names, then each typed path's prefix and each dynamic path's Dynamic
 * prefix; data = each typed path's column, then each dynamic path's Dynamic column, typed and dynamic paths each in
 * sorted order. Every path holds one value per row: a typed path its type's default when the row lacks it, a
 * dynamic path NULL. Dynamic paths are added as rows bring new ones. A slice lists the dynamic paths its rows hold a
 * value at: NULL at a path being the path's absence, a path NULL in all of them is left out.
 */
public final class JsonColumn extends NativeColumn {
    private static final long FLATTENED = 3;

    private final TreeMap<String, NativeColumn> typed;
    private final TreeMap<String, DynamicColumn> dynamic = new TreeMap<>();
    private final int expectedRows;
    private int rows;
    private int rowsMark;

    /** {@code typed}: a column per typed path (made for that path's type). */
    public JsonColumn(String wireType, Map<String, NativeColumn> typed, int expectedRows) {
        super(wireType);
        this.typed = new TreeMap<>(typed);
        this.expectedRows = expectedRows;
    }

    /** The column of a typed path, or null. */
    public NativeColumn typedPath(String path) {
        return typed.get(path);
    }

    /** The Dynamic column of a dynamic path, created (NULL for the rows before) on first use. */
    public DynamicColumn dynamicPath(String path) {
        DynamicColumn c = dynamic.get(path);
        if (c == null) {
            c = new DynamicColumn("Dynamic", Math.max(16, Math.min(expectedRows, rows + 16)));
            // NULL for every earlier row; the open row's mark sits where this column's other rows' marks sit
            for (int i = 0; i < rowsMark; i++) {
                c.putNull();
            }
            c.markRow();
            for (int i = rowsMark; i < rows; i++) {
                c.putNull();
            }
            dynamic.put(path, c);
        }
        return c;
    }

    /**
     * Completes the row: the caller has written the typed paths it had (as the typed columns received) and the
     * dynamic paths it had; every other path gets its default or NULL.
     */
    public void endRow() {
        rows++;
        for (DynamicColumn d : dynamic.values()) {
            if (d.rows() < rows) {
                d.putNull();
            }
        }
    }

    @Override
    public void putDefault() {
        for (NativeColumn c : typed.values()) {
            c.putDefault();
        }
        endRow();
    }

    @Override
    public void markRow() {
        rowsMark = rows;
        for (NativeColumn c : typed.values()) {
            c.markRow();
        }
        for (DynamicColumn d : dynamic.values()) {
            d.markRow();
        }
    }

    @Override
    public void rollbackRow() {
        rows = rowsMark;
        for (NativeColumn c : typed.values()) {
            c.rollbackRow();
        }
        for (DynamicColumn d : dynamic.values()) {
            d.rollbackRow(); // a path first seen in the withdrawn row stays, NULL in every row
        }
    }

    @Override
    public long sizeInBytes() {
        long n = 0;
        for (NativeColumn c : typed.values()) {
            n += c.sizeInBytes();
        }
        for (DynamicColumn d : dynamic.values()) {
            n += d.sizeInBytes();
        }
        return n;
    }

    @Override
    public void writePrefix(OutputStream out) throws IOException {
        writePaths(out, dynamic.keySet());
        for (NativeColumn c : typed.values()) {
            c.writePrefix(out);
        }
        for (DynamicColumn d : dynamic.values()) {
            d.writePrefix(out);
        }
    }

    @Override
    public void writeData(OutputStream out) throws IOException {
        for (NativeColumn c : typed.values()) {
            c.writeData(out);
        }
        for (DynamicColumn d : dynamic.values()) {
            d.writeData(out);
        }
    }

    private static void writePaths(OutputStream out, Collection<String> dynamicPaths) throws IOException {
        ByteSink p = new ByteSink(64);
        p.putLong(FLATTENED);
        p.putVarUInt(dynamicPaths.size());
        for (String path : dynamicPaths) {
            p.putUtf8(path);
        }
        p.writeTo(out);
    }

    /**
     * Each typed path's slice of the range, then the slice of each dynamic path some row of the range holds a value
     * at. A path NULL in every row of the range is left out: NULL at a dynamic path is the path's absence, so the rows
     * read back the same; a fresh column would list such a path only if a row of the range named it with a null
     * value (a union with no branch set).
     */
    @Override
    ColumnSlice slice(int from, int to) {
        List<ColumnSlice> parts = new ArrayList<>();
        for (NativeColumn c : typed.values()) {
            parts.add(c.slice(from, to));
        }
        List<String> paths = new ArrayList<>();
        for (Map.Entry<String, DynamicColumn> e : dynamic.entrySet()) {
            if (e.getValue().hasValues(from, to)) {
                paths.add(e.getKey());
                parts.add(e.getValue().slice(from, to));
            }
        }
        return new CompositeSlice(out -> writePaths(out, paths), CompositeSlice.NONE, parts);
    }
}
