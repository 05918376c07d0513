package io.chsink.connect.mapping;

import io.chsink.connect.encoder.NativeColumn;
import io.chsink.connect.mapping.value.ValueWriter;
import io.chsink.connect.mapping.value.Writers;
import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.ClickHouseType.Kind;
import io.chsink.connect.schema.TableColumn;

/**
 * How one table column is carried in a Native block: which column buffer to create, which type to name in
 * the block header, and how to append a value (including NULL). Resolved once per table column.
 *
 * <p>A non-Nullable column with a DEFAULT expression travels as Nullable(T): a row without a value sends
 * NULL and the server, with {@code input_format_null_as_default=1}, evaluates the column's default.
 */
public final class ColumnCodec {
    private final TableColumn column;
    private final ClickHouseType wireType;
    private final boolean nullToDefault;
    private final ValueWriter writer;

    private ColumnCodec(TableColumn column, ClickHouseType wireType, boolean nullToDefault) {
        this.column = column;
        this.wireType = wireType;
        this.nullToDefault = nullToDefault;
        this.writer = Writers.writerFor(wireType);
    }

    /** The codec of a column, or null when the connector cannot write its type yet. */
    public static ColumnCodec forColumn(TableColumn column) {
        return forColumn(column, false);
    }

    /**
     * @param nullsTakeDefaults whether a null or missing value for a non-Nullable column without a DEFAULT writes the
     *     type's default (the column travels as Nullable(T), like one with a DEFAULT) instead of being a bad record
     */
    public static ColumnCodec forColumn(TableColumn column, boolean nullsTakeDefaults) {
        ClickHouseType t = column.type();
        if (!Writers.supported(t)) {
            return null;
        }
        boolean nullToDefault = !t.isNullable() && (column.hasDefaultExpression() || nullsTakeDefaults)
                && !Writers.isComposite(t);
        ClickHouseType wire = t;
        if (t.kind() == Kind.LOW_CARDINALITY && !isString(t.inner())) {
            wire = t.inner(); // LowCardinality of non-strings: sent plain, the server builds the dictionary
        }
        if (nullToDefault) {
            wire = ClickHouseType.parse(wire.kind() == Kind.LOW_CARDINALITY
                    ? "LowCardinality(Nullable(" + wire.inner().text() + "))"
                    : "Nullable(" + wire.text() + ")");
        }
        return new ColumnCodec(column, wire, nullToDefault);
    }

    /** String or Nullable(String): what the client-side dictionary encoder carries. */
    private static boolean isString(ClickHouseType t) {
        ClickHouseType in = t.kind() == Kind.NULLABLE ? t.inner() : t;
        return in.kind() == Kind.STRING;
    }

    public TableColumn column() {
        return column;
    }

    public String wireType() {
        return wireType.text();
    }

    /** Whether a row may omit this column: it is Nullable or the server fills its default. */
    public boolean acceptsMissing() {
        return Writers.acceptsNull(wireType);
    }

    public NativeColumn newColumn(int expectedRows) {
        return Writers.newColumn(wireType, expectedRows);
    }

    /** Appends {@code value} (possibly null) to {@code target}, a column made by {@link #newColumn}. */
    public void write(Object value, NativeColumn target) {
        if (value == null) {
            if (!Writers.writeNull(wireType, target)) {
                throw new ValueException("null for a non-Nullable column without a default");
            }
            return;
        }
        writer.write(value, target);
    }
}
