package io.chsink.connect.mapping.value;

import io.chsink.connect.encoder.FixedWidthColumn;
import io.chsink.connect.encoder.NativeColumn;
import io.chsink.connect.mapping.ValueException;
import java.math.BigDecimal;
import java.math.BigInteger;

/** Decimal(P, S): the unscaled value at scale S, exactly; more scale than S or more than P digits is an error. */
final class DecimalWriter implements ValueWriter {
    private final int precision;
    private final int scale;
    private final int width;
    private final BigInteger limit;
    /** 10^precision as a long, for unscaled values that fit one (precision up to 18). */
    private final long longLimit;

    DecimalWriter(int precision, int scale, int width) {
        this.precision = precision;
        this.scale = scale;
        this.width = width;
        this.limit = BigInteger.TEN.pow(precision);
        this.longLimit = precision <= 18 ? TemporalWriters.pow10(precision) : Long.MAX_VALUE;
    }

    @Override
    public void write(Object v, NativeColumn column) {
        if (v instanceof Double && width <= 8 && scale < POW10.length && writeDouble((Double) v, (FixedWidthColumn) column)) {
            return;
        }
        BigDecimal d = toBigDecimal(v);
        if (width <= 8 && d.scale() == scale && d.precision() <= precision) {
            // The common case (a Connect Decimal of the column's scale): its unscaled value as it is, no new objects.
            NumberWriters.put((FixedWidthColumn) column, width, d.unscaledValue().longValue());
            return;
        }
        BigDecimal scaled;
        try {
            scaled = d.setScale(scale);
        } catch (ArithmeticException e) {
            throw new ValueException("value has more than " + scale + " digits after the point for Decimal("
                    + precision + ", " + scale + ")");
        }
        BigInteger unscaled = scaled.unscaledValue();
        if (unscaled.abs().compareTo(limit) >= 0) {
            throw new ValueException("value has more than " + precision + " digits for Decimal(" + precision
                    + ", " + scale + ")");
        }
        FixedWidthColumn c = (FixedWidthColumn) column;
        if (width <= 8) {
            NumberWriters.put(c, width, unscaled.longValue());
        } else {
            c.putRaw(NumberWriters.littleEndian(unscaled, width));
        }
    }

    /**
     * A double (schemaless JSON) whose decimal digits fit the scale, without text or BigDecimal: with |unscaled| below
     * 2^53 both the unscaled integer and 10^scale are exact doubles, and decimals of {@code scale} fractional digits
     * that differ map to different doubles, so {@code unscaled / 10^scale == x} holds for exactly one unscaled value,
     * the one the JSON text had. False (nothing written) for anything else, which the exact path then decides.
     */
    private boolean writeDouble(double x, FixedWidthColumn c) {
        double scaled = x * POW10[scale];
        if (!(Math.abs(scaled) < TWO_TO_53)) {
            return false; // NaN, infinite, or too large for the shortcut
        }
        long unscaled = Math.round(scaled);
        if ((double) unscaled / POW10[scale] != x || Math.abs(unscaled) >= longLimit) {
            return false;
        }
        NumberWriters.put(c, width, unscaled);
        return true;
    }

    private static final double TWO_TO_53 = 9007199254740992.0;
    private static final double[] POW10 = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
        1e15};

    private static BigDecimal toBigDecimal(Object v) {
        if (v instanceof BigDecimal) {
            return (BigDecimal) v;
        }
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return BigDecimal.valueOf(((Number) v).longValue());
        }
        if (v instanceof BigInteger) {
            return new BigDecimal((BigInteger) v);
        }
        if (v instanceof Double || v instanceof Float) {
            double x = ((Number) v).doubleValue();
            if (Double.isNaN(x) || Double.isInfinite(x)) {
                throw new ValueException("NaN or infinity for a Decimal column");
            }
            // The shortest decimal that reads back as this double: what the JSON text said.
            return new BigDecimal(Double.toString(x));
        }
        if (v instanceof CharSequence) {
            try {
                return new BigDecimal(v.toString().trim());
            } catch (NumberFormatException e) {
                throw new ValueException("string is not a decimal number");
            }
        }
        throw new ValueException("cannot convert " + ValueException.kindOf(v) + " to Decimal");
    }
}
