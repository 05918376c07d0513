package io.chsink.connect.evolve;

import io.chsink.connect.mapping.SourceAdapters;
import io.chsink.connect.schema.TableId;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;

/**
 * The ClickHouse column type for a Connect schema, when auto.create makes a table or auto.evolve adds a column (the
 * table in docs/tables.md). An optional schema becomes {@code Nullable(T)} where
 * ClickHouse allows it: never for Array, Map, Tuple, Variant or JSON (a null lands as the empty value there).
 */
public final class ConnectTypes {
    /**
     * Decimal precision when the schema has no {@code connect.decimal.precision} parameter: 64, what Confluent's
     * AvroData means by its absence (CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT: toConnectSchema leaves a precision of 64
     * out, fromConnectSchema writes 64 back), so an Avro decimal of precision 64 gets a column that holds it.
     */
    public static final int DEFAULT_DECIMAL_PRECISION = 64;
    /** The largest precision (and scale) of a ClickHouse Decimal. */
    static final int MAX_DECIMAL_PRECISION = 76;
    static final String DECIMAL_PRECISION = "connect.decimal.precision";

    /** What a Struct that is not a union becomes. */
    public enum StructAs {
        TUPLE, JSON;

        public static StructAs parse(String s) {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        }
    }

    /** A Connect schema with no ClickHouse type this mapping can give. */
    public static final class Unmappable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unmappable(String message) {
            super(message);
        }
    }

    private final StructAs structs;

    public ConnectTypes(StructAs structs) {
        this.structs = structs;
    }

    /** The column type for a field of schema {@code s}: {@code Nullable(T)} when it is optional and T allows it. */
    public String columnType(Schema s) {
        String t = baseType(s);
        return s.isOptional() && nullableAllowed(t) ? "Nullable(" + t + ")" : t;
    }

    /** Whether ClickHouse allows {@code Nullable(t)}. */
    public static boolean nullableAllowed(String t) {
        return !(t.startsWith("Array(") || t.startsWith("Map(") || t.startsWith("Tuple(") || t.startsWith("Variant(")
                || t.equals("JSON") || t.startsWith("JSON(") || t.startsWith("Nullable("));
    }

    /** The type of {@code s} without the Nullable an optional schema adds. */
    public String baseType(Schema s) {
        String name = s.name();
        if (name != null) {
            String logical = logicalType(s, name);
            if (logical != null) {
                return logical;
            }
        }
        switch (s.type()) {
            case INT8: return "Int8";
            case INT16: return "Int16";
            case INT32: return "Int32";
            case INT64: return "Int64";
            case FLOAT32: return "Float32";
            case FLOAT64: return "Float64";
            case BOOLEAN: return "Bool";
            case STRING: return "String";
            case BYTES: return "String";
            case ARRAY: return "Array(" + columnType(s.valueSchema()) + ")";
            case MAP: return "Map(" + baseType(s.keySchema()) + ", " + columnType(s.valueSchema()) + ")";
            case STRUCT: return struct(s);
            default: throw new Unmappable("Connect type " + s.type() + " has no ClickHouse type");
        }
    }

    private String logicalType(Schema s, String name) {
        switch (name) {
            case Decimal.LOGICAL_NAME: {
                int[] ps = decimalPrecisionScale(s);
                return "Decimal(" + ps[0] + ", " + ps[1] + ")";
            }
            case org.apache.kafka.connect.data.Date.LOGICAL_NAME:
            case "io.debezium.time.Date":
                return "Date32";
            case org.apache.kafka.connect.data.Time.LOGICAL_NAME:
            case "io.debezium.time.Time":
                return "Time64(3)";
            case "io.debezium.time.MicroTime":
                return "Time64(6)";
            case "io.debezium.time.NanoTime":
                return "Time64(9)";
            case org.apache.kafka.connect.data.Timestamp.LOGICAL_NAME:
            case "io.debezium.time.Timestamp":
                return "DateTime64(3, 'UTC')";
            case "io.debezium.time.MicroTimestamp":
                return "DateTime64(6, 'UTC')";
            case "io.debezium.time.NanoTimestamp":
            case "io.debezium.time.ZonedTimestamp":
                return "DateTime64(9, 'UTC')";
            case "io.debezium.data.Uuid":
                return s.type() == Schema.Type.STRING ? "UUID" : null;
            case "io.debezium.data.VariableScaleDecimal":
                return "String"; // the scale changes from value to value: its exact decimal text
            case SourceAdapters.AVRO_UNION:
                return s.type() == Schema.Type.STRUCT ? union(s) : null;
            default:
                if (name.startsWith(SourceAdapters.PROTOBUF_ONEOF_PREFIX) && s.type() == Schema.Type.STRUCT) {
                    return union(s);
                }
                return null; // other names: by the Connect type
        }
    }

    /**
     * The precision and scale of the Decimal(P, S) a Connect Decimal schema becomes: P at least S and at most 76 (a
     * value with more digits than P is then a bad record, never rounded); a scale outside 0..76 has no Decimal.
     */
    static int[] decimalPrecisionScale(Schema s) {
        int scale = intParameter(s, Decimal.SCALE_FIELD, 0);
        if (scale < 0 || scale > MAX_DECIMAL_PRECISION) {
            throw new Unmappable("a Decimal of scale " + scale + " has no ClickHouse Decimal (scale 0 to 76)");
        }
        int precision = intParameter(s, DECIMAL_PRECISION, DEFAULT_DECIMAL_PRECISION);
        return new int[] {Math.min(MAX_DECIMAL_PRECISION, Math.max(precision, Math.max(1, scale))), scale};
    }

    private static int intParameter(Schema s, String key, int otherwise) {
        String v = s.parameters() == null ? null : s.parameters().get(key);
        if (v == null) {
            return otherwise;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new Unmappable("parameter " + key + " is not a number: " + v);
        }
    }

    private String struct(Schema s) {
        if (structs == StructAs.JSON) {
            return "JSON";
        }
        if (s.fields().isEmpty()) {
            throw new Unmappable("a Struct without fields has no Tuple type");
        }
        StringBuilder sb = new StringBuilder("Tuple(");
        for (Field f : s.fields()) {
            sb.append(f.index() == 0 ? "" : ", ").append(TableId.quote(f.name())).append(' ').append(columnType(f.schema()));
        }
        return sb.append(')').toString();
    }

    /** An Avro union (or Protobuf oneof): Variant of its branches' types; one distinct type is that type. */
    private String union(Schema s) {
        Set<String> types = new LinkedHashSet<>();
        for (Field f : s.fields()) {
            types.add(baseType(f.schema())); // Variant branches are never Nullable: the Variant holds NULL itself
        }
        if (types.isEmpty()) {
            throw new Unmappable("a union without branches has no type");
        }
        if (types.size() == 1) {
            return types.iterator().next();
        }
        List<String> sorted = new ArrayList<>(types);
        return "Variant(" + String.join(", ", sorted) + ")";
    }
}
