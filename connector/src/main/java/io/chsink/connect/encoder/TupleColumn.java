package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

/** Tuple(T1, ..., Tn) and Point: the element columns one after the other (all prefixes first, then all data). */
public final class TupleColumn extends NativeColumn {
    private final NativeColumn[] elements;

    public TupleColumn(String wireType, NativeColumn[] elements) {
        super(wireType);
        this.elements = elements.clone();
    }

    public NativeColumn element(int i) {
        return elements[i];
    }

    public int size() {
        return elements.length;
    }

    @Override
    public void putDefault() {
        for (NativeColumn e : elements) {
            e.putDefault();
        }
    }

    @Override
    public void markRow() {
        for (NativeColumn e : elements) {
            e.markRow();
        }
    }

    @Override
    public void rollbackRow() {
        for (NativeColumn e : elements) {
            e.rollbackRow();
        }
    }

    @Override
    public long sizeInBytes() {
        long n = 0;
        for (NativeColumn e : elements) {
            n += e.sizeInBytes();
        }
        return n;
    }

    @Override
    public void writePrefix(OutputStream out) throws IOException {
        for (NativeColumn e : elements) {
            e.writePrefix(out);
        }
    }

    @Override
    public void writeData(OutputStream out) throws IOException {
        for (NativeColumn e : elements) {
            e.writeData(out);
        }
    }

    /** Each element's slice of the same range (every element holds one value per row). */
    @Override
    ColumnSlice slice(int from, int to) {
        List<ColumnSlice> parts = new ArrayList<>(elements.length);
        for (NativeColumn e : elements) {
            parts.add(e.slice(from, to));
        }
        return new CompositeSlice(CompositeSlice.NONE, CompositeSlice.NONE, parts);
    }
}
