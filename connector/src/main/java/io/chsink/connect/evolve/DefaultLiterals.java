package io.chsink.connect.evolve;

import io.chsink.connect.mapping.SourceAdapters;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * A Connect schema's default value as a ClickHouse literal for a {@code DEFAULT} clause of the column type
 * {@link ConnectTypes} picks for that schema; the server casts it to the column's type. The literal stands for
 * exactly the value a record carrying the default would be written as: decimals, dates, times and timestamps are
 * string literals in the column's own text form ('1.25' into Decimal(P, 2), never through a Float64;
 * '2020-01-01 00:00:00.000000' into DateTime64(6, 'UTC'), from Debezium's µs since the epoch), numbers meaning days or
 * ticks (Debezium's temporal types) are turned into that text first. A default the column type cannot hold exactly
 * (a date outside Date32's range, more decimal digits than the Decimal has, a Struct) has no literal: {@link #of}
 * gives null and {@link #whyNot} the reason, never a nearby value (ClickHouse would clamp an out-of-range date).
 */
final class DefaultLiterals {
    /** Date32: 1900-01-01 .. 2299-12-31, in days since 1970-01-01. */
    private static final long DATE32_MIN = -25567;
    private static final long DATE32_MAX = 120529;
    /** DateTime64: 1900-01-01 00:00:00 .. 2299-12-31 23:59:59.(9) UTC (precision 9 ends at the Int64's end, 2262). */
    private static final long DATETIME64_MIN_SECONDS = -2208988800L;
    private static final long DATETIME64_MAX_SECONDS = 10413791999L;
    /** Time64: -999:59:59.999999999 .. 999:59:59.999999999. */
    private static final long TIME64_MAX_NANOS = 3_600_000L * 1_000_000_000L - 1;
    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss");
    private static final Pattern UUID = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    /** Debezium's ZonedTimestamp text: ISO-8601 with an offset (2020-01-01T10:15:30.123456Z, ...+02:00). */
    private static final DateTimeFormatter ZONED = new DateTimeFormatterBuilder().parseCaseInsensitive()
            .append(DateTimeFormatter.ISO_LOCAL_DATE).appendLiteral('T').append(DateTimeFormatter.ISO_LOCAL_TIME)
            .appendOffsetId().toFormatter().withResolverStyle(ResolverStyle.STRICT);

    /** Why a default has no literal. */
    static final class NoLiteral extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NoLiteral(String reason) {
            super(reason, null, false, false);
        }
    }

    private DefaultLiterals() {
    }

    /** The literal of {@code value} for a column made from {@code s}, or null when it cannot be written as one. */
    static String of(Schema s, Object value) {
        try {
            return value == null ? null : literal(s, value);
        } catch (NoLiteral e) {
            return null;
        }
    }

    /** Why {@code value} has no literal for a column made from {@code s}; null if it has one (or is null). */
    static String whyNot(Schema s, Object value) {
        try {
            if (value != null) {
                literal(s, value);
            }
            return null;
        } catch (NoLiteral e) {
            return e.getMessage();
        }
    }

    private static String literal(Schema s, Object value) {
        String name = s.name();
        if (name != null) {
            String logical = logical(s, name, value);
            if (logical != null) {
                return logical;
            }
        }
        switch (s.type()) {
            case INT8:
            case INT16:
            case INT32:
            case INT64:
                return Long.toString(number(value, s).longValue());
            case FLOAT32:
            case FLOAT64: {
                double d = number(value, s).doubleValue();
                if (Double.isNaN(d)) {
                    return "nan";
                }
                if (Double.isInfinite(d)) {
                    return d > 0 ? "inf" : "-inf";
                }
                return s.type() == Schema.Type.FLOAT32 ? Float.toString(((Number) value).floatValue()) : Double.toString(d);
            }
            case BOOLEAN:
                if (!(value instanceof Boolean)) {
                    throw unexpected(value, s);
                }
                return value.toString();
            case STRING:
                return quote(string(value, s));
            case BYTES:
                return bytes(value, s);
            case ARRAY: {
                if (!(value instanceof List)) {
                    throw unexpected(value, s);
                }
                StringBuilder sb = new StringBuilder("[");
                for (Object e : (List<?>) value) {
                    sb.append(sb.length() == 1 ? "" : ", ").append(e == null ? "NULL" : literal(s.valueSchema(), e));
                }
                return sb.append(']').toString();
            }
            case MAP: {
                if (!(value instanceof Map)) {
                    throw unexpected(value, s);
                }
                StringBuilder sb = new StringBuilder("map(");
                boolean first = true;
                for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                    if (e.getKey() == null) {
                        throw new NoLiteral("a map default with a null key");
                    }
                    sb.append(first ? "" : ", ").append(literal(s.keySchema(), e.getKey())).append(", ")
                            .append(e.getValue() == null ? "NULL" : literal(s.valueSchema(), e.getValue()));
                    first = false;
                }
                return sb.append(')').toString();
            }
            default:
                throw new NoLiteral("a Struct default (Tuple or JSON column) is not written as a literal");
        }
    }

    /** The literal for a schema whose name ConnectTypes maps to its own type; null for names mapped by Connect type. */
    private static String logical(Schema s, String name, Object value) {
        switch (name) {
            case Decimal.LOGICAL_NAME:
                return decimal(s, value);
            case org.apache.kafka.connect.data.Date.LOGICAL_NAME: {
                long ms = date(value, s).getTime();
                if (Math.floorMod(ms, 86_400_000L) != 0) {
                    throw new NoLiteral("a Date default with a time of day");
                }
                return date32(Math.floorDiv(ms, 86_400_000L));
            }
            case org.apache.kafka.connect.data.Time.LOGICAL_NAME: {
                long ms = date(value, s).getTime();
                if (ms < 0 || ms >= 86_400_000L) {
                    throw new NoLiteral("a Time default that is not a time of day");
                }
                return time64(ms, 3);
            }
            case org.apache.kafka.connect.data.Timestamp.LOGICAL_NAME:
                return dateTime64(date(value, s).getTime(), 3);
            case "io.debezium.time.Date":
                return date32(number(value, s).longValue());
            case "io.debezium.time.Time":
                return time64(number(value, s).longValue(), 3);
            case "io.debezium.time.MicroTime":
                return time64(number(value, s).longValue(), 6);
            case "io.debezium.time.NanoTime":
                return time64(number(value, s).longValue(), 9);
            case "io.debezium.time.Timestamp":
                return dateTime64(number(value, s).longValue(), 3);
            case "io.debezium.time.MicroTimestamp":
                return dateTime64(number(value, s).longValue(), 6);
            case "io.debezium.time.NanoTimestamp":
                return dateTime64(number(value, s).longValue(), 9);
            case "io.debezium.time.ZonedTimestamp":
                return dateTime64(ticks(zoned(string(value, s)), 9), 9);
            case "io.debezium.data.Uuid":
                if (s.type() != Schema.Type.STRING) {
                    return null;
                }
                if (!UUID.matcher(string(value, s)).matches()) {
                    throw new NoLiteral("a Uuid default that is not a UUID");
                }
                return quote((String) value);
            case "io.debezium.data.VariableScaleDecimal":
                return quote(variableScaleDecimal(value, s).toPlainString());
            case SourceAdapters.AVRO_UNION:
                throw new NoLiteral("a union default (Variant column) is not written as a literal");
            default:
                if (name.startsWith(SourceAdapters.PROTOBUF_ONEOF_PREFIX) && s.type() == Schema.Type.STRUCT) {
                    throw new NoLiteral("a oneof default (Variant column) is not written as a literal");
                }
                return null; // io.debezium.data.Enum, Json, Bits, time.Year, ZonedTime, ...: by the Connect type
        }
    }

    /** Decimal(P, S) as ConnectTypes picks it: the value's exact digits, its scale made S without rounding. */
    private static String decimal(Schema s, Object value) {
        if (!(value instanceof BigDecimal)) {
            throw unexpected(value, s);
        }
        int[] ps = ConnectTypes.decimalPrecisionScale(s);
        BigDecimal d;
        try {
            d = ((BigDecimal) value).setScale(ps[1]);
        } catch (ArithmeticException e) {
            throw new NoLiteral("a decimal default with more than " + ps[1] + " digits after the point");
        }
        if (d.unscaledValue().abs().compareTo(BigInteger.TEN.pow(ps[0])) >= 0) {
            throw new NoLiteral("a decimal default with more than " + ps[0] + " digits (Decimal(" + ps[0] + ", "
                    + ps[1] + "))");
        }
        return quote(d.toPlainString());
    }

    private static String date32(long days) {
        if (days < DATE32_MIN || days > DATE32_MAX) {
            throw new NoLiteral("a date default outside Date32's range (1900-01-01 to 2299-12-31)");
        }
        return quote(LocalDate.ofEpochDay(days).toString());
    }

    /** {@code [-]HH:MM:SS[.f]} of {@code ticks} units of 10^-precision s. */
    private static String time64(long ticks, int precision) {
        long perSecond = pow10(precision);
        long max = TIME64_MAX_NANOS / pow10(9 - precision);
        if (ticks > max || ticks < -max) {
            throw new NoLiteral("a time default outside Time64's range (-999:59:59 to 999:59:59)");
        }
        long abs = Math.abs(ticks);
        long seconds = abs / perSecond;
        StringBuilder sb = new StringBuilder(ticks < 0 ? "-" : "");
        sb.append(String.format("%02d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60));
        return quote(fraction(sb, abs % perSecond, precision).toString());
    }

    /** {@code YYYY-MM-DD hh:mm:ss[.f]} (UTC) of {@code ticks} units of 10^-precision s since the epoch. */
    private static String dateTime64(long ticks, int precision) {
        long perSecond = pow10(precision);
        long seconds = Math.floorDiv(ticks, perSecond);
        if (seconds < DATETIME64_MIN_SECONDS || seconds > DATETIME64_MAX_SECONDS) {
            throw new NoLiteral("a timestamp default outside DateTime64's range (1900-01-01 to 2299-12-31)");
        }
        StringBuilder sb = new StringBuilder(SECONDS.format(LocalDateTime.ofEpochSecond(seconds, 0, ZoneOffset.UTC)));
        return quote(fraction(sb, Math.floorMod(ticks, perSecond), precision).toString());
    }

    private static long ticks(Instant i, int precision) {
        long perSecond = pow10(precision);
        long nanosPerTick = pow10(9 - precision);
        try {
            return Math.addExact(Math.multiplyExact(i.getEpochSecond(), perSecond), i.getNano() / nanosPerTick);
        } catch (ArithmeticException e) {
            throw new NoLiteral("a timestamp default outside DateTime64(" + precision + ")'s range");
        }
    }

    private static Instant zoned(String s) {
        try {
            return ZONED.parse(s.trim(), Instant::from);
        } catch (DateTimeParseException e) {
            throw new NoLiteral("a ZonedTimestamp default that is not an ISO-8601 timestamp with an offset");
        }
    }

    private static StringBuilder fraction(StringBuilder sb, long fraction, int precision) {
        if (precision > 0) {
            String f = Long.toString(fraction);
            sb.append('.').append("0".repeat(precision - f.length())).append(f);
        }
        return sb;
    }

    private static long pow10(int n) {
        long r = 1;
        for (int i = 0; i < n; i++) {
            r *= 10;
        }
        return r;
    }

    private static BigDecimal variableScaleDecimal(Object value, Schema s) {
        if (!(value instanceof Struct)) {
            throw unexpected(value, s);
        }
        Struct v = (Struct) value;
        Object scale = v.schema().field("scale") == null ? null : v.get("scale");
        Object bytes = v.schema().field("value") == null ? null : v.get("value");
        if (!(scale instanceof Number) || bytes == null) {
            throw new NoLiteral("a VariableScaleDecimal default without scale or value");
        }
        return new BigDecimal(new BigInteger(bytesOf(bytes, s)), ((Number) scale).intValue());
    }

    private static Number number(Object value, Schema s) {
        if (!(value instanceof Number)) {
            throw unexpected(value, s);
        }
        return (Number) value;
    }

    private static java.util.Date date(Object value, Schema s) {
        if (!(value instanceof java.util.Date)) {
            throw unexpected(value, s);
        }
        return (java.util.Date) value;
    }

    private static String string(Object value, Schema s) {
        if (!(value instanceof String)) {
            throw unexpected(value, s);
        }
        return (String) value;
    }

    private static NoLiteral unexpected(Object value, Schema s) {
        return new NoLiteral("a default of Java type " + value.getClass().getSimpleName() + " for Connect "
                + (s.name() != null ? s.name() : s.type().toString()));
    }

    /** A ClickHouse string literal: backslash and quote escaped, control characters as \xNN. */
    static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('\'');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' || c == '\'') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\x%02X", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('\'').toString();
    }

    private static byte[] bytesOf(Object value, Schema s) {
        if (value instanceof byte[]) {
            return (byte[]) value;
        }
        if (value instanceof ByteBuffer) {
            ByteBuffer d = ((ByteBuffer) value).duplicate();
            byte[] b = new byte[d.remaining()];
            d.get(b);
            return b;
        }
        throw unexpected(value, s);
    }

    private static String bytes(Object value, Schema s) {
        byte[] b = bytesOf(value, s);
        StringBuilder sb = new StringBuilder(b.length * 4 + 2).append('\'');
        for (byte x : b) {
            sb.append(String.format("\\x%02X", x & 0xff));
        }
        return sb.append('\'').toString();
    }
}
