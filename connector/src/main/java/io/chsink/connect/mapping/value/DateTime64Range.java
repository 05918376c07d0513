package io.chsink.connect.mapping.value;

import io.chsink.connect.mapping.ValueException;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The instants a DateTime64(p[, tz]) column holds truthfully: ClickHouse's range, 0000-01-01 00:00:00 to
 * 9999-12-31 23:59:59.999999999 in the column's time zone (UTC for a column without one, as the writers read
 * zone-less text), cut to the whole ticks of the precision that fit the Int64 the value is stored in (precision 9:
 * 1677-09-21 00:12:43.145224192 to 2262-04-11 23:47:16.854775807 UTC; precision 8 ends at 4892-10-07). ClickHouse
 * 26.7 shows a value outside the range as the nearest end of it, so writing its ticks would be silent wrong data;
 * such a value is a bad record.
 */
final class DateTime64Range {
    /** ClickHouse's first and last DateTime64 values, local to the column's time zone. */
    static final LocalDateTime FIRST = LocalDateTime.of(0, 1, 1, 0, 0);
    static final LocalDateTime LAST = LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_999);
    private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private final int precision;
    private final String type;
    private final long ticksPerSecond;
    private final long minTicks;
    private final long maxTicks;
    private final Instant min;
    private final Instant max;
    private final String range;

    DateTime64Range(int precision, ZoneId columnZone) {
        ZoneId z = columnZone == null ? ZoneOffset.UTC : columnZone;
        this.precision = precision;
        this.type = "DateTime64(" + precision + (columnZone == null ? "" : ", '" + columnZone.getId() + "'") + ")";
        this.ticksPerSecond = TemporalWriters.pow10(precision);
        this.minTicks = ticks(FIRST.atZone(z).toInstant(), true).max(LONG_MIN).longValueExact();
        this.maxTicks = ticks(LAST.atZone(z).toInstant(), false).min(LONG_MAX).longValueExact();
        this.min = instant(minTicks);
        this.max = instant(maxTicks);
        DateTimeFormatter f = DateTimeFormatter.ofPattern(precision == 0 ? "uuuu-MM-dd HH:mm:ss"
                : "uuuu-MM-dd HH:mm:ss." + "S".repeat(precision));
        this.range = LocalDateTime.ofInstant(min, z).format(f) + " to " + LocalDateTime.ofInstant(max, z).format(f)
                + " in " + z.getId();
    }

    /** The ticks of {@code i}, rounded up ({@code ceil}) or down to a whole tick. */
    private BigInteger ticks(Instant i, boolean ceil) {
        long nanosPerTick = 1_000_000_000L / ticksPerSecond;
        long whole = i.getNano() / nanosPerTick;
        if (ceil && i.getNano() % nanosPerTick != 0) {
            whole++;
        }
        return BigInteger.valueOf(i.getEpochSecond()).multiply(BigInteger.valueOf(ticksPerSecond))
                .add(BigInteger.valueOf(whole));
    }

    private Instant instant(long ticks) {
        return Instant.ofEpochSecond(Math.floorDiv(ticks, ticksPerSecond),
                Math.floorMod(ticks, ticksPerSecond) * (1_000_000_000L / ticksPerSecond));
    }

    /** {@code ticks} (a number the record gave as ticks), or a ValueException when it is out of range. */
    long check(long ticks) {
        if (ticks < minTicks || ticks > maxTicks) {
            throw new ValueException("timestamp " + ticks + " (" + (precision == 0 ? "seconds"
                    : "units of 1e-" + precision + " s") + " since 1970-01-01 00:00:00 UTC) is out of range for "
                    + type + " (" + range + ")");
        }
        return ticks;
    }

    /** {@code i}, or a ValueException when it is out of range. */
    Instant check(Instant i) {
        if (i.isBefore(min) || i.isAfter(max)) {
            throw new ValueException("timestamp " + i + " is out of range for " + type + " (" + range + ")");
        }
        return i;
    }

    String type() {
        return type;
    }
}
