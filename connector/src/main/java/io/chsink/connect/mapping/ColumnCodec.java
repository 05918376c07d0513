package io.chsink.connect.mapping;

import io.chsink.connect.encoder.FixedStringColumn;
import io.chsink.connect.encoder.FixedWidthColumn;
import io.chsink.connect.encoder.LowCardinalityStringColumn;
import io.chsink.connect.encoder.NativeColumn;
import io.chsink.connect.encoder.NullableColumn;
import io.chsink.connect.encoder.StringColumn;
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
        this.writer = writerFor(wireType);
    }

    /** The codec of a column, or null when the connector cannot write its type yet. */
    public static ColumnCodec forColumn(TableColumn column) {
        ClickHouseType t = column.type();
        if (!supported(t)) {
            return null;
        }
        boolean nullToDefault = !t.isNullable() && column.hasDefaultExpression() && !Composites.isComposite(t);
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

    static boolean supported(ClickHouseType t) {
        switch (t.kind()) {
            case NULLABLE:
                return supported(t.inner()) && t.inner().kind() != Kind.LOW_CARDINALITY;
            case LOW_CARDINALITY:
                ClickHouseType in = t.inner().kind() == Kind.NULLABLE ? t.inner().inner() : t.inner();
                return supported(in);
            case ARRAY: case MAP: case TUPLE: case NESTED: case JSON: case VARIANT: case DYNAMIC:
            case SIMPLE_AGGREGATE_FUNCTION: case POINT: case RING: case LINE_STRING: case MULTI_LINE_STRING:
            case POLYGON: case MULTI_POLYGON:
                return Composites.supported(t);
            case OTHER:
                return false;
            default:
                return ScalarWriters.isScalar(t.kind());
        }
    }

    public TableColumn column() {
        return column;
    }

    public String wireType() {
        return wireType.text();
    }

    /** Whether a row may omit this column: it is Nullable or the server fills its default. */
    public boolean acceptsMissing() {
        return wireType.isNullable() || Composites.handlesNull(wireType);
    }

    public NativeColumn newColumn(int expectedRows) {
        return newColumn(wireType, expectedRows);
    }

    /** A column buffer for values of {@code t} (any type {@link #writerFor} writes), sized for {@code rows}. */
    static NativeColumn newColumn(ClickHouseType t, int rows) {
        switch (t.kind()) {
            case ARRAY: case MAP: case TUPLE: case NESTED: case JSON: case VARIANT: case DYNAMIC:
            case SIMPLE_AGGREGATE_FUNCTION: case POINT: case RING: case LINE_STRING: case MULTI_LINE_STRING:
            case POLYGON: case MULTI_POLYGON:
                return Composites.newColumn(t, rows);
            case NULLABLE:
                return new NullableColumn(t.text(), newColumn(t.inner(), rows), rows);
            case LOW_CARDINALITY:
                return new LowCardinalityStringColumn(t.text(), t.inner().kind() == Kind.NULLABLE, rows);
            case STRING:
                return new StringColumn(t.text(), rows);
            case FIXED_STRING:
                return new FixedStringColumn(t.text(), t.length(), rows);
            case DECIMAL:
                return new FixedWidthColumn(t.text(), t.decimalWidth(), rows);
            default:
                return new FixedWidthColumn(t.text(), t.kind().width, rows);
        }
    }

    /** Appends {@code value} (possibly null) to {@code target}, a column made by {@link #newColumn}. */
    public void write(Object value, NativeColumn target) {
        if (value == null) {
            if (target instanceof NullableColumn) {
                ((NullableColumn) target).putNull();
            } else if (target instanceof LowCardinalityStringColumn && wireType.isNullable()) {
                ((LowCardinalityStringColumn) target).putNull();
            } else if (Composites.handlesNull(wireType)) {
                Composites.writeNull(wireType, target);
            } else {
                throw new ValueException("null for a non-Nullable column without a default");
            }
            return;
        }
        writer.write(value, target);
    }

    /** The writer of non-null values of {@code t} into a column made by {@link #newColumn(ClickHouseType, int)}. */
    static ValueWriter writerFor(ClickHouseType t) {
        switch (t.kind()) {
            case ARRAY: case MAP: case TUPLE: case NESTED: case JSON: case VARIANT: case DYNAMIC:
            case SIMPLE_AGGREGATE_FUNCTION: case POINT: case RING: case LINE_STRING: case MULTI_LINE_STRING:
            case POLYGON: case MULTI_POLYGON:
                return Composites.writerFor(t);
            case NULLABLE: {
                ValueWriter inner = writerFor(t.inner());
                return (v, c) -> {
                    NullableColumn n = (NullableColumn) c;
                    n.putNotNull();
                    inner.write(v, n.nested());
                };
            }
            case LOW_CARDINALITY:
                return TextWriters.lowCardinalityString();
            default: {
                ValueWriter w = ScalarWriters.forType(t);
                if (w == null) {
                    throw new IllegalArgumentException("no writer for " + t.text());
                }
                return w;
            }
        }
    }
}
