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
        boolean nullToDefault = !t.isNullable() && column.hasDefaultExpression();
        ClickHouseType wire = t;
        if (t.kind() == Kind.LOW_CARDINALITY && t.inner().kind() != Kind.STRING && t.inner().kind() != Kind.NULLABLE) {
            wire = t.inner(); // LowCardinality of non-strings: sent plain, the server builds the dictionary
        }
        if (nullToDefault) {
            wire = ClickHouseType.parse(wire.kind() == Kind.LOW_CARDINALITY
                    ? "LowCardinality(Nullable(" + wire.inner().text() + "))"
                    : "Nullable(" + wire.text() + ")");
        }
        return new ColumnCodec(column, wire, nullToDefault);
    }

    static boolean supported(ClickHouseType t) {
        switch (t.kind()) {
            case NULLABLE:
                return supported(t.inner()) && t.inner().kind() != Kind.LOW_CARDINALITY;
            case LOW_CARDINALITY:
                ClickHouseType in = t.inner().kind() == Kind.NULLABLE ? t.inner().inner() : t.inner();
                return supported(in);
            case ARRAY:
            case MAP:
            case TUPLE:
            case OTHER:
                return false;
            default:
                return true;
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
        return wireType.isNullable();
    }

    public NativeColumn newColumn(int expectedRows) {
        return newColumn(wireType, expectedRows);
    }

    private static NativeColumn newColumn(ClickHouseType t, int rows) {
        switch (t.kind()) {
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
            } else {
                throw new ValueException("null for a non-Nullable column without a default");
            }
            return;
        }
        writer.write(value, target);
    }

    private static ValueWriter writerFor(ClickHouseType t) {
        switch (t.kind()) {
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
            case INT8: case INT16: case INT32: case INT64: case INT128: case INT256:
            case UINT8: case UINT16: case UINT32: case UINT64: case UINT128: case UINT256:
                return NumberWriters.integer(t.kind());
            case FLOAT32:
                return NumberWriters.float32();
            case FLOAT64:
                return NumberWriters.float64();
            case BOOL:
                return NumberWriters.bool();
            case STRING:
                return TextWriters.string();
            case FIXED_STRING:
                return TextWriters.fixedString(t.length());
            case UUID:
                return TextWriters.uuid();
            case ENUM8:
                return TextWriters.enumeration(t.enumValues(), 1, t.text());
            case ENUM16:
                return TextWriters.enumeration(t.enumValues(), 2, t.text());
            case DECIMAL:
                return new DecimalWriter(t.precision(), t.scale(), t.decimalWidth());
            case DATE:
                return TemporalWriters.date();
            case DATE32:
                return TemporalWriters.date32();
            case DATETIME:
                return TemporalWriters.dateTime(t.zone());
            case DATETIME64:
                return TemporalWriters.dateTime64(t.scale(), t.zone());
            default:
                throw new IllegalArgumentException("no writer for " + t.text());
        }
    }
}
