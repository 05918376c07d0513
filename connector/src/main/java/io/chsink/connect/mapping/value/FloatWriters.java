package io.chsink.connect.mapping.value;

import io.chsink.connect.encoder.FixedWidthColumn;
import io.chsink.connect.mapping.ValueException;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Float64, Float32 and BFloat16: what is read back from ClickHouse is what was sent. Float64 and Float32 accept
 * a value the column holds exactly, or whose nearest column value has the same shortest decimal form (ClickHouse
 * prints floats in that form, so JSON's {@code 0.1} reads back as {@code 0.1}); a number whose decimal digits
 * would change is an error. BFloat16 is printed as its exact value, so it accepts only values it holds exactly.
 * NaN and infinities pass through.
 */
final class FloatWriters {
    private FloatWriters() {
    }

    static ValueWriter float64() {
        return (v, c) -> ((FixedWidthColumn) c).putLong(Double.doubleToRawLongBits(toFloat64(v)));
    }

    static ValueWriter float32() {
        return (v, c) -> ((FixedWidthColumn) c).putInt(Float.floatToRawIntBits(toFloat32(v)));
    }

    static ValueWriter bfloat16() {
        return (v, c) -> ((FixedWidthColumn) c).putShort(toBFloat16(v));
    }

    /** The double a value denotes exactly; a number with more digits than a double holds is an error. */
    static double toFloat64(Object v) {
        if (v instanceof Double || v instanceof Float) {
            return ((Number) v).doubleValue();
        }
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            long x = ((Number) v).longValue();
            double d = x;
            if (d != 0x1p63 && (long) d == x) {
                return d;
            }
            throw new ValueException("integer has more digits than Float64 holds exactly");
        }
        Double special = special(v);
        if (special != null) {
            return special;
        }
        BigDecimal exact = decimal(v, "Float64");
        double d = exact.doubleValue();
        if (Double.isInfinite(d)) {
            throw new ValueException("value is out of range for Float64");
        }
        if (!sameNumber(new BigDecimal(Double.toString(d)), exact) && !sameNumber(new BigDecimal(d), exact)) {
            throw new ValueException("value has more digits than Float64 holds exactly");
        }
        return d;
    }

    static float toFloat32(Object v) {
        if (v instanceof Float) {
            return (Float) v;
        }
        if (v instanceof Double) {
            double d = (Double) v;
            float f = (float) d;
            if (f == d || Double.isNaN(d)) {
                return f;
            }
            if (Float.isInfinite(f)) {
                throw new ValueException("value is out of range for Float32");
            }
            if (Double.parseDouble(Float.toString(f)) == d) {
                return f; // the decimal that was sent is this float's own shortest form
            }
            throw new ValueException("value has more digits than Float32 holds exactly");
        }
        Double special = special(v);
        if (special != null) {
            return special.floatValue();
        }
        BigDecimal exact = decimal(v, "Float32");
        float f = exact.floatValue();
        if (Float.isInfinite(f)) {
            throw new ValueException("value is out of range for Float32");
        }
        if (!sameNumber(new BigDecimal(Float.toString(f)), exact) && !sameNumber(new BigDecimal(f), exact)) {
            throw new ValueException("value has more digits than Float32 holds exactly");
        }
        return f;
    }

    /** BFloat16 bits: the high half of a Float32, rounded to nearest even. */
    static short toBFloat16(Object v) {
        double d;
        BigDecimal exact = null;
        if (v instanceof Double || v instanceof Float) {
            d = ((Number) v).doubleValue();
        } else {
            Double special = special(v);
            if (special != null) {
                d = special;
            } else {
                exact = decimal(v, "BFloat16");
                d = exact.doubleValue();
            }
        }
        if (Double.isNaN(d)) {
            return (short) 0x7FC0;
        }
        if (Double.isInfinite(d)) {
            return (short) (d > 0 ? 0x7F80 : 0xFF80);
        }
        short bits = roundToBFloat16(d);
        if ((bits & 0x7F80) == 0x7F80) {
            throw new ValueException("value is out of range for BFloat16");
        }
        double held = bfloat16Value(bits);
        if (exact != null ? sameNumber(new BigDecimal(held), exact) : held == d) {
            return bits;
        }
        // ClickHouse shows a BFloat16 as its exact value (0.1 would read back as 0.10009765625): no rounding.
        throw new ValueException("value is not exactly representable in BFloat16 (8 significant bits)");
    }

    /** The BFloat16 nearest to a finite double (ties to even), as its 16 bits. */
    static short roundToBFloat16(double d) {
        if (Math.abs(d) < Float.MIN_NORMAL) {
            int f = Float.floatToRawIntBits((float) d); // subnormal: round the float's bits
            int rem = f & 0xFFFF;
            int upper = f >>> 16;
            if (rem > 0x8000 || (rem == 0x8000 && (upper & 1) == 1)) {
                upper++;
            }
            return (short) upper;
        }
        // 8 significant bits: drop 45 of the double's 52 fraction bits, ties to even (a carry bumps the exponent).
        long b = Double.doubleToRawLongBits(d);
        long mask = (1L << 45) - 1;
        long rem = b & mask;
        long half = 1L << 44;
        b &= ~mask;
        if (rem > half || (rem == half && ((b >>> 45) & 1) == 1)) {
            b += 1L << 45;
        }
        float rounded = (float) Double.longBitsToDouble(b); // exact, or infinite when out of range
        return (short) (Float.floatToRawIntBits(rounded) >>> 16);
    }

    static double bfloat16Value(short bits) {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }

    private static boolean sameNumber(BigDecimal a, BigDecimal b) {
        return a.compareTo(b) == 0;
    }

    /** NaN and infinities given as strings ({@code nan}, {@code inf}, {@code -inf}, {@code Infinity}), else null. */
    private static Double special(Object v) {
        if (!(v instanceof CharSequence)) {
            return null;
        }
        String s = v.toString().trim();
        if (s.equalsIgnoreCase("nan")) {
            return Double.NaN;
        }
        if (s.equalsIgnoreCase("inf") || s.equalsIgnoreCase("+inf") || s.equalsIgnoreCase("infinity")
                || s.equalsIgnoreCase("+infinity")) {
            return Double.POSITIVE_INFINITY;
        }
        if (s.equalsIgnoreCase("-inf") || s.equalsIgnoreCase("-infinity")) {
            return Double.NEGATIVE_INFINITY;
        }
        return null;
    }

    private static BigDecimal decimal(Object v, String type) {
        if (v instanceof BigDecimal) {
            return (BigDecimal) v;
        }
        if (v instanceof BigInteger) {
            return new BigDecimal((BigInteger) v);
        }
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return BigDecimal.valueOf(((Number) v).longValue());
        }
        if (v instanceof CharSequence) {
            try {
                return new BigDecimal(v.toString().trim());
            } catch (NumberFormatException e) {
                throw new ValueException("string is not a number");
            }
        }
        throw new ValueException("cannot convert " + ValueException.kindOf(v) + " to " + type);
    }
}
