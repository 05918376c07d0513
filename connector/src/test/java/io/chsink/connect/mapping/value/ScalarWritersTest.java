package io.chsink.connect.mapping.value;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.encoder.NativeColumn;
import io.chsink.connect.mapping.ValueException;
import io.chsink.connect.schema.ClickHouseType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.time.LocalTime;
import org.junit.jupiter.api.Test;

/** The conversion rules of the scalar writers, byte for byte: what is accepted exactly, and what is refused. */
class ScalarWritersTest {
    /** The bytes the scalar writer of {@code type} writes for {@code value} (also for DateTimeRangesTest). */
    static byte[] write(String type, Object value) {
        ClickHouseType t = ClickHouseType.parse(type);
        NativeColumn c = Writers.newColumn(t, 1);
        c.markRow();
        Writers.writerFor(t).write(value, c);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            c.writeData(out);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return out.toByteArray();
    }

    private static long le(byte[] b) {
        ByteBuffer bb = ByteBuffer.wrap(java.util.Arrays.copyOf(b, 8)).order(ByteOrder.LITTLE_ENDIAN);
        return bb.getLong();
    }

    private static void refused(String type, Object value, String reason) {
        ValueException e = assertThrows(ValueException.class, () -> write(type, value), type + " <- " + value);
        assertTrue(e.getMessage().contains(reason), () -> type + " <- " + value + ": " + e.getMessage());
    }

