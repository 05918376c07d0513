package io.chsink.connect.mapping.value;

import io.chsink.connect.encoder.FixedStringColumn;
import io.chsink.connect.encoder.FixedWidthColumn;
import io.chsink.connect.encoder.LowCardinalityStringColumn;
import io.chsink.connect.encoder.StringColumn;
import io.chsink.connect.mapping.ValueException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Map;
import java.util.UUID;

/** String, FixedString, LowCardinality(String), UUID and Enum8/16. */
final class TextWriters {
    private TextWriters() {
    }

    static ValueWriter string() {
        return (v, c) -> {
            StringColumn col = (StringColumn) c;
            if (v instanceof String) {
                col.putString((String) v);
            } else if (v instanceof byte[]) {
                byte[] b = (byte[]) v;
                col.putBytes(b, 0, b.length);
            } else if (v instanceof ByteBuffer) {
                byte[] b = bytes((ByteBuffer) v);
                col.putBytes(b, 0, b.length);
            } else {
                col.putString(scalarText(v));
            }
        };
    }

    static ValueWriter lowCardinalityString() {
        return (v, c) -> ((LowCardinalityStringColumn) c).putString(
                v instanceof String ? (String) v : scalarText(v));
    }

    static ValueWriter fixedString(int length) {
        return (v, c) -> {
            byte[] b;
            if (v instanceof byte[]) {
                b = (byte[]) v;
            } else if (v instanceof ByteBuffer) {
                b = bytes((ByteBuffer) v);
            } else {
                b = scalarText(v).getBytes(StandardCharsets.UTF_8);
            }
            if (b.length > length) {
                throw new ValueException("value of " + b.length + " bytes is longer than FixedString(" + length + ")");
            }
            ((FixedStringColumn) c).putBytes(b);
        };
    }

    /** UUID: the high 64 bits then the low 64 bits, each little-endian. */
    static ValueWriter uuid() {
        return (v, c) -> {
            UUID u;
            if (v instanceof UUID) {
                u = (UUID) v;
            } else if (v instanceof CharSequence) {
                String s = v.toString().trim();
                if (s.length() != 36) {
                    throw new ValueException("string is not a UUID");
                }
                try {
                    u = UUID.fromString(s);
                } catch (IllegalArgumentException e) {
                    throw new ValueException("string is not a UUID");
                }
            } else {
                throw new ValueException("cannot convert " + ValueException.kindOf(v) + " to UUID");
            }
            FixedWidthColumn col = (FixedWidthColumn) c;
            col.putLong(u.getMostSignificantBits());
            col.putLong(u.getLeastSignificantBits());
        };
    }

    static ValueWriter enumeration(Map<String, Integer> values, int width, String typeText) {
        java.util.Set<Integer> numbers = new java.util.HashSet<>(values.values());
        return (v, c) -> {
            Integer code;
            if (v instanceof CharSequence) {
                code = values.get(v.toString());
                if (code == null) {
                    throw new ValueException("name is not one of " + typeText);
                }
            } else if (v instanceof Number) {
                long n = NumberWriters.toLong(v);
                if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE || !numbers.contains((int) n)) {
                    throw new ValueException("number is not a value of " + typeText);
                }
                code = (int) n;
            } else {
                throw new ValueException("cannot convert " + ValueException.kindOf(v) + " to " + typeText);
            }
            NumberWriters.put((FixedWidthColumn) c, width, code);
        };
    }

    /** The text of a scalar for a String column; structures are rejected (no silent toString of a Struct). */
    static String scalarText(Object v) {
        if (v instanceof CharSequence || v instanceof Boolean || v instanceof Character) {
            return v.toString();
        }
        if (v instanceof BigDecimal) {
            return ((BigDecimal) v).toPlainString();
        }
        if (v instanceof Number) {
            return v.toString();
        }
        if (v instanceof UUID || v instanceof java.time.temporal.TemporalAccessor || v instanceof java.time.Duration) {
            return v.toString(); // ISO-8601 text (LocalDate, Instant, ... from schema-named sources)
        }
        if (v instanceof java.net.InetAddress) {
            return ((java.net.InetAddress) v).getHostAddress();
        }
        if (v instanceof Map || v instanceof Collection || v instanceof org.apache.kafka.connect.data.Struct) {
            throw new ValueException("cannot write a " + ValueException.kindOf(v) + " into a string column");
        }
        throw new ValueException("cannot convert " + ValueException.kindOf(v) + " to a string");
    }

    private static byte[] bytes(ByteBuffer bb) {
        ByteBuffer d = bb.duplicate();
        byte[] b = new byte[d.remaining()];
        d.get(b);
        return b;
    }
}
