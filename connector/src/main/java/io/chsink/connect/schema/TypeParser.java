package io.chsink.connect.schema;

import io.chsink.connect.schema.ClickHouseType.Kind;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Recursive-descent parser for ClickHouse type names as {@code system.columns} reports them. */
final class TypeParser {
    private static final Map<String, Kind> SIMPLE = new HashMap<>();

    static {
        String[][] names = {
            {"Int8", "INT8"}, {"Int16", "INT16"}, {"Int32", "INT32"}, {"Int64", "INT64"},
            {"Int128", "INT128"}, {"Int256", "INT256"},
            {"UInt8", "UINT8"}, {"UInt16", "UINT16"}, {"UInt32", "UINT32"}, {"UInt64", "UINT64"},
            {"UInt128", "UINT128"}, {"UInt256", "UINT256"},
            {"Float32", "FLOAT32"}, {"Float64", "FLOAT64"}, {"BFloat16", "BFLOAT16"}, {"Bool", "BOOL"},
            {"String", "STRING"}, {"FixedString", "FIXED_STRING"}, {"UUID", "UUID"},
            {"IPv4", "IPV4"}, {"IPv6", "IPV6"},
            {"Date", "DATE"}, {"Date32", "DATE32"}, {"DateTime", "DATETIME"}, {"DateTime64", "DATETIME64"},
            {"Time", "TIME"}, {"Time64", "TIME64"},
            {"Decimal", "DECIMAL"}, {"Decimal32", "DECIMAL"}, {"Decimal64", "DECIMAL"},
            {"Decimal128", "DECIMAL"}, {"Decimal256", "DECIMAL"},
            {"Enum8", "ENUM8"}, {"Enum16", "ENUM16"},
            {"Nullable", "NULLABLE"}, {"LowCardinality", "LOW_CARDINALITY"}, {"Array", "ARRAY"},
            {"Map", "MAP"}, {"Tuple", "TUPLE"},
        };
        for (String[] n : names) {
            SIMPLE.put(n[0], Kind.valueOf(n[1]));
        }
    }

    private final String src;
    private int pos;

    TypeParser(String src) {
        this.src = src;
    }

    ClickHouseType parse() {
        ClickHouseType t = type();
        skipSpaces();
        if (pos != src.length()) {
            throw error("unexpected text");
        }
        return t;
    }

    private ClickHouseType type() {
        skipSpaces();
        int start = pos;
        String name = identifier();
        Kind kind = SIMPLE.getOrDefault(name, Kind.OTHER);
        List<Object> args = new ArrayList<>();
        skipSpaces();
        if (peek() == '(') {
            pos++;
            args = arguments(kind);
        }
        String text = src.substring(start, pos).trim();
        return build(kind, name, text, args);
    }

    private List<Object> arguments(Kind kind) {
        List<Object> args = new ArrayList<>();
        while (true) {
            skipSpaces();
            if (peek() == ')') {
                pos++;
                return args;
            }
            args.add(argument(kind));
            skipSpaces();
            char c = peek();
            if (c == ',') {
                pos++;
            } else if (c != ')') {
                throw error("expected ',' or ')'");
            }
        }
    }

    private Object argument(Kind kind) {
        char c = peek();
        if (c == '\'') {
            String s = quoted();
            skipSpaces();
            if (peek() == '=') { // enum element 'name' = value
                pos++;
                skipSpaces();
                return new Object[] {s, Integer.parseInt(number())};
            }
            return s;
        }
        if (c == '-' || Character.isDigit(c)) {
            return Integer.valueOf(number());
        }
        if (kind == Kind.OTHER) {
            // Unknown parametric types (AggregateFunction, JSON, ...): keep the raw text, balanced.
            return rawUntilComma();
        }
        if (kind == Kind.TUPLE) {
            int save = pos;
            identifier(); // a named element starts with its name: "name Type"
            skipSpaces();
            if (peek() != ',' && peek() != ')' && peek() != '(') {
                return type(); // named element: "name Type"
            }
            pos = save;
        }
        return type();
    }

