package io.chsink.connect.evolve;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;

/**
 * A Connect schema's default value as a ClickHouse literal for a {@code DEFAULT} clause; the server casts it to the
 * column's type. Text-like values (decimals, dates, times, timestamps) are string literals, so they are cast exactly
 * ('1.25' into Decimal(P, 2)), never through a Float64.
 */
final class DefaultLiterals {
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS")
            .withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

    private DefaultLiterals() {
    }

    /** The literal of {@code value} for a column made from {@code s}, or null when it cannot be written as one. */
    static String of(Schema s, Object value) {
        if (value == null) {
            return null;
        }
        String name = s.name();
        if (name != null) {
            switch (name) {
                case Decimal.LOGICAL_NAME:
                    return value instanceof BigDecimal ? quote(((BigDecimal) value).toPlainString()) : null;
                case org.apache.kafka.connect.data.Date.LOGICAL_NAME:
                    return value instanceof java.util.Date
                            ? quote(Instant.ofEpochMilli(((java.util.Date) value).getTime()).atOffset(ZoneOffset.UTC)
                                    .toLocalDate().toString()) : null;
                case org.apache.kafka.connect.data.Time.LOGICAL_NAME:
                    return value instanceof java.util.Date
                            ? quote(LocalTime.ofNanoOfDay(Math.floorMod(((java.util.Date) value).getTime(), 86_400_000L)
                                    * 1_000_000L).format(TIME)) : null;
                case org.apache.kafka.connect.data.Timestamp.LOGICAL_NAME:
                    return value instanceof java.util.Date
                            ? quote(TIMESTAMP.format(Instant.ofEpochMilli(((java.util.Date) value).getTime()))) : null;
                default:
                    if (name.startsWith("io.debezium.") || name.startsWith("io.confluent.connect.")) {
                        return s.type() == Schema.Type.STRING && value instanceof String && !name.contains("Union")
                                ? quote((String) value) : null; // numbers meaning days or ticks: no literal
                    }
            }
        }
        switch (s.type()) {
            case INT8:
            case INT16:
            case INT32:
            case INT64:
                return value instanceof Number ? Long.toString(((Number) value).longValue()) : null;
            case FLOAT32:
            case FLOAT64: {
                if (!(value instanceof Number)) {
                    return null;
                }
                double d = ((Number) value).doubleValue();
                if (Double.isNaN(d)) {
                    return "nan";
                }
                if (Double.isInfinite(d)) {
                    return d > 0 ? "inf" : "-inf";
                }
                return s.type() == Schema.Type.FLOAT32 ? Float.toString(((Number) value).floatValue()) : Double.toString(d);
            }
            case BOOLEAN:
                return value instanceof Boolean ? value.toString() : null;
            case STRING:
                return value instanceof String ? quote((String) value) : null;
            case BYTES:
                return bytes(value);
            case ARRAY: {
                if (!(value instanceof List)) {
                    return null;
                }
                StringBuilder sb = new StringBuilder("[");
                for (Object e : (List<?>) value) {
                    String l = e == null ? "NULL" : of(s.valueSchema(), e);
                    if (l == null) {
                        return null;
                    }
                    sb.append(sb.length() == 1 ? "" : ", ").append(l);
                }
                return sb.append(']').toString();
            }
            case MAP: {
                if (!(value instanceof Map)) {
                    return null;
                }
                StringBuilder sb = new StringBuilder("map(");
                boolean first = true;
                for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                    String k = e.getKey() == null ? null : of(s.keySchema(), e.getKey());
                    String v = e.getValue() == null ? "NULL" : of(s.valueSchema(), e.getValue());
                    if (k == null || v == null) {
                        return null;
                    }
                    sb.append(first ? "" : ", ").append(k).append(", ").append(v);
                    first = false;
                }
                return sb.append(')').toString();
            }
            default:
                return null; // Structs: no literal
        }
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

    private static String bytes(Object value) {
        byte[] b;
        if (value instanceof byte[]) {
            b = (byte[]) value;
        } else if (value instanceof ByteBuffer) {
            ByteBuffer d = ((ByteBuffer) value).duplicate();
            b = new byte[d.remaining()];
            d.get(b);
        } else {
            return null;
        }
        StringBuilder sb = new StringBuilder(b.length * 4 + 2).append('\'');
        for (byte x : b) {
            sb.append(String.format("\\x%02X", x & 0xff));
        }
        return sb.append('\'').toString();
    }
}
