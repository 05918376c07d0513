package io.chsink.it.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Benchmark figures as indented JSON: maps, lists, numbers (doubles with 3 decimals), booleans and strings. */
final class Json {
    private Json() {
    }

    static void write(Path file, Object root) throws IOException {
        StringBuilder sb = new StringBuilder();
        json(sb, root, "");
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, sb.append('\n'), StandardCharsets.UTF_8);
    }

    private static void json(StringBuilder sb, Object v, String indent) {
        if (v instanceof Map<?, ?> map) {
            sb.append("{");
            String inner = indent + "  ";
            String sep = "\n";
            for (Map.Entry<?, ?> e : map.entrySet()) {
                sb.append(sep).append(inner);
                string(sb, e.getKey().toString());
                sb.append(": ");
                json(sb, e.getValue(), inner);
                sep = ",\n";
            }
            sb.append("\n").append(indent).append("}");
        } else if (v instanceof List<?> list) {
            sb.append("[");
            String inner = indent + "  ";
            String sep = "\n";
            for (Object o : list) {
                sb.append(sep).append(inner);
                json(sb, o, inner);
                sep = ",\n";
            }
            sb.append("\n").append(indent).append("]");
        } else if (v instanceof Double d && (d.isNaN() || d.isInfinite())) {
            sb.append("null");
        } else if (v instanceof Double d) {
            sb.append(String.format(Locale.ROOT, "%.3f", d));
        } else if (v == null) {
            sb.append("null");
        } else if (v instanceof Number || v instanceof Boolean) {
            sb.append(v);
        } else {
            string(sb, String.valueOf(v));
        }
    }

    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
