package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Variant(T1, ..., Tn) in the BASIC discriminators mode: prefix = UInt64 mode 0 then each variant's prefix; data =
 * one discriminator byte per row (the variant's index in the type's sorted list, 255 for NULL), then each
 * variant's column holding only the rows that chose it.
 */
public final class VariantColumn extends NativeColumn {
    public static final int NULL_DISCRIMINATOR = 255;
    private static final long BASIC_MODE = 0;

    private final NativeColumn[] variants;
    private final ByteSink discriminators;
    private int mark;

    public VariantColumn(String wireType, NativeColumn[] variants, int expectedRows) {
        super(wireType);
        if (variants.length >= NULL_DISCRIMINATOR) {
            throw new IllegalArgumentException("too many variants: " + variants.length);
        }
        this.variants = variants.clone();
        this.discriminators = new ByteSink(Math.max(16, expectedRows));
    }

    /** Records that the row holds variant {@code i} and returns that variant's column for the value. */
    public NativeColumn select(int i) {
        discriminators.putByte(i);
        return variants[i];
    }

    public void putNull() {
        discriminators.putByte(NULL_DISCRIMINATOR);
    }

    @Override
    public void putDefault() {
        putNull();
    }

    @Override
    public void markRow() {
        mark = discriminators.size();
        for (NativeColumn v : variants) {
            v.markRow();
        }
    }

    @Override
    public void rollbackRow() {
        discriminators.truncate(mark);
        for (NativeColumn v : variants) {
            v.rollbackRow();
        }
    }

    @Override
    public long sizeInBytes() {
        long n = discriminators.size();
        for (NativeColumn v : variants) {
            n += v.sizeInBytes();
        }
        return n;
    }

    @Override
    public void writePrefix(OutputStream out) throws IOException {
        writeMode(out);
        for (NativeColumn v : variants) {
            v.writePrefix(out);
        }
    }

    private static void writeMode(OutputStream out) throws IOException {
        ByteSink p = new ByteSink(8);
        p.putLong(BASIC_MODE);
        p.writeTo(out);
    }

    @Override
    public void writeData(OutputStream out) throws IOException {
        discriminators.writeTo(out);
        for (NativeColumn v : variants) {
            v.writeData(out);
        }
    }

    /**
     * The range's discriminators as they are, and each variant's slice of the values the range chose it for: those
     * follow the values the rows before the range chose it for, counted by reading the discriminators up to the end.
     */
    @Override
    ColumnSlice slice(int from, int to) {
        int[] before = new int[variants.length];
        int[] within = new int[variants.length];
        ByteSink.Reader r = discriminators.reader(0);
        for (int row = 0; row < to; row++) {
            int d = r.readByte();
            if (d != NULL_DISCRIMINATOR) {
                (row < from ? before : within)[d]++;
            }
        }
        List<ColumnSlice> parts = new ArrayList<>(variants.length);
        for (int i = 0; i < variants.length; i++) {
            parts.add(variants[i].slice(before[i], before[i] + within[i]));
        }
        return new CompositeSlice(VariantColumn::writeMode, out -> discriminators.writeTo(out, from, to), parts);
    }
}
