package io.chsink.connect.mapping.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class IsoTimestampsTest {
    private static final ZoneId[] ZONES = {ZoneOffset.UTC, ZoneOffset.ofHours(-5), ZoneId.of("Europe/Berlin"),
            ZoneId.of("America/New_York")};

    @Test
    void theFastPathGivesTheFormattersInstant() {
        String[] values = {"2026-03-01T12:34:56Z", "2026-03-01 12:34:56", "2026-03-01t12:34:56z",
                "2026-03-01T12:34:56.7Z", "2026-03-01T12:34:56.123456789Z", "2026-03-01T12:34:56.000001+02:00",
                "2026-03-01T00:00:00-11:30", "1969-12-31T23:59:59.999Z", "2000-02-29T10:00:00+18:00",
                "1900-01-01T00:00:00Z", "2400-12-31T23:59:59-18:00", "2026-03-29 02:30:00", "2026-11-01 01:30:00"};
        for (ZoneId zone : ZONES) {
            for (String v : values) {
                Instant fast = IsoTimestamps.parse(v, zone);
                assertNotNull(fast, v);
                assertEquals(IsoTimestamps.parseWithFormatter(v, zone), fast, v + " in " + zone);
            }
        }
    }

    @Test
    void randomTimestampsAgreeWithTheFormatter() {
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < 20_000; i++) {
            long second = r.nextLong(-5_000_000_000L, 10_000_000_000L);
            int nanos = r.nextInt(3) == 0 ? 0 : r.nextInt(1_000_000_000);
            String base = Instant.ofEpochSecond(second, nanos).toString(); // ISO, Z, 0/3/6/9 fraction digits
            if (base.startsWith("-") || base.startsWith("+")) {
                continue;
            }
            int shape = r.nextInt(3);
            String v = shape == 0 ? base
                    : shape == 1 ? base.substring(0, base.length() - 1).replace('T', ' ')
                    : base.substring(0, base.length() - 1) + String.format("%+03d:%02d", r.nextInt(-12, 13), r.nextInt(2) * 30);
            ZoneId zone = ZONES[r.nextInt(ZONES.length)];
            assertEquals(IsoTimestamps.parseWithFormatter(v, zone), IsoTimestamps.parse(v, zone), v + " in " + zone);
        }
    }

    @Test
    void otherShapesAndBadFieldsAreLeftToTheFormatter() {
        for (String v : new String[] {"2026-03-01", "2026-03-01T12:34", "2026-03-01T12:34:56+02", "2026-03-01T12:34:56+0200",
                "2026-03-01T12:34:56+02:00:30", "2026-03-01T12:34:56[Europe/Paris]", "2026-03-01T12:34:56.Z",
                "2026-03-01T12:34:56.1234567891Z", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
                "2026-03-01T24:00:00Z", "2026-03-01T12:60:00Z", "2026-03-01T12:00:60Z", "2026-03-01X12:00:00Z",
                "2026-03-01T12:00:00+19:00", "２０２６-03-01T12:00:00Z", "2026-03-01T12:00:00 Z", "20260301T120000Z"}) {
            assertNull(IsoTimestamps.parse(v, ZoneOffset.UTC), v);
        }
    }
}
