package io.chsink.connect.cdc;

import java.math.BigDecimal;
import java.math.BigInteger;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;

/**
 * One version as {@link ChangeVersion} computed it, in the width of its rule: 64 bits (a non-negative long, the
 * Connect field an INT64 for a UInt64 column) or 128 bits (a Connect Decimal of scale 0, which the column writers
 * write exactly into a UInt128 or UInt256 column and refuse for a UInt64 one).
 */
final class RowVersion implements Comparable<RowVersion> {
    /** The Connect schema of a 128-bit version field: Decimal, scale 0 (values are BigDecimal integers). */
    static final Schema WIDE_SCHEMA = Decimal.schema(0);

    private final int bits;
    private final long narrow;
    private final BigInteger wide;

    private RowVersion(int bits, long narrow, BigInteger wide) {
        this.bits = bits;
        this.narrow = narrow;
        this.wide = wide;
    }

    static RowVersion narrow(long value) {
        if (value < 0) {
            throw new IllegalArgumentException("a 64-bit version is non-negative: " + value);
        }
        return new RowVersion(64, value, null);
    }

    static RowVersion wide(BigInteger value) {
        if (value.signum() < 0 || value.bitLength() > 128) {
            throw new IllegalArgumentException("a 128-bit version is in [0, 2^128): " + value);
        }
        return new RowVersion(128, 0, value);
    }

    /** The next version: a delete made from a tombstone goes just above the row's last change. */
    RowVersion next() {
        return bits == 64 ? narrow(narrow + 1) : wide(wide.add(BigInteger.ONE));
    }

    /** A version field's value (a Long, or a BigDecimal of scale 0) or a column's text, as a version. */
    static RowVersion of(Object v, int bits) {
        if (v instanceof Long || v instanceof Integer) {
            return bits == 64 ? narrow(((Number) v).longValue()) : wide(BigInteger.valueOf(((Number) v).longValue()));
        }
        if (v instanceof BigDecimal) {
            return wide(((BigDecimal) v).toBigIntegerExact());
        }
        if (v instanceof String) {
            BigInteger b = new BigInteger((String) v);
            return bits == 64 && b.bitLength() < 64 ? narrow(b.longValue()) : wide(b);
        }
        throw new IllegalArgumentException("not a version: " + v);
    }

    /** The Connect schema of the version field for rules of this width (64 or 128). */
    static Schema schema(int bits) {
        return bits == 128 ? WIDE_SCHEMA : Schema.INT64_SCHEMA;
    }

    int bits() {
        return bits;
    }

    Schema schema() {
        return schema(bits);
    }

    /** The value of the version field: a Long (64 bits) or a BigDecimal of scale 0 (128 bits). */
    Object toConnectValue() {
        return bits == 64 ? (Object) narrow : new BigDecimal(wide);
    }

    /** The 64-bit version; a 128-bit one has no long form. */
    long toLong() {
        if (bits != 64) {
            throw new IllegalStateException("a 128-bit version has no long form: " + wide);
        }
        return narrow;
    }

    BigInteger toBigInteger() {
        return bits == 64 ? BigInteger.valueOf(narrow) : wide;
    }

    @Override
    public int compareTo(RowVersion o) {
        if (bits == 64 && o.bits == 64) {
            return Long.compare(narrow, o.narrow);
        }
        return toBigInteger().compareTo(o.toBigInteger());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RowVersion && ((RowVersion) o).bits == bits && compareTo((RowVersion) o) == 0;
    }

    @Override
    public int hashCode() {
        return toBigInteger().hashCode() * 31 + bits;
    }

    @Override
    public String toString() {
        return toBigInteger().toString();
    }
}
