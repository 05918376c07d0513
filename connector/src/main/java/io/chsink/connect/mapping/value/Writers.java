package io.chsink.connect.mapping.value;

import io.chsink.connect.encoder.FixedStringColumn;
import io.chsink.connect.encoder.FixedWidthColumn;
import io.chsink.connect.encoder.LowCardinalityStringColumn;
import io.chsink.connect.encoder.NativeColumn;
import io.chsink.connect.encoder.NullableColumn;
import io.chsink.connect.encoder.StringColumn;
import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.ClickHouseType.Kind;

/**
 * The one public door into the writers, by ClickHouse type: whether the connector writes it, the column buffer its
 * values go to, the writer of its non-null values, and what a null means for it. Scalar types are dispatched to
 * {@link ScalarWriters}, composite ones to {@link Composites}; Nullable and LowCardinality wrap them here.
 */
public final class Writers {
    private Writers() {
    }

    /** Whether the connector writes values of {@code t} (every element type included). */
    public static boolean supported(ClickHouseType t) {
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

    /** Whether {@code k} is a scalar type family (one writer of its own, no element types). */
    public static boolean isScalar(Kind k) {
        return ScalarWriters.isScalar(k);
    }

    /** Whether {@code t} is a composite or semi-structured type; none of them can travel inside Nullable(...). */
    public static boolean isComposite(ClickHouseType t) {
        return Composites.isComposite(t);
    }

    /** Whether a null (or a missing value) of {@code t} can be written: it is Nullable or has an empty value. */
    public static boolean acceptsNull(ClickHouseType t) {
        return t.isNullable() || Composites.handlesNull(t);
    }

    /**
     * Appends the null of {@code t} to {@code c}, a column made by {@link #newColumn}: NULL, or the empty value of a
     * type that cannot be Nullable. False, with nothing written, when {@code t} has no null.
     */
    public static boolean writeNull(ClickHouseType t, NativeColumn c) {
        if (c instanceof NullableColumn) {
            ((NullableColumn) c).putNull();
        } else if (c instanceof LowCardinalityStringColumn && t.isNullable()) {
            ((LowCardinalityStringColumn) c).putNull();
        } else if (Composites.handlesNull(t)) {
            Composites.writeNull(t, c);
        } else {
            return false;
        }
        return true;
    }

    /** A column buffer for values of {@code t} (any type {@link #writerFor} writes), sized for {@code rows}. */
    public static NativeColumn newColumn(ClickHouseType t, int rows) {
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

    /** The writer of non-null values of {@code t} into a column made by {@link #newColumn(ClickHouseType, int)}. */
    public static ValueWriter writerFor(ClickHouseType t) {
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
