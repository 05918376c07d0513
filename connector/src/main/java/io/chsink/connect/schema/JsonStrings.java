package io.chsink.connect.schema;

import java.util.Collection;

/** A JSON array of strings, for names sent to ClickHouse as one String parameter (read back with JSONExtract). */
public final class JsonStrings {
    private JsonStrings() {
    }

    public static String array(Collection<String> values) {
        StringBuilder sb = new StringBuilder("[");
        for (String v : values) {
            if (sb.length() > 1) {
                sb.append(',');
            }
            sb.append('"');
            for (int i = 0; i < v.length(); i++) {
                char c = v.charAt(i);
                if (c == '"' || c == '\\') {
                    sb.append('\\').append(c);
                } else if (c < 0x20) {
                    sb.append(String.format("\\u%04x", (int) c));
                } else {
                    sb.append(c);
                }
            }
            sb.append('"');
        }
        return sb.append(']').toString();
    }
}
