package io.chsink.connect.mapping.value;

import io.chsink.connect.encoder.NativeColumn;
import io.chsink.connect.mapping.ValueException;

/** Converts one non-null Connect value to a column's ClickHouse type and appends it, or throws {@link ValueException}. */
public interface ValueWriter {
    void write(Object value, NativeColumn column);
}
