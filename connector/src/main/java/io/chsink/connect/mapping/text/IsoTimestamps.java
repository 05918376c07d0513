package io.chsink.connect.mapping.text;

import io.chsink.connect.mapping.ValueException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;

/**
 * ISO-8601 dates and timestamps as text, with or without a zone. The timestamps schemaless JSON carries
 * ({@code 2026-03-01T12:34:56Z}, {@code 2026-03-01 12:34:56.789}, {@code 2026-03-01T12:34:56+02:00}) take a fast
 * path, read digit by digit, without DateTimeFormatter, whose general parser builds hash maps of fields for every
 * value and took a third of a worker's CPU on such records. Anything else, including every malformed or
 * out-of-range value, goes to the formatter, which gives the same instant or the error.
 */
public final class IsoTimestamps {
    private static final DateTimeFormatter LOCAL = new DateTimeFormatterBuilder()
            .parseCaseInsensitive()
            .append(DateTimeFormatter.ISO_LOCAL_DATE)
            .optionalStart().appendLiteral('T').optionalEnd()
            .optionalStart().appendLiteral(' ').optionalEnd()
            .append(DateTimeFormatter.ISO_LOCAL_TIME)
            .optionalStart().appendOffsetId().optionalEnd()
            .optionalStart().appendLiteral('[').parseCaseSensitive().appendZoneRegionId().appendLiteral(']').optionalEnd()
            .toFormatter();

    private IsoTimestamps() {
    }

    /**
     * The instant {@code s} (already trimmed) names; without an offset or zone the time is local to {@code zone}.
     *
     * @throws ValueException when {@code s} is not an ISO-8601 timestamp or date
     */
    public static Instant parseInstant(String s, ZoneId zone) {
        Instant fast = parse(s, zone);
        return fast != null ? fast : parseWithFormatter(s, zone);
    }

    /**
     * The date {@code s} (already trimmed) names: a LocalDate for {@code yyyy-MM-dd}, else the fields of a timestamp (with
     * its time of day, which the caller judges).
     *
     * @throws ValueException when {@code s} is neither
     */
    public static TemporalAccessor parseDate(String s) {
        try {
            return s.length() <= 10 ? LocalDate.parse(s) : LOCAL.parse(s);
        } catch (DateTimeParseException e) {
            throw new ValueException("string is not an ISO-8601 date (yyyy-MM-dd)");
        }
    }

    /** The general parser (dates, offsets with seconds, [zone] ids, lower-case forms): slower, and it reports errors. */
    static Instant parseWithFormatter(String s, ZoneId zone) {
        try {
            if (s.length() == 10) {
                return LocalDate.parse(s).atStartOfDay(zone).toInstant();
            }
            TemporalAccessor t = LOCAL.parse(s);
            LocalDateTime ldt = LocalDateTime.of(LocalDate.from(t), java.time.LocalTime.from(t));
            if (t.isSupported(ChronoField.OFFSET_SECONDS)) {
                return ldt.toInstant(ZoneOffset.ofTotalSeconds(t.get(ChronoField.OFFSET_SECONDS)));
            }
            ZoneId parsedZone = t.query(java.time.temporal.TemporalQueries.zoneId());
            return ldt.atZone(parsedZone != null ? parsedZone : zone).toInstant();
        } catch (DateTimeException e) {
            throw new ValueException("string is not an ISO-8601 timestamp");
        }
    }

    /**
     * The fast path: {@code yyyy-MM-dd[T|t| ]HH:mm:ss[.f{1,9}][Z|z|±HH:mm]}; without an offset the time is local to
     * {@code zone}. Null when {@code s} has another shape or a field out of range.
     */
    static Instant parse(String s, ZoneId zone) {
        int n = s.length();
        if (n < 19 || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(13) != ':' || s.charAt(16) != ':') {
            return null;
        }
        char sep = s.charAt(10);
        if (sep != 'T' && sep != 't' && sep != ' ') {
            return null;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 2);
        int day = digits(s, 8, 2);
        int hour = digits(s, 11, 2);
        int minute = digits(s, 14, 2);
        int second = digits(s, 17, 2);
        if (year < 0 || month < 1 || month > 12 || day < 1 || day > lengthOfMonth(year, month) || hour < 0 || hour > 23
                || minute < 0 || minute > 59 || second < 0 || second > 59) {
            return null;
        }
        int i = 19;
        int nanos = 0;
        if (i < n && s.charAt(i) == '.') {
            int start = ++i;
            while (i < n && i - start < 9 && isDigit(s.charAt(i))) {
                nanos = nanos * 10 + (s.charAt(i) - '0');
                i++;
            }
            int count = i - start;
            if (count == 0 || (i < n && isDigit(s.charAt(i)))) {
                return null;
            }
            for (int k = count; k < 9; k++) {
                nanos *= 10;
            }
        }
        long local = (daysSinceEpoch(year, month, day) * 24 + hour) * 3600L + minute * 60L + second;
        if (i == n) {
            if (zone instanceof ZoneOffset) {
                return Instant.ofEpochSecond(local - ((ZoneOffset) zone).getTotalSeconds(), nanos);
            }
            return LocalDateTime.of(year, month, day, hour, minute, second, nanos).atZone(zone).toInstant();
        }
        char c = s.charAt(i);
        if ((c == 'Z' || c == 'z') && i + 1 == n) {
            return Instant.ofEpochSecond(local, nanos);
        }
        if ((c == '+' || c == '-') && i + 6 == n && s.charAt(i + 3) == ':') {
            int oh = digits(s, i + 1, 2);
            int om = digits(s, i + 4, 2);
            if (oh < 0 || oh > 18 || om < 0 || om > 59 || (oh == 18 && om > 0)) {
                return null;
            }
            int offset = (oh * 3600 + om * 60) * (c == '-' ? -1 : 1);
            return Instant.ofEpochSecond(local - offset, nanos);
        }
        return null;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** The number in s[from, from + count), or -1 when a character is not a digit. */
    private static int digits(String s, int from, int count) {
        int v = 0;
        for (int i = from; i < from + count; i++) {
            char c = s.charAt(i);
            if (!isDigit(c)) {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    private static int lengthOfMonth(int year, int month) {
        switch (month) {
            case 2:
                return (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28;
            case 4: case 6: case 9: case 11:
                return 30;
            default:
                return 31;
        }
    }

    /** Days from 1970-01-01 to the proleptic Gregorian date (the civil-from-days inverse). */
    private static long daysSinceEpoch(int year, int month, int day) {
        long y = month <= 2 ? year - 1 : year;
        long era = Math.floorDiv(y, 400);
        long yoe = y - era * 400;
        long doy = (153L * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
        long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146097 + doe - 719468;
    }
}
