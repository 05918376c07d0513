package io.chsink.connect.mapping.value;

import io.chsink.connect.encoder.FixedWidthColumn;
import io.chsink.connect.encoder.NativeColumn;
import io.chsink.connect.mapping.ValueException;
import io.chsink.connect.schema.ClickHouseType.Kind;
import java.math.BigDecimal;
import java.math.BigInteger;

/** Integers and Bool, with exact range checks: a value that does not fit is an error, never wrapped. */
final class NumberWriters {
    private static final BigInteger UINT64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    private NumberWriters() {
    }

    static ValueWriter integer(Kind kind) {
        switch (kind) {
            case INT8: return ranged(Byte.MIN_VALUE, Byte.MAX_VALUE, 1, "Int8");
            case INT16: return ranged(Short.MIN_VALUE, Short.MAX_VALUE, 2, "Int16");
            case INT32: return ranged(Integer.MIN_VALUE, Integer.MAX_VALUE, 4, "Int32");
            case INT64: return ranged(Long.MIN_VALUE, Long.MAX_VALUE, 8, "Int64");
            case UINT8: return ranged(0, 0xFF, 1, "UInt8");
            case UINT16: return ranged(0, 0xFFFF, 2, "UInt16");
            case UINT32: return ranged(0, 0xFFFFFFFFL, 4, "UInt32");
            case UINT64: return (v, c) -> ((FixedWidthColumn) c).putLong(toUInt64(v));
            case INT128: return big(BigInteger.ONE.shiftLeft(127).negate(), BigInteger.ONE.shiftLeft(127).subtract(BigInteger.ONE), 16, "Int128");
            case INT256: return big(BigInteger.ONE.shiftLeft(255).negate(), BigInteger.ONE.shiftLeft(255).subtract(BigInteger.ONE), 32, "Int256");
            case UINT128: return big(BigInteger.ZERO, BigInteger.ONE.shiftLeft(128).subtract(BigInteger.ONE), 16, "UInt128");
            case UINT256: return big(BigInteger.ZERO, BigInteger.ONE.shiftLeft(256).subtract(BigInteger.ONE), 32, "UInt256");
            default: throw new IllegalArgumentException("not an integer kind: " + kind);
        }
    }

    private static ValueWriter ranged(long min, long max, int width, String name) {
        return (v, c) -> {
            long x = toLong(v);
            if (x < min || x > max) {
                throw new ValueException("value is out of range for " + name);
            }
            put((FixedWidthColumn) c, width, x);
        };
    }

    static void put(FixedWidthColumn c, int width, long x) {
        switch (width) {
            case 1: c.putByte((int) x); break;
            case 2: c.putShort((int) x); break;
            case 4: c.putInt((int) x); break;
            default: c.putLong(x); break;
        }
    }

    private static ValueWriter big(BigInteger min, BigInteger max, int width, String name) {
        return (v, c) -> {
            BigInteger x = toBigInteger(v);
            if (x.compareTo(min) < 0 || x.compareTo(max) > 0) {
                throw new ValueException("value is out of range for " + name);
            }
            ((FixedWidthColumn) c).putRaw(littleEndian(x, width));
        };
    }

    /** Two's complement little-endian bytes of {@code x}, sign-extended to {@code width}. */
    static byte[] littleEndian(BigInteger x, int width) {
        byte[] be = x.toByteArray();
        byte[] le = new byte[width];
        byte fill = (byte) (x.signum() < 0 ? 0xFF : 0);
        for (int i = 0; i < width; i++) {
            int src = be.length - 1 - i;
            le[i] = src >= 0 ? be[src] : fill;
        }
        return le;
    }

    static long toLong(Object v) {
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        if (v instanceof Boolean) {
            return (Boolean) v ? 1 : 0;
        }
        BigInteger b = toBigInteger(v);
        if (b.bitLength() > 63) {
            throw new ValueException("value is out of range for a 64-bit integer");
        }
        return b.longValue();
    }

    static long toUInt64(Object v) {
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            long x = ((Number) v).longValue();
            if (x < 0) {
                throw new ValueException("negative value for UInt64");
            }
            return x;
        }
        BigInteger b = toBigInteger(v);
        if (b.signum() < 0 || b.compareTo(UINT64_MAX) > 0) {
            throw new ValueException("value is out of range for UInt64");
        }
        return b.longValue();
    }

    static BigInteger toBigInteger(Object v) {
        if (v instanceof BigInteger) {
            return (BigInteger) v;
        }
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return BigInteger.valueOf(((Number) v).longValue());
        }
        BigDecimal d;
        if (v instanceof BigDecimal) {
            d = (BigDecimal) v;
        } else if (v instanceof Double || v instanceof Float) {
            double x = ((Number) v).doubleValue();
            if (Double.isNaN(x) || Double.isInfinite(x)) {
                throw new ValueException("NaN or infinity for an integer column");
            }
            d = new BigDecimal(x);
        } else if (v instanceof CharSequence) {
            try {
                d = new BigDecimal(v.toString().trim());
            } catch (NumberFormatException e) {
                throw new ValueException("string is not a number");
            }
        } else {
            throw new ValueException("cannot convert " + ValueException.kindOf(v) + " to an integer");
        }
        try {
            return d.toBigIntegerExact();
        } catch (ArithmeticException e) {
            throw new ValueException("value has a fractional part for an integer column");
        }
    }

    static ValueWriter bool() {
        return (v, c) -> {
            boolean b;
            if (v instanceof Boolean) {
                b = (Boolean) v;
            } else if (v instanceof Number) {
                long x = toLong(v);
                if (x != 0 && x != 1) {
                    throw new ValueException("number other than 0 or 1 for Bool");
                }
                b = x == 1;
            } else if (v instanceof CharSequence) {
                String s = v.toString().trim();
                if (s.equalsIgnoreCase("true") || s.equals("1")) {
                    b = true;
                } else if (s.equalsIgnoreCase("false") || s.equals("0")) {
                    b = false;
                } else {
                    throw new ValueException("string is not a boolean");
                }
            } else {
                throw new ValueException("cannot convert " + ValueException.kindOf(v) + " to Bool");
            }
            ((FixedWidthColumn) c).putByte(b ? 1 : 0);
        };
    }
}
