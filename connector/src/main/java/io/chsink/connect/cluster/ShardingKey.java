package io.chsink.connect.cluster;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Whether ClickHouse evaluates a sharding key the same way twice for the same rows: every function it calls, and
 * every function of the DEFAULT/MATERIALIZED expressions of the columns it reads (the initiator computes those for
 * the rows the connector leaves out), must be deterministic ({@code system.functions.deterministic}). A function
 * the server does not call deterministic, or does not know (a user-defined function), makes the key
 * non-deterministic: a rebuilt block could be split differently. Pure logic on the key's text.
 */
public final class ShardingKey {
    private static final Set<String> KEYWORDS = Set.of("in", "and", "or", "not", "case", "when", "then", "else",
            "end", "is", "between", "like", "ilike", "interval", "as", "distinct", "global", "null", "true", "false");

    private ShardingKey() {
    }

    /**
     * The functions that make {@code key} non-deterministic, empty when it is deterministic.
     *
     * @param defaults column name to its DEFAULT or MATERIALIZED expression (columns without one are absent)
     * @param deterministic a function name to {@code system.functions.deterministic} (null: unknown)
     */
    public static Set<String> nondeterministicFunctions(String key, Map<String, String> defaults,
            Function<String, Boolean> deterministic) {
        Set<String> bad = new LinkedHashSet<>();
        Set<String> seenColumns = new LinkedHashSet<>();
        Deque<String> expressions = new ArrayDeque<>();
        expressions.add(key);
        while (!expressions.isEmpty()) {
            String e = expressions.poll();
            for (String f : names(e, true)) {
                if (!Boolean.TRUE.equals(deterministic.apply(f))) {
                    bad.add(f);
                }
            }
            for (String column : names(e, false)) {
                String d = defaults.get(column);
                if (d != null && seenColumns.add(column)) {
                    expressions.add(d);
                }
            }
        }
        return bad;
    }

    /** The function names ({@code functions}) or the bare identifiers (else) of an expression, outside literals. */
    public static Set<String> names(String expr, boolean functions) {
        Set<String> out = new LinkedHashSet<>();
        int n = expr.length();
        for (int i = 0; i < n; i++) {
            char c = expr.charAt(i);
            if (c == '\'') { // a string literal
                for (i++; i < n && expr.charAt(i) != '\''; i++) {
                    if (expr.charAt(i) == '\\') {
                        i++;
                    }
                }
            } else if (c == '`' || c == '"') { // a quoted identifier: always a column here
                int end = expr.indexOf(c, i + 1);
                end = end < 0 ? n : end;
                if (!functions) {
                    out.add(expr.substring(i + 1, end));
                }
                i = end;
            } else if (Character.isLetter(c) || c == '_') {
                int start = i;
                while (i + 1 < n && (Character.isLetterOrDigit(expr.charAt(i + 1)) || expr.charAt(i + 1) == '_')) {
                    i++;
                }
                String word = expr.substring(start, i + 1);
                int next = i + 1;
                while (next < n && Character.isWhitespace(expr.charAt(next))) {
                    next++;
                }
                boolean call = next < n && expr.charAt(next) == '(';
                boolean keyword = KEYWORDS.contains(word.toLowerCase(Locale.ROOT));
                if (!keyword && call == functions) {
                    out.add(word);
                }
            } else if (Character.isDigit(c)) { // a number, e.g. 1e3 or 0x1F: not a name
                while (i + 1 < n && (Character.isLetterOrDigit(expr.charAt(i + 1)) || expr.charAt(i + 1) == '.')) {
                    i++;
                }
            }
        }
        return out;
    }
}
