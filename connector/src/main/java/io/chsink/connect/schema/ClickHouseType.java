package io.chsink.connect.schema;

import java.time.ZoneId;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A parsed ClickHouse column type, e.g. {@code LowCardinality(Nullable(String))} or {@code DateTime64(3, 'UTC')}.
 * {@link #text()} is the type exactly as the server spelled it, which is also what a Native block header carries.
 */
public final class ClickHouseType {

    /** The type families the connector knows; anything else is {@link #OTHER}. */
    public enum Kind {
        INT8(1), INT16(2), INT32(4), INT64(8), INT128(16), INT256(32),
        UINT8(1), UINT16(2), UINT32(4), UINT64(8), UINT128(16), UINT256(32),
        FLOAT32(4), FLOAT64(8), BFLOAT16(2), BOOL(1),
        STRING(0), FIXED_STRING(0), UUID(16), IPV4(4), IPV6(16),
        DATE(2), DATE32(4), DATETIME(4), DATETIME64(8), TIME(4), TIME64(8),
        DECIMAL(0), ENUM8(1), ENUM16(2),
        NULLABLE(0), LOW_CARDINALITY(0), ARRAY(0), MAP(0), TUPLE(0),
        // composite and semi-structured kinds
        NESTED(0), JSON(0), VARIANT(0), DYNAMIC(0), SIMPLE_AGGREGATE_FUNCTION(0),
        POINT(0), RING(0), LINE_STRING(0), MULTI_LINE_STRING(0), POLYGON(0), MULTI_POLYGON(0),
        OTHER(0);

        /** Bytes per value in a Native column for fixed-width kinds; 0 for the others. */
        public final int width;

        Kind(int width) {
            this.width = width;
        }
    }

    private final Kind kind;
    private final String text;
    private final List<ClickHouseType> params;
    private final int precision;
    private final int scale;
    private final int length;
    private final ZoneId zone;
    private final Map<String, Integer> enumValues;
    private List<String> elementNames = Collections.emptyList();
    private Map<String, ClickHouseType> typedPaths = Collections.emptyMap();

    ClickHouseType(Kind kind, String text, List<ClickHouseType> params, int precision, int scale, int length,
            ZoneId zone, Map<String, Integer> enumValues) {
        this.kind = kind;
        this.text = text;
        this.params = params == null ? Collections.emptyList() : Collections.unmodifiableList(params);
        this.precision = precision;
        this.scale = scale;
        this.length = length;
        this.zone = zone;
        this.enumValues = enumValues == null ? Collections.emptyMap()
                : Collections.unmodifiableMap(new LinkedHashMap<>(enumValues));
    }

    public static ClickHouseType parse(String text) {
        return new TypeParser(text).parse();
    }

    public Kind kind() {
        return kind;
    }

    public String text() {
        return text;
    }

    /** Nested types: the inner type of Nullable, LowCardinality and Array, key and value of Map, Tuple elements. */
    public List<ClickHouseType> params() {
        return params;
    }

    public ClickHouseType inner() {
        return params.get(0);
    }

    /** Decimal precision (digits). */
    public int precision() {
        return precision;
    }

    /** Decimal scale, or DateTime64/Time64 precision (digits after the second). */
    public int scale() {
        return scale;
    }

    /** FixedString length in bytes. */
    public int length() {
        return length;
    }

    /** The explicit time zone of DateTime/DateTime64, or null when the column has none. */
    public ZoneId zone() {
        return zone;
    }

    /** Enum names to values, in declaration order. */
    public Map<String, Integer> enumValues() {
        return enumValues;
    }

    /** Element names of a named Tuple or of Nested, in order; empty for an unnamed Tuple and other types. */
    public List<String> elementNames() {
        return elementNames;
    }

    /** The typed paths of a JSON type ({@code JSON(a.b UInt32)}), in declaration order. */
    public Map<String, ClickHouseType> typedPaths() {
        return typedPaths;
    }

    ClickHouseType withElementNames(List<String> names) {
        this.elementNames = Collections.unmodifiableList(names);
        return this;
    }

    ClickHouseType withTypedPaths(Map<String, ClickHouseType> paths) {
        this.typedPaths = Collections.unmodifiableMap(paths);
        return this;
    }

    /**
     * The type whose Native layout this type shares: geo types are Tuples/Arrays of Float64 pairs, Nested is an
     * Array of a named Tuple, SimpleAggregateFunction(f, T) is T. Other types are their own structure.
     */
    public ClickHouseType structure() {
        switch (kind) {
            case POINT: return parse("Tuple(Float64, Float64)");
            case RING: case LINE_STRING: return parse("Array(Tuple(Float64, Float64))");
            case MULTI_LINE_STRING: case POLYGON: return parse("Array(Array(Tuple(Float64, Float64)))");
            case MULTI_POLYGON: return parse("Array(Array(Array(Tuple(Float64, Float64))))");
            case NESTED: {
                StringBuilder sb = new StringBuilder("Array(Tuple(");
                for (int i = 0; i < params.size(); i++) {
                    sb.append(i == 0 ? "" : ", ").append(TableId.quote(elementNames.get(i))).append(' ')
                            .append(params.get(i).text());
                }
                return parse(sb.append("))").toString());
            }
            case SIMPLE_AGGREGATE_FUNCTION: return params.get(params.size() - 1);
            default: return this;
        }
    }

    public boolean isNullable() {
        return kind == Kind.NULLABLE
                || (kind == Kind.LOW_CARDINALITY && inner().kind == Kind.NULLABLE);
    }

    /** Bytes per value of a Decimal column: 4, 8, 16 or 32 by precision. */
    public int decimalWidth() {
        if (precision <= 9) {
            return 4;
        }
        if (precision <= 18) {
            return 8;
        }
        return precision <= 38 ? 16 : 32;
    }

    @Override
    public String toString() {
        return text;
    }
}
