package io.chsink.connect.mapping.value;

import io.chsink.connect.encoder.FixedWidthColumn;
import io.chsink.connect.mapping.ValueException;
import io.chsink.connect.mapping.text.IsoTimestamps;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;

/**
 * Date, Date32, DateTime and DateTime64(p). Sources: java.util.Date (Connect's Date and Timestamp logical
 * types), java.time values (Instant, Offset/Zoned/LocalDateTime, LocalDate), numbers (days for Date/Date32, epoch seconds for DateTime, epoch ticks of the
 * column's precision for DateTime64, as ClickHouse itself reads numbers) and ISO-8601 strings with or
 * without a zone (without one, the column's time zone applies, else UTC), read by {@link IsoTimestamps}.
 * A value outside the type's range is an error: Date 1970-01-01 to 2149-06-06, Date32 1900-01-01 to
 * 2299-12-31, DateTime 1970-01-01 00:00:00 to 2106-02-07 06:28:15 UTC, DateTime64 as {@link DateTime64Range} says.
 */
final class TemporalWriters {
    private static final long DATETIME_MAX = 0xFFFFFFFFL;

    private TemporalWriters() {
    }

    static ValueWriter date() {
        return (v, c) -> {
            long days = toEpochDay(v);
            if (days < 0 || days > 0xFFFF) {
                throw new ValueException("date is out of range for Date (1970-01-01 to 2149-06-06)");
            }
            ((FixedWidthColumn) c).putShort((int) days);
        };
    }

    static ValueWriter date32() {
        return (v, c) -> {
            long days = toEpochDay(v);
            // 1900-01-01 .. 2299-12-31
            if (days < -25567 || days > 120529) {
                throw new ValueException("date is out of range for Date32 (1900-01-01 to 2299-12-31)");
            }
            ((FixedWidthColumn) c).putInt((int) days);
        };
    }

    static ValueWriter dateTime(ZoneId zone) {
        ZoneId z = zone == null ? ZoneOffset.UTC : zone;
        return (v, c) -> {
            long seconds;
            if (v instanceof Number || isDigits(v)) {
                seconds = NumberWriters.toLong(v instanceof Number ? v : Long.valueOf(v.toString().trim()));
            } else if (v instanceof java.util.Date) { // a Connect Timestamp: no Instant needed
                long millis = ((java.util.Date) v).getTime();
                if (Math.floorMod(millis, 1000L) != 0) {
                    throw new ValueException("timestamp has fractional seconds for DateTime (use DateTime64)");
                }
                seconds = Math.floorDiv(millis, 1000L);
            } else {
                Instant i = toInstant(v, z);
                if (i.getNano() != 0) {
                    throw new ValueException("timestamp has fractional seconds for DateTime (use DateTime64)");
                }
                seconds = i.getEpochSecond();
            }
            if (seconds < 0 || seconds > DATETIME_MAX) {
                throw new ValueException("timestamp " + describeSeconds(v, seconds) + " is out of range for "
                        + (zone == null ? "DateTime" : "DateTime('" + zone.getId() + "')")
                        + " (1970-01-01 00:00:00 to 2106-02-07 06:28:15 UTC)");
            }
            ((FixedWidthColumn) c).putInt((int) seconds);
        };
    }

    static ValueWriter dateTime64(int precision, ZoneId zone) {
        ZoneId z = zone == null ? ZoneOffset.UTC : zone;
        long ticksPerSecond = pow10(precision);
        long nanosPerTick = pow10(9 - precision);
        DateTime64Range range = new DateTime64Range(precision, zone);
        return (v, c) -> {
            long ticks;
            if (v instanceof Number || isDigits(v)) {
                ticks = range.check(NumberWriters.toLong(v instanceof Number ? v : Long.valueOf(v.toString().trim())));
            } else {
                Instant i = range.check(toInstant(v, z));
                if (i.getNano() % nanosPerTick != 0) {
                    throw new ValueException("timestamp has more precision than " + range.type());
                }
                // in range, the sum fits a long (at precision 9 the product alone may wrap, exactly, mod 2^64)
                ticks = i.getEpochSecond() * ticksPerSecond + i.getNano() / nanosPerTick;
            }
            ((FixedWidthColumn) c).putLong(ticks);
        };
    }

    /** A DateTime value for an error: the seconds a number gave, else the instant. */
    private static String describeSeconds(Object v, long seconds) {
        if (v instanceof Number || isDigits(v)) {
            return seconds + " (seconds since 1970-01-01 00:00:00 UTC)";
        }
        return Instant.ofEpochSecond(seconds).toString();
    }

    static long pow10(int n) {
        long r = 1;
        for (int i = 0; i < n; i++) {
            r *= 10;
        }
        return r;
    }

    private static boolean isDigits(Object v) {
        if (!(v instanceof CharSequence)) {
            return false;
        }
        String s = v.toString().trim();
        if (s.isEmpty()) {
            return false;
        }
        for (int i = s.charAt(0) == '-' ? 1 : 0; i < s.length(); i++) {
            if (!Character.isDigit(s.charAt(i))) {
                return false;
            }
        }
        return s.length() > (s.charAt(0) == '-' ? 1 : 0);
    }

    /**
     * Days since 1970-01-01. A timestamp is accepted only at midnight (its date then says everything); a time of
     * day would be lost, so it is an error.
     */
    static long toEpochDay(Object v) {
        if (v instanceof java.util.Date) {
            long ms = ((java.util.Date) v).getTime();
            if (Math.floorMod(ms, 86_400_000L) != 0) {
                throw new ValueException("timestamp has a time of day for a date column");
            }
            return Math.floorDiv(ms, 86_400_000L);
        }
        if (v instanceof LocalDate) {
            return ((LocalDate) v).toEpochDay();
        }
        if (v instanceof Number || isDigits(v)) {
            return NumberWriters.toLong(v instanceof Number ? v : Long.valueOf(v.toString().trim()));
        }
        if (v instanceof CharSequence) {
            return midnightDate(IsoTimestamps.parseDate(v.toString().trim()));
        }
        if (v instanceof TemporalAccessor) {
            return midnightDate((TemporalAccessor) v);
        }
        throw new ValueException("cannot convert " + ValueException.kindOf(v) + " to a date");
    }

    private static long midnightDate(TemporalAccessor t) {
        try {
            if (t.isSupported(ChronoField.NANO_OF_DAY) && t.getLong(ChronoField.NANO_OF_DAY) != 0) {
                throw new ValueException("timestamp has a time of day for a date column");
            }
            return LocalDate.from(t).toEpochDay();
        } catch (DateTimeException e) {
            throw new ValueException("cannot convert " + ValueException.kindOf(t) + " to a date");
        }
    }

    static Instant toInstant(Object v, ZoneId zone) {
        if (v instanceof java.util.Date) {
            return Instant.ofEpochMilli(((java.util.Date) v).getTime());
        }
        if (v instanceof Instant) {
            return (Instant) v;
        }
        if (v instanceof OffsetDateTime) {
            return ((OffsetDateTime) v).toInstant();
        }
        if (v instanceof ZonedDateTime) {
            return ((ZonedDateTime) v).toInstant();
        }
        if (v instanceof LocalDateTime) {
            return ((LocalDateTime) v).atZone(zone).toInstant();
        }
        if (v instanceof LocalDate) {
            return ((LocalDate) v).atStartOfDay(zone).toInstant();
        }
        if (v instanceof CharSequence) {
            return IsoTimestamps.parseInstant(v.toString().trim(), zone);
        }
        throw new ValueException("cannot convert " + ValueException.kindOf(v) + " to a timestamp");
    }
}