    @Test
    void floatsKeepTheDecimalThatWasSent() {
        assertEquals(Float.floatToRawIntBits(0.1f), (int) le(write("Float32", 0.1d)));
        assertEquals(Float.floatToRawIntBits(0.1f), (int) le(write("Float32", "0.1")));
        assertEquals(Float.floatToRawIntBits(16777216f), (int) le(write("Float32", 16777216L)));
        assertEquals(Float.floatToRawIntBits(Float.NaN), (int) le(write("Float32", Double.NaN)));
        assertEquals(Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY), le(write("Float64", "-inf")));
        assertEquals(Double.doubleToRawLongBits(9007199254740992d), le(write("Float64", 9007199254740992L)));
        refused("Float32", 0.123456789d, "more digits than Float32");
        refused("Float32", 16777217L, "more digits than Float32");
        refused("Float32", 1e39, "out of range for Float32");
        refused("Float64", 9007199254740993L, "more digits than Float64");
        refused("Float64", "0.10000000000000000001", "more digits than Float64");
        refused("Float64", "ten", "not a number");
    }

    @Test
    void bfloat16TakesOnlyWhatItHoldsExactly() {
        assertEquals(0x3F80, le(write("BFloat16", 1.0d)));
        assertEquals(0xC049, le(write("BFloat16", "-3.140625")));
        assertEquals(0x477F, le(write("BFloat16", 65280L)));
        assertEquals(0x7F80, le(write("BFloat16", "inf")));
        assertEquals(0x3DCD, FloatWriters.roundToBFloat16(0.1d) & 0xFFFF); // nearest, for the record
        refused("BFloat16", 0.1d, "not exactly representable in BFloat16");
        refused("BFloat16", "3.14", "not exactly representable in BFloat16");
        refused("BFloat16", 257L, "not exactly representable in BFloat16");
        refused("BFloat16", 1e39, "out of range for BFloat16");
    }

    @Test
    void integersAtTheirEdges() {
        assertArrayEquals(new byte[] {(byte) 0x80}, write("Int8", -128));
        assertEquals(-1L, le(write("UInt64", "18446744073709551615")));
        byte[] max256 = write("Int256", BigInteger.ONE.shiftLeft(255).subtract(BigInteger.ONE).toString());
        assertEquals(32, max256.length);
        assertEquals(0x7F, max256[31]);
        assertEquals((byte) 0xFF, max256[0]);
        byte[] u256 = write("UInt256", BigInteger.ONE.shiftLeft(256).subtract(BigInteger.ONE));
        for (byte x : u256) {
            assertEquals((byte) 0xFF, x);
        }
        refused("UInt256", BigInteger.ONE.shiftLeft(256), "out of range for UInt256");
        refused("Int128", "-170141183460469231731687303715884105729", "out of range for Int128");
        refused("UInt8", -1, "out of range for UInt8");
        refused("Int32", 1.5d, "fractional part");
        refused("Int32", "12a", "not a number");
    }

    @Test
    void decimalsUpToPrecision76() {
        String max = "9999999999999999999999999999999999999999999999999999999999.999999999999999999";
        byte[] b = write("Decimal(76, 18)", new BigDecimal(max));
        assertEquals(32, b.length);
        assertEquals(new BigInteger(max.replace(".", "")), new BigInteger(reverse(b)));
        refused("Decimal(76, 18)", new BigDecimal(max).add(BigDecimal.ONE), "more than 76 digits");
        refused("Decimal(9, 2)", 0.125d, "more than 2 digits after the point");
        assertEquals(-125, (int) le(write("Decimal(9, 3)", -0.125d)));
    }

    /** Doubles (schemaless JSON) into Decimal: the same unscaled value as the exact BigDecimal route, or its error. */
    @Test
    void doublesIntoDecimalsGiveTheDecimalTheJsonTextHad() {
        java.util.Random rnd = new java.util.Random(11);
        for (int i = 0; i < 100_000; i++) {
            long cents = rnd.nextLong() % 100_000_000_000L; // up to 11 digits: some exceed Decimal(10, 2)
            double x = cents / 100.0;
            BigDecimal exact = new BigDecimal(Double.toString(x));
            if (exact.setScale(2, java.math.RoundingMode.UNNECESSARY).unscaledValue().abs().compareTo(BigInteger.TEN.pow(10)) < 0) {
                assertEquals(cents, le(write("Decimal(10, 2)", x)), "for " + x);
            } else {
                refused("Decimal(10, 2)", x, "more than 10 digits");
            }
        }
        refused("Decimal(10, 2)", 0.005d, "more than 2 digits after the point");
        refused("Decimal(10, 2)", 1e300d, "more than 10 digits");
        refused("Decimal(10, 2)", Double.NaN, "NaN");
        assertEquals(-1, le(write("Decimal(10, 2)", -0.01d)));
        assertEquals(123456789012L, le(write("Decimal(18, 2)", 1234567890.12d)));
    }

    private static byte[] reverse(byte[] le) {
        byte[] be = new byte[le.length];
        for (int i = 0; i < le.length; i++) {
            be[i] = le[le.length - 1 - i];
        }
        return be;
    }

    @Test
    void ipAddressesAreParsedNeverResolved() {
        assertEquals(0x01020304L, le(write("IPv4", "1.2.3.4")));
        assertEquals(0xFFFFFFFFL, le(write("IPv4", "255.255.255.255")));
        assertEquals(0xFFFFFFFFL, le(write("IPv4", 4294967295L)));
        byte[] v6 = write("IPv6", "2001:db8::1");
        assertEquals(0x20, v6[0]);
        assertEquals(0x01, v6[15]);
        byte[] mapped = write("IPv6", "10.0.0.1");
        assertEquals((byte) 0xFF, mapped[10]);
        assertEquals(10, mapped[12]);
        refused("IPv4", "256.1.1.1", "not an IPv4 address");
        refused("IPv4", "1.2.3", "not an IPv4 address");
        refused("IPv4", "::1", "not an IPv4 address");
        refused("IPv6", "localhost", "not an IPv6");
        refused("IPv6", "2001:db8:::1", "not an IPv6 address");
    }

    @Test
    void timesOfDayAndDurations() {
        assertEquals(3723, le(write("Time", "01:02:03")));
        assertEquals(-3723, (int) le(write("Time", "-01:02:03")));
        assertEquals(999 * 3600 + 59 * 60 + 59, le(write("Time", "999:59:59")));
        assertEquals(3723123, le(write("Time64(3)", "1:02:03.123")));
        assertEquals(3723123456789L, le(write("Time64(9)", LocalTime.of(1, 2, 3, 123456789))));
        assertEquals(1500, le(write("Time64(3)", 1.5d)));
        assertEquals(45_000, le(write("Time64(3)", new java.util.Date(45_000))));
        assertEquals(90_000_000, le(write("Time64(6)", Duration.ofSeconds(90))));
        refused("Time", "01:02:03.5", "more precision than Time");
        refused("Time64(3)", "00:00:00.0001", "more precision than Time64(3)");
        refused("Time", "1000:00:00", "not a time");
        refused("Time", "10:61:00", "not a time");
        refused("Time", 3_600_001L, "out of range");
        refused("Time", new java.util.Date(86_400_000L), "a timestamp");
    }

    @Test
    void datesRefuseATimeOfDayAndTimestampsExtraPrecision() {
        assertEquals(20454, le(write("Date", "2026-01-01T00:00:00")));
        assertEquals(-25567, (int) le(write("Date32", "1900-01-01")));
        refused("Date", "2026-01-01T10:00:00", "time of day");
        refused("Date", new java.util.Date(86_400_000L + 1), "time of day");
        refused("Date", "1969-12-31", "out of range for Date");
        refused("DateTime", "2106-02-07T06:28:16Z", "out of range for DateTime");
        assertEquals(4294967295L, le(write("DateTime", "2106-02-07T06:28:15Z")));
        assertEquals(-2208988800L * 1_000_000_000L + 1, le(write("DateTime64(9)", "1900-01-01T00:00:00.000000001Z")));
        assertEquals(7258118399999L, le(write("DateTime64(3, 'UTC')", "2199-12-31 23:59:59.999")));
        refused("DateTime64(3)", java.time.Instant.ofEpochSecond(0, 1000), "more precision than DateTime64(3)");
        assertEquals(3600, le(write("DateTime('Europe/Berlin')", "1970-01-01 02:00:00")));
    }

    @Test
    void enumsFixedStringsAndUuids() {
        assertEquals(-1, (byte) le(write("Enum8('a' = -1, 'b' = 2)", "a")));
        assertEquals(1000, le(write("Enum16('x' = 1000)", "x")));
        refused("Enum8('a' = -1, 'b' = 2)", "c", "not one of Enum8");
        refused("Enum8('a' = -1, 'b' = 2)", 3, "not a value of Enum8");
        assertArrayEquals(new byte[] {'a', 'b', 0}, write("FixedString(3)", "ab"));
        refused("FixedString(2)", "ééx", "5 bytes is longer than FixedString(2)");
        refused("UUID", "61f0c404-5cb3-11e7-907b-a6006ad3dbaz", "not a UUID");
        refused("String", new java.util.HashMap<>(), "cannot write a HashMap");
    }
}
