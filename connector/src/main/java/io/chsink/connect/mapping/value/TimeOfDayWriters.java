package io.chsink.connect.mapping.value;

import io.chsink.connect.encoder.FixedWidthColumn;
import io.chsink.connect.mapping.ValueException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.LocalTime;

/**
 * Time (Int32 seconds) and Time64(p) (Int64 ticks of 10^-p s), both signed, within +-999:59:59.(9).
 * Sources: Connect's Time logical type (a java.util.Date on 1970-01-01 UTC), LocalTime, Duration, numbers of
 * seconds (with a fraction for Time64, as ClickHouse reads numbers), and {@code [-]h:mm[:ss[.fraction]]}
 * strings. More precision than the column holds, or a value out of range, is an error.
 */
final class TimeOfDayWriters {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long MAX_NANOS = 3_600_000L * NANOS_PER_SECOND - 1; // 999:59:59.999999999
    private static final long DAY_MILLIS = 86_400_000L;

    private TimeOfDayWriters() {
    }

    static ValueWriter time() {
        return (v, c) -> ((FixedWidthColumn) c).putInt((int) ticks(v, 0));
    }

    static ValueWriter time64(int precision) {
        return (v, c) -> ((FixedWidthColumn) c).putLong(ticks(v, precision));
    }

    /** The value in ticks of 10^-precision seconds, exactly. */
    static long ticks(Object v, int precision) {
        long nanos = toNanos(v, precision);
        if (nanos > MAX_NANOS || nanos < -MAX_NANOS) {
            throw new ValueException("time is out of range for Time (-999:59:59 to 999:59:59)");
        }
        long perTick = TemporalWriters.pow10(9 - precision);
        if (nanos % perTick != 0) {
            throw new ValueException("time has more precision than " + typeName(precision));
        }
        return nanos / perTick;
    }

    private static String typeName(int precision) {
        return precision == 0 ? "Time" : "Time64(" + precision + ")";
    }

    private static long toNanos(Object v, int precision) {
        if (v instanceof java.util.Date) {
            long ms = ((java.util.Date) v).getTime();
            if (ms < 0 || ms >= DAY_MILLIS) {
                throw new ValueException("a timestamp (not a time of day) for a Time column");
            }
            return ms * 1_000_000L;
        }
        if (v instanceof LocalTime) {
            return ((LocalTime) v).toNanoOfDay();
        }
        if (v instanceof Duration) {
            try {
                return ((Duration) v).toNanos();
            } catch (ArithmeticException e) {
                throw new ValueException("time is out of range for Time (-999:59:59 to 999:59:59)");
            }
        }
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            long s = ((Number) v).longValue();
            if (s > 3_600_000L || s < -3_600_000L) {
                throw new ValueException("time is out of range for Time (-999:59:59 to 999:59:59)");
            }
            return s * NANOS_PER_SECOND;
        }
        if (v instanceof Double || v instanceof Float || v instanceof BigDecimal || v instanceof BigInteger) {
            return secondsToNanos(decimal(v));
        }
        if (v instanceof CharSequence) {
            String s = v.toString().trim();
            if (s.indexOf(':') < 0) {
                try {
                    return secondsToNanos(new BigDecimal(s));
                } catch (NumberFormatException e) {
                    throw new ValueException("string is not a time (h:mm:ss[.fraction]) or a number of seconds");
                }
            }
            return parse(s);
        }
        throw new ValueException("cannot convert " + ValueException.kindOf(v) + " to Time");
    }

    private static BigDecimal decimal(Object v) {
        if (v instanceof BigDecimal) {
            return (BigDecimal) v;
        }
        if (v instanceof BigInteger) {
            return new BigDecimal((BigInteger) v);
        }
        double d = ((Number) v).doubleValue();
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw new ValueException("NaN or infinity for a Time column");
        }
        return new BigDecimal(Double.toString(d));
    }

    private static long secondsToNanos(BigDecimal seconds) {
        BigDecimal nanos = seconds.movePointRight(9);
        if (nanos.abs().compareTo(BigDecimal.valueOf(MAX_NANOS)) > 0) {
            throw new ValueException("time is out of range for Time (-999:59:59 to 999:59:59)");
        }
        try {
            return nanos.longValueExact();
        } catch (ArithmeticException e) {
            throw new ValueException("time has more than 9 digits after the second");
        }
    }

    /** {@code [-]h{1,3}:mm[:ss[.f{1,9}]]}; minutes and seconds below 60. */
    static long parse(String s) {
        int i = 0;
        int n = s.length();
        boolean negative = n > 0 && s.charAt(0) == '-';
        if (negative) {
            i++;
        }
        int start = i;
        long hours = 0;
        while (i < n && Character.isDigit(s.charAt(i)) && i - start < 3) {
            hours = hours * 10 + (s.charAt(i++) - '0');
        }
        if (i == start || i >= n || s.charAt(i) != ':') {
            throw bad();
        }
        long minutes = twoDigits(s, i + 1);
        i += 3;
        long seconds = 0;
        long fraction = 0;
        if (i < n) {
            if (s.charAt(i) != ':') {
                throw bad();
            }
            seconds = twoDigits(s, i + 1);
            i += 3;
            if (i < n) {
                if (s.charAt(i) != '.' || i + 1 == n || n - i - 1 > 9) {
                    throw bad();
                }
                int digits = 0;
                for (i++; i < n; i++, digits++) {
                    char ch = s.charAt(i);
                    if (!Character.isDigit(ch)) {
                        throw bad();
                    }
                    fraction = fraction * 10 + (ch - '0');
                }
                fraction *= TemporalWriters.pow10(9 - digits);
            }
        }
        if (minutes > 59 || seconds > 59) {
            throw bad();
        }
        long nanos = ((hours * 60 + minutes) * 60 + seconds) * NANOS_PER_SECOND + fraction;
        return negative ? -nanos : nanos;
    }

    private static long twoDigits(String s, int at) {
        if (at + 2 > s.length() || !Character.isDigit(s.charAt(at)) || !Character.isDigit(s.charAt(at + 1))) {
            throw bad();
        }
        return (s.charAt(at) - '0') * 10 + (s.charAt(at + 1) - '0');
    }

    private static ValueException bad() {
        return new ValueException("string is not a time (h:mm:ss[.fraction]) or a number of seconds");
    }
}
