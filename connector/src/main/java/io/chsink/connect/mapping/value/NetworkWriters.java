package io.chsink.connect.mapping.value;

import io.chsink.connect.encoder.FixedWidthColumn;
import io.chsink.connect.mapping.ValueException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

/**
 * IPv4 (a UInt32, little-endian) and IPv6 (16 bytes in network order). Sources: address strings, InetAddress,
 * 4 or 16 raw bytes, and for IPv4 a number 0..2^32-1. An IPv4 address goes into an IPv6 column as
 * {@code ::ffff:a.b.c.d}, as ClickHouse converts it; an IPv6 address into an IPv4 column is an error. Strings are
 * parsed, never resolved: a host name is an error.
 */
final class NetworkWriters {
    private NetworkWriters() {
    }

    static ValueWriter ipv4() {
        return (v, c) -> ((FixedWidthColumn) c).putInt(toIPv4(v));
    }

    static ValueWriter ipv6() {
        return (v, c) -> ((FixedWidthColumn) c).putRaw(toIPv6(v));
    }

    static int toIPv4(Object v) {
        if (v instanceof CharSequence) {
            long a = parseIPv4(v.toString().trim());
            if (a < 0) {
                throw new ValueException("string is not an IPv4 address");
            }
            return (int) a;
        }
        if (v instanceof Inet4Address) {
            return ByteBuffer.wrap(((Inet4Address) v).getAddress()).getInt();
        }
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            long x = ((Number) v).longValue();
            if (x < 0 || x > 0xFFFFFFFFL) {
                throw new ValueException("number is out of range for IPv4");
            }
            return (int) x;
        }
        byte[] b = rawBytes(v);
        if (b != null && b.length == 4) {
            return ByteBuffer.wrap(b).getInt();
        }
        throw new ValueException("cannot convert " + ValueException.kindOf(v) + " to IPv4");
    }

    static byte[] toIPv6(Object v) {
        if (v instanceof CharSequence) {
            String s = v.toString().trim();
            if (s.indexOf(':') < 0) {
                long a = parseIPv4(s);
                if (a < 0) {
                    throw new ValueException("string is not an IPv6 or IPv4 address");
                }
                return mapped((int) a);
            }
            return parseIPv6(s);
        }
        if (v instanceof Inet6Address) {
            return ((Inet6Address) v).getAddress();
        }
        if (v instanceof Inet4Address) {
            return mapped(ByteBuffer.wrap(((Inet4Address) v).getAddress()).getInt());
        }
        byte[] b = rawBytes(v);
        if (b != null && b.length == 16) {
            return b;
        }
        if (b != null && b.length == 4) {
            return mapped(ByteBuffer.wrap(b).getInt());
        }
        throw new ValueException("cannot convert " + ValueException.kindOf(v) + " to IPv6");
    }

    private static byte[] mapped(int ipv4) {
        byte[] out = new byte[16];
        out[10] = (byte) 0xFF;
        out[11] = (byte) 0xFF;
        out[12] = (byte) (ipv4 >>> 24);
        out[13] = (byte) (ipv4 >>> 16);
        out[14] = (byte) (ipv4 >>> 8);
        out[15] = (byte) ipv4;
        return out;
    }

    /** Dotted quad, four decimal parts 0..255 without signs, as an unsigned number; -1 when not one. */
    static long parseIPv4(String s) {
        int parts = 0;
        long value = 0;
        int part = -1;
        int digits = 0;
        for (int i = 0; i <= s.length(); i++) {
            char ch = i < s.length() ? s.charAt(i) : '.';
            if (ch == '.') {
                if (digits == 0 || part > 255 || parts == 4) {
                    return -1;
                }
                value = (value << 8) | part;
                parts++;
                part = -1;
                digits = 0;
            } else if (ch >= '0' && ch <= '9' && digits < 3) {
                part = (part < 0 ? 0 : part * 10) + (ch - '0');
                digits++;
            } else {
                return -1;
            }
        }
        return parts == 4 ? value : -1;
    }

    private static byte[] parseIPv6(String s) {
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            boolean ok = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F')
                    || ch == ':' || ch == '.';
            if (!ok) {
                throw new ValueException("string is not an IPv6 address");
            }
        }
        try {
            // Only hex digits, ':' and '.': a literal, which the JDK parses without any name lookup.
            InetAddress a = InetAddress.getByName(s);
            return a instanceof Inet4Address ? mapped(ByteBuffer.wrap(a.getAddress()).getInt()) : a.getAddress();
        } catch (UnknownHostException | RuntimeException e) {
            throw new ValueException("string is not an IPv6 address");
        }
    }

    private static byte[] rawBytes(Object v) {
        if (v instanceof byte[]) {
            return (byte[]) v;
        }
        if (v instanceof ByteBuffer) {
            ByteBuffer d = ((ByteBuffer) v).duplicate();
            byte[] b = new byte[d.remaining()];
            d.get(b);
            return b;
        }
        return null;
    }
}
