package io.chsink.connect.mapping.value;

import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.ClickHouseType.Kind;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The writer of every scalar ClickHouse type, as a table from type family to writer factory. Each factory runs
 * once per column (when a table's mapping is built); the writers it returns hold everything they need.
 */
final class ScalarWriters {
    private static final Map<Kind, Function<ClickHouseType, ValueWriter>> TABLE = new EnumMap<>(Kind.class);

    static {
        for (Kind k : new Kind[] {Kind.INT8, Kind.INT16, Kind.INT32, Kind.INT64, Kind.INT128, Kind.INT256,
                Kind.UINT8, Kind.UINT16, Kind.UINT32, Kind.UINT64, Kind.UINT128, Kind.UINT256}) {
            TABLE.put(k, t -> NumberWriters.integer(t.kind()));
        }
        TABLE.put(Kind.FLOAT32, t -> FloatWriters.float32());
        TABLE.put(Kind.FLOAT64, t -> FloatWriters.float64());
        TABLE.put(Kind.BFLOAT16, t -> FloatWriters.bfloat16());
        TABLE.put(Kind.BOOL, t -> NumberWriters.bool());
        TABLE.put(Kind.STRING, t -> TextWriters.string());
        TABLE.put(Kind.FIXED_STRING, t -> TextWriters.fixedString(t.length()));
        TABLE.put(Kind.UUID, t -> TextWriters.uuid());
        TABLE.put(Kind.IPV4, t -> NetworkWriters.ipv4());
        TABLE.put(Kind.IPV6, t -> NetworkWriters.ipv6());
        TABLE.put(Kind.ENUM8, t -> TextWriters.enumeration(t.enumValues(), 1, t.text()));
        TABLE.put(Kind.ENUM16, t -> TextWriters.enumeration(t.enumValues(), 2, t.text()));
        TABLE.put(Kind.DECIMAL, t -> new DecimalWriter(t.precision(), t.scale(), t.decimalWidth()));
        TABLE.put(Kind.DATE, t -> TemporalWriters.date());
        TABLE.put(Kind.DATE32, t -> TemporalWriters.date32());
        TABLE.put(Kind.DATETIME, t -> TemporalWriters.dateTime(t.zone()));
        TABLE.put(Kind.DATETIME64, t -> TemporalWriters.dateTime64(t.scale(), t.zone()));
        TABLE.put(Kind.TIME, t -> TimeOfDayWriters.time());
        TABLE.put(Kind.TIME64, t -> TimeOfDayWriters.time64(t.scale()));
    }

    private ScalarWriters() {
    }

    /** The writer of a scalar type, or null when {@code t} is not a scalar type this table knows. */
    static ValueWriter forType(ClickHouseType t) {
        Function<ClickHouseType, ValueWriter> f = TABLE.get(t.kind());
        return f == null ? null : f.apply(t);
    }

    static boolean isScalar(Kind k) {
        return TABLE.containsKey(k);
    }
}
