package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * A slice written as a column's own streams (null map, offsets, discriminators, type or path list, dictionary...)
 * and the slices of the columns it is made of (Nullable, Array, Tuple, Variant, Dynamic, JSON; none for
 * LowCardinality), in the Native order: its own prefix, the parts' prefixes, its own data, the parts' data.
 */
final class CompositeSlice implements ColumnSlice {
    /** One of the column's own streams. */
    @FunctionalInterface
    interface Stream {
        void writeTo(OutputStream out) throws IOException;
    }

    static final Stream NONE = out -> {
    };

    private final Stream prefix;
    private final Stream data;
    private final List<? extends ColumnSlice> parts;

    CompositeSlice(Stream prefix, Stream data, List<? extends ColumnSlice> parts) {
        this.prefix = prefix;
        this.data = data;
        this.parts = parts;
    }

    @Override
    public void writePrefix(OutputStream out) throws IOException {
        prefix.writeTo(out);
        for (ColumnSlice p : parts) {
            p.writePrefix(out);
        }
    }

    @Override
    public void writeData(OutputStream out) throws IOException {
        data.writeTo(out);
        for (ColumnSlice p : parts) {
            p.writeData(out);
        }
    }
}
