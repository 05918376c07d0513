package io.chsink.connect.schema;

import java.nio.charset.StandardCharsets;
import java.util.Collection;

/**
 * Names sent to ClickHouse as one String query parameter: each name's UTF-8 bytes in hex, comma-separated, read back
 * with {@link #sql}. Hex because a query parameter's value is unescaped by ClickHouse (a backslash sequence in it is
 * read as an escape), so any text encoding with backslashes, JSON's included, loses names that hold one.
 */
public final class HexNames {
    private static final char[] DIGITS = "0123456789ABCDEF".toCharArray();

    private HexNames() {
    }

    /** The parameter's value for {@code names}. */
    public static String of(Collection<String> names) {
        StringBuilder sb = new StringBuilder();
        for (String n : names) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            for (byte b : n.getBytes(StandardCharsets.UTF_8)) {
                sb.append(DIGITS[(b >> 4) & 0xF]).append(DIGITS[b & 0xF]);
            }
        }
        return sb.toString();
    }

    /** The SQL of the names as an {@code Array(String)}, from the String parameter {@code param}. */
    public static String sql(String param) {
        return "arrayMap(x -> unhex(x), splitByChar(',', {" + param + ":String}))";
    }
}
