package io.chsink.connect.cdc;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;

/**
 * Debezium's stand-in for an unchanged TOAST value it did not receive ({@code unavailable.value.placeholder},
 * default {@code __debezium_unavailable_value}): as text in a text or json column, as its bytes in a bytea column
 * ({@code binary.handling.mode=bytes}), or as those bytes in base64 or hex ({@code base64}, {@code hex}).
 */
final class Placeholders {
    private final String text;
    private final String base64;
    private final String hex;
    private final byte[] bytes;

    Placeholders(String text) {
        this.text = text;
        this.bytes = text.getBytes(StandardCharsets.UTF_8);
        this.base64 = Base64.getEncoder().encodeToString(bytes);
        this.hex = Hex.format(bytes);
    }

    /** Whether a field value is the placeholder (a String, byte[] or ByteBuffer; anything else never is). */
    boolean is(Object v) {
        if (v instanceof String) {
            String s = (String) v;
            return s.length() == text.length() && s.equals(text) || s.length() == base64.length() && s.equals(base64)
                    || s.length() == hex.length() && s.equalsIgnoreCase(hex);
        }
        if (v instanceof byte[]) {
            return Arrays.equals((byte[]) v, bytes);
        }
        if (v instanceof ByteBuffer) {
            return ((ByteBuffer) v).equals(ByteBuffer.wrap(bytes));
        }
        return false;
    }

    String text() {
        return text;
    }
}