    private String rawUntilComma() {
        int depth = 0;
        int start = pos;
        while (pos < src.length()) {
            char c = src.charAt(pos);
            if (c == '\'') {
                quoted();
                continue;
            }
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                if (depth == 0) {
                    break;
                }
                depth--;
            } else if (c == ',' && depth == 0) {
                break;
            }
            pos++;
        }
        return src.substring(start, pos);
    }

    private ClickHouseType build(Kind kind, String name, String text, List<Object> args) {
        List<ClickHouseType> params = new ArrayList<>();
        for (Object a : args) {
            if (a instanceof ClickHouseType) {
                params.add((ClickHouseType) a);
            }
        }
        int precision = 0;
        int scale = 0;
        int length = 0;
        ZoneId zone = null;
        Map<String, Integer> enums = null;
        switch (kind) {
            case DECIMAL:
                if (name.equals("Decimal")) {
                    precision = intArg(args, 0, 10);
                    scale = intArg(args, 1, 0);
                } else {
                    precision = name.equals("Decimal32") ? 9 : name.equals("Decimal64") ? 18
                            : name.equals("Decimal128") ? 38 : 76;
                    scale = intArg(args, 0, 0);
                }
                break;
            case DATETIME:
                zone = zoneArg(args, 0);
                break;
            case DATETIME64:
                scale = intArg(args, 0, 3);
                zone = zoneArg(args, 1);
                break;
            case TIME64:
                scale = intArg(args, 0, 3);
                break;
            case FIXED_STRING:
                length = intArg(args, 0, 0);
                break;
            case ENUM8:
            case ENUM16:
                enums = new LinkedHashMap<>();
                for (Object a : args) {
                    Object[] e = (Object[]) a;
                    enums.put((String) e[0], (Integer) e[1]);
                }
                break;
            default:
                break;
        }
        boolean needsParams = kind == Kind.NULLABLE || kind == Kind.LOW_CARDINALITY || kind == Kind.ARRAY;
        if (needsParams && params.size() != 1) {
            throw error(name + " takes exactly one type");
        }
        return new ClickHouseType(kind, text, params, precision, scale, length, zone, enums);
    }

    private static int intArg(List<Object> args, int i, int dflt) {
        return args.size() > i && args.get(i) instanceof Integer ? (Integer) args.get(i) : dflt;
    }

    private static ZoneId zoneArg(List<Object> args, int i) {
        return args.size() > i && args.get(i) instanceof String ? ZoneId.of((String) args.get(i)) : null;
    }

    private String identifier() {
        int start = pos;
        while (pos < src.length() && (Character.isLetterOrDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
            pos++;
        }
        if (start == pos) {
            throw error("expected a type name");
        }
        return src.substring(start, pos);
    }

    private String number() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        while (pos < src.length() && Character.isDigit(src.charAt(pos))) {
            pos++;
        }
        return src.substring(start, pos);
    }

    private String quoted() {
        StringBuilder sb = new StringBuilder();
        pos++; // opening quote
        while (pos < src.length()) {
            char c = src.charAt(pos++);
            if (c == '\\' && pos < src.length()) {
                sb.append(src.charAt(pos++));
            } else if (c == '\'') {
                if (peek() == '\'') { // doubled quote
                    sb.append('\'');
                    pos++;
                } else {
                    return sb.toString();
                }
            } else {
                sb.append(c);
            }
        }
        throw error("unterminated string");
    }

    private char peek() {
        return pos < src.length() ? src.charAt(pos) : '\0';
    }

    private void skipSpaces() {
        while (pos < src.length() && Character.isWhitespace(src.charAt(pos))) {
            pos++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(
                String.format(Locale.ROOT, "Cannot parse ClickHouse type '%s' at %d: %s", src, pos, what));
    }
}
