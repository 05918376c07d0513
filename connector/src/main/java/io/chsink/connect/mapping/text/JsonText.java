package io.chsink.connect.mapping.text;

import io.chsink.connect.mapping.ValueException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON text given for a JSON column: {@link #parse} reads a document strictly into maps, lists, strings, Long (or
 * BigInteger beyond 64 bits), Double (a number with a fraction or exponent), booleans and nulls; anything else, or
 * a number beyond a double's range, is an error.
 */
public final class JsonText {
    private final String src;
    private int pos;

    private JsonText(String src) {
        this.src = src;
    }

    public static Object parse(String text) {
        JsonText p = new JsonText(text);
        Object v = p.value();
        p.spaces();
        if (p.pos != text.length()) {
            throw p.error();
        }
        return v;
    }

    private Object value() {
        spaces();
        if (pos >= src.length()) {
            throw error();
        }
        char c = src.charAt(pos);
        switch (c) {
            case '{': {
                pos++;
                Map<String, Object> m = new LinkedHashMap<>();
                spaces();
                if (peek() == '}') {
                    pos++;
                    return m;
                }
                while (true) {
                    spaces();
                    if (peek() != '"') {
                        throw error();
                    }
                    String k = string();
                    spaces();
                    expect(':');
                    m.put(k, value());
                    spaces();
                    if (peek() == ',') {
                        pos++;
                    } else {
                        expect('}');
                        return m;
                    }
                }
            }
            case '[': {
                pos++;
                List<Object> l = new ArrayList<>();
                spaces();
                if (peek() == ']') {
                    pos++;
                    return l;
                }
                while (true) {
                    l.add(value());
                    spaces();
                    if (peek() == ',') {
                        pos++;
                    } else {
                        expect(']');
                        return l;
                    }
                }
            }
            case '"':
                return string();
            case 't':
                word("true");
                return Boolean.TRUE;
            case 'f':
                word("false");
                return Boolean.FALSE;
            case 'n':
                word("null");
                return null;
            default:
                return number();
        }
    }

    private Object number() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        boolean integral = true;
        int digits = 0;
        while (pos < src.length()) {
            char c = src.charAt(pos);
            if (c >= '0' && c <= '9') {
                digits++;
            } else if (c == '.' || c == 'e' || c == 'E' || ((c == '+' || c == '-') && pos > start)) {
                integral = false;
            } else {
                break;
            }
            pos++;
        }
        String s = src.substring(start, pos);
        if (digits == 0) {
            throw error();
        }
        try {
            if (integral) {
                BigInteger b = new BigInteger(s);
                return b.bitLength() < 64 ? (Object) b.longValue() : b;
            }
            double d = Double.parseDouble(s); // a JSON number with a fraction or exponent is a Float64, as ClickHouse reads it
            if (Double.isInfinite(d)) {
                throw error();
            }
            return d;
        } catch (NumberFormatException e) {
            throw error();
        }
    }

    private String string() {
        pos++; // opening quote
        StringBuilder sb = new StringBuilder();
        while (pos < src.length()) {
            char c = src.charAt(pos++);
            if (c == '"') {
                return sb.toString();
            }
            if (c == '\\') {
                if (pos >= src.length()) {
                    break;
                }
                char e = src.charAt(pos++);
                switch (e) {
                    case '"': case '\\': case '/': sb.append(e); break;
                    case 'b': sb.append('\b'); break;
                    case 'f': sb.append('\f'); break;
                    case 'n': sb.append('\n'); break;
                    case 'r': sb.append('\r'); break;
                    case 't': sb.append('\t'); break;
                    case 'u':
                        if (pos + 4 > src.length()) {
                            throw error();
                        }
                        try {
                            sb.append((char) Integer.parseInt(src.substring(pos, pos + 4), 16));
                        } catch (NumberFormatException x) {
                            throw error();
                        }
                        pos += 4;
                        break;
                    default:
                        throw error();
                }
            } else if (c < 0x20) {
                throw error();
            } else {
                sb.append(c);
            }
        }
        throw error();
    }

    private void word(String w) {
        if (!src.startsWith(w, pos)) {
            throw error();
        }
        pos += w.length();
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error();
        }
        pos++;
    }

    private char peek() {
        return pos < src.length() ? src.charAt(pos) : '\0';
    }

    private void spaces() {
        while (pos < src.length() && (src.charAt(pos) == ' ' || src.charAt(pos) == '\t' || src.charAt(pos) == '\n'
                || src.charAt(pos) == '\r')) {
            pos++;
        }
    }

    private ValueException error() {
        return new ValueException("string is not valid JSON (at character " + pos + ")");
    }
}
