package io.chsink.connect.encoder;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The Native serialization of some values of a column: its prefix and its data, as a column holding just those
 * values writes them. A {@link NativeColumn} is the one of all its values; {@link NativeColumn#slice} makes the one of
 * a range, for writing some rows of a block ({@link NativeBlock#writeTo(OutputStream, int, int)}).
 */
interface ColumnSlice {
    /** Writes the serialization state prefix (none by default). */
    default void writePrefix(OutputStream out) throws IOException {
    }

    /** Writes the data of the values. */
    void writeData(OutputStream out) throws IOException;
}
