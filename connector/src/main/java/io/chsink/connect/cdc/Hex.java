package io.chsink.connect.cdc;

/** Lower-case hex text of bytes and back (the connector builds for Java 11, which has no HexFormat). */
final class Hex {
    private static final char[] DIGITS = "0123456789abcdef".toCharArray();

    private Hex() {
    }

    static String format(byte[] b) {
        char[] out = new char[b.length * 2];
        for (int i = 0; i < b.length; i++) {
            out[2 * i] = DIGITS[(b[i] >> 4) & 0xf];
            out[2 * i + 1] = DIGITS[b[i] & 0xf];
        }
        return new String(out);
    }

    /** Hex text (either case, as ClickHouse's hex() writes upper case) to bytes. */
    static byte[] parse(String s) {
        if (s.length() % 2 != 0) {
            throw new IllegalArgumentException("hex text of odd length " + s.length());
        }
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++) {
            int hi = Character.digit(s.charAt(2 * i), 16);
            int lo = Character.digit(s.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0) {
                throw new IllegalArgumentException("not hex text at " + (2 * i));
            }
            out[i] = (byte) (hi << 4 | lo);
        }
        return out;
    }
}
