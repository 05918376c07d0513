package io.chsink.connect.mapping.value;

import io.chsink.connect.encoder.DynamicColumn;
import io.chsink.connect.encoder.NativeColumn;
import io.chsink.connect.mapping.StructValues;
import io.chsink.connect.mapping.ValueException;
import io.chsink.connect.schema.ClickHouseType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * Dynamic: each value is stored under the ClickHouse type its Java kind names exactly: Long Int64, Integer Int32,
 * Short Int16, Byte Int8, Double Float64, Float Float32, Boolean Bool, String and bytes String, BigDecimal
 * Decimal(38, S) (Decimal(76, S) beyond 38 digits), BigInteger Int128/Int256, UUID UUID, Date
 * DateTime64(3, 'UTC'); a list is Array(T) of its elements' one type (Nullable(T) when some are null; integers
 * mixed with floats are Float64; objects JSON); an Avro union is its branch. A map or Struct value of a Dynamic
 * column is refused (use a JSON column).
 */
final class DynamicWriter implements ValueWriter {
    private final boolean jsonArrays;
    private final Map<String, ClickHouseType> types = new HashMap<>();
    private final Map<String, ValueWriter> writers = new HashMap<>();

    DynamicWriter() {
        this(false);
    }

    /**
     * @param jsonArrays type lists as ClickHouse does inside JSON: scalar elements always Nullable (e.g.
     *     Array(Nullable(Int64)) for [1, 2]), so a path's arrays keep one type whether or not they hold nulls
     */
    DynamicWriter(boolean jsonArrays) {
        this.jsonArrays = jsonArrays;
    }

    /** Lists of objects inside JSON are Array(JSON) with the limits ClickHouse infers for them. */
    static final String NESTED_JSON = "JSON(max_dynamic_types=16, max_dynamic_paths=256)";

    @Override
    public void write(Object v, NativeColumn c) {
        Object value = unwrapUnion(v);
        if (value instanceof Map || value instanceof Struct) {
            throw new ValueException("a Dynamic column takes scalars and arrays, not a " + ValueException.kindOf(value)
                    + " (write objects to a JSON column)");
        }
        writeValue(value, c);
    }

    /** Writes a value of any kind a JSON path holds (objects only inside lists). */
    void writeValue(Object v, NativeColumn c) {
        Object value = unwrapUnion(v);
        DynamicColumn dc = (DynamicColumn) c;
        if (value == null) {
            dc.putNull();
            return;
        }
        String name = typeOf(value, jsonArrays);
        ClickHouseType t = types.computeIfAbsent(name, ClickHouseType::parse);
        ValueWriter w = writers.computeIfAbsent(name, n -> Writers.writerFor(t));
        NativeColumn target = dc.select(name, n -> Writers.newColumn(t, 16));
        CompositeWriters.element(t, w, value, target, "Dynamic value of type " + name);
    }

    private static Object unwrapUnion(Object v) {
        if (VariantWriter.isUnion(v)) {
            Struct u = (Struct) v;
            for (Field f : u.schema().fields()) {
                Object b = StructValues.get(u, f);
                if (b != null) {
                    return b;
                }
            }
            return null;
        }
        return v;
    }

    static String typeOf(Object v) {
        return typeOf(v, false);
    }

    static String typeOf(Object v, boolean jsonArrays) {
        if (v instanceof Long) {
            return "Int64";
        }
        if (v instanceof Integer) {
            return "Int32";
        }
        if (v instanceof Short) {
            return "Int16";
        }
        if (v instanceof Byte) {
            return "Int8";
        }
        if (v instanceof Double) {
            return "Float64";
        }
        if (v instanceof Float) {
            return "Float32";
        }
        if (v instanceof Boolean) {
            return "Bool";
        }
        if (v instanceof CharSequence || v instanceof byte[] || v instanceof ByteBuffer) {
            return "String";
        }
        if (v instanceof BigDecimal) {
            BigDecimal d = (BigDecimal) v;
            int scale = Math.max(d.scale(), 0);
            int intDigits = Math.max(d.precision() - d.scale(), 1);
            if (intDigits + scale <= 38) {
                return "Decimal(38, " + scale + ")";
            }
            if (intDigits + scale <= 76) {
                return "Decimal(76, " + scale + ")";
            }
            throw new ValueException("decimal has more than 76 digits");
        }
        if (v instanceof BigInteger) {
            BigInteger b = (BigInteger) v;
            int bits = b.bitLength();
            if (b.signum() >= 0 && bits <= 64) {
                return "UInt64";
            }
            if (bits < 128) {
                return "Int128";
            }
            if (bits < 256) {
                return "Int256";
            }
            throw new ValueException("integer does not fit Int256");
        }
        if (v instanceof UUID) {
            return "UUID";
        }
        if (v instanceof java.util.Date) {
            return "DateTime64(3, 'UTC')";
        }
        if (v instanceof Collection) {
            return "Array(" + elementType((Collection<?>) v, jsonArrays) + ")";
        }
        if (v instanceof Map || v instanceof Struct) {
            return NESTED_JSON;
        }
        throw new ValueException("cannot store a " + ValueException.kindOf(v) + " in a Dynamic value");
    }

    private static String elementType(Collection<?> values, boolean jsonArrays) {
        Set<String> kinds = new LinkedHashSet<>();
        boolean nulls = false;
        for (Object e : values) {
            Object u = unwrapUnion(e);
            if (u == null) {
                nulls = true;
            } else {
                kinds.add(typeOf(u, jsonArrays));
            }
        }
        String t;
        if (kinds.isEmpty()) {
            t = "String"; // an empty (or all-null) array has no element type to tell; String is the neutral one
        } else if (kinds.size() == 1) {
            t = kinds.iterator().next();
        } else if (numeric(kinds)) {
            for (Object e : values) {
                Object u = unwrapUnion(e);
                if (u instanceof Long && !exactAsDouble((Long) u)) {
                    throw new ValueException("array of a Dynamic value mixes floats with an integer a Float64 cannot hold exactly");
                }
            }
            t = "Float64";
        } else {
            throw new ValueException("array elements of a Dynamic value have different types " + kinds);
        }
        if (nulls || jsonArrays) {
            if (t.equals(NESTED_JSON) || (jsonArrays && t.startsWith("Array("))) {
                return t; // a null object in the list lands as {}
            }
            if (t.startsWith("Array(")) {
                throw new ValueException("null element in a nested array of a Dynamic value");
            }
            return "Nullable(" + t + ")";
        }
        return t;
    }

    private static boolean exactAsDouble(long x) {
        double d = x;
        return d < 9.223372036854775807E18 && (long) d == x;
    }

    private static boolean numeric(Set<String> kinds) {
        for (String k : kinds) {
            if (!k.startsWith("Int") && !k.startsWith("Float")) {
                return false;
            }
        }
        return true;
    }
}
