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
            {"Nested", "NESTED"}, {"JSON", "JSON"}, {"Variant", "VARIANT"}, {"Dynamic", "DYNAMIC"},
            {"SimpleAggregateFunction", "SIMPLE_AGGREGATE_FUNCTION"}, {"Point", "POINT"}, {"Ring", "RING"},
            {"LineString", "LINE_STRING"}, {"MultiLineString", "MULTI_LINE_STRING"}, {"Polygon", "POLYGON"},
            {"MultiPolygon", "MULTI_POLYGON"},
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
            args.add(argument(kind, args.size()));
            skipSpaces();
            char c = peek();
            if (c == ',') {
                pos++;
            } else if (c != ')') {
                throw error("expected ',' or ')'");
            }
        }
    }

    /** A named element of a Tuple or Nested: {@code name Type}. */
    private static final class Named {
        final String name;
        final ClickHouseType type;

        Named(String name, ClickHouseType type) {
            this.name = name;
            this.type = type;
        }
    }

    private Object argument(Kind kind, int index) {
        char c = peek();
        if (kind == Kind.JSON || kind == Kind.DYNAMIC || (kind == Kind.SIMPLE_AGGREGATE_FUNCTION && index == 0)) {
            return rawUntilComma(); // settings, typed paths, SKIP clauses, the aggregate function: parsed in build()
        }
        if ((kind == Kind.TUPLE || kind == Kind.NESTED) && c == '`') {
            String name = backquoted();
            return new Named(name, type());
        }
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
        if (kind == Kind.TUPLE || kind == Kind.NESTED) {
            int save = pos;
            String name = identifier(); // a named element starts with its name: "name Type"
            skipSpaces();
            if (peek() != ',' && peek() != ')' && peek() != '(') {
                return new Named(name, type());
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
        List<String> names = new ArrayList<>();
        for (Object a : args) {
            if (a instanceof ClickHouseType) {
                params.add((ClickHouseType) a);
            } else if (a instanceof Named) {
                params.add(((Named) a).type);
                names.add(((Named) a).name);
            }
        }
        if (!names.isEmpty() && names.size() != params.size()) {
            throw error("a Tuple's elements are either all named or all unnamed");
        }
        Map<String, ClickHouseType> typedPaths = new LinkedHashMap<>();
        if (kind == Kind.JSON) {
            for (Object a : args) {
                typedPath(String.valueOf(a).trim(), typedPaths);
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
        boolean needsParams = kind == Kind.NULLABLE || kind == Kind.LOW_CARDINALITY || kind == Kind.ARRAY
                || kind == Kind.SIMPLE_AGGREGATE_FUNCTION;
        if (needsParams && params.size() != 1) {
            throw error(name + " takes exactly one type");
        }
        if (kind == Kind.MAP && params.size() != 2) {
            throw error("Map takes a key and a value type");
        }
        if ((kind == Kind.TUPLE || kind == Kind.NESTED || kind == Kind.VARIANT) && params.isEmpty()) {
            throw error(name + " takes at least one type");
        }
        return new ClickHouseType(kind, text, params, precision, scale, length, zone, enums)
                .withElementNames(names).withTypedPaths(typedPaths);
    }

    /** One argument of JSON(...): a typed path {@code a.b UInt32} or {@code `a b` String}; settings and SKIPs are ignored. */
    private static void typedPath(String arg, Map<String, ClickHouseType> out) {
        if (arg.isEmpty() || arg.startsWith("SKIP ") || arg.startsWith("SKIP\t")) {
            return;
        }
        String path;
        String rest;
        if (arg.charAt(0) == '`') {
            TypeParser p = new TypeParser(arg);
            path = p.backquoted();
            rest = arg.substring(p.pos);
        } else {
            int sp = 0;
            while (sp < arg.length() && !Character.isWhitespace(arg.charAt(sp)) && arg.charAt(sp) != '=') {
                sp++;
            }
            if (sp == arg.length() || arg.charAt(sp) == '=' || arg.substring(sp).trim().startsWith("=")) {
                return; // max_dynamic_paths=N, max_dynamic_types=N
            }
            path = arg.substring(0, sp);
            rest = arg.substring(sp);
        }
        out.put(path, ClickHouseType.parse(rest.trim()));
    }

    private String backquoted() {
        StringBuilder sb = new StringBuilder();
        pos++; // opening backquote
        while (pos < src.length()) {
            char c = src.charAt(pos++);
            if (c == '\\' && pos < src.length()) {
                sb.append(src.charAt(pos++));
            } else if (c == '`') {
                if (peek() == '`') {
                    sb.append('`');
                    pos++;
                } else {
                    skipSpaces();
                    return sb.toString();
                }
            } else {
                sb.append(c);
            }
        }
        throw error("unterminated identifier");
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
