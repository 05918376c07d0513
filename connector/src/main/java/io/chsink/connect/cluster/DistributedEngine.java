package io.chsink.connect.cluster;

import java.util.ArrayList;
import java.util.List;

/**
 * The arguments of a Distributed table's engine clause, as {@code system.tables.engine_full} shows it:
 * {@code Distributed('cluster', 'database', 'table'[, sharding_key[, 'policy']])} possibly followed by
 * {@code SETTINGS ...}. Pure logic.
 */
public final class DistributedEngine {
    private final String cluster;
    private final String database;
    private final String table;
    private final String shardingKey;

    private DistributedEngine(String cluster, String database, String table, String shardingKey) {
        this.cluster = cluster;
        this.database = database;
        this.table = table;
        this.shardingKey = shardingKey;
    }

    /** Parses {@code engine_full}; throws IllegalArgumentException when it is not a Distributed engine clause. */
    public static DistributedEngine parse(String engineFull) {
        String s = engineFull == null ? "" : engineFull.trim();
        if (!s.startsWith("Distributed(")) {
            throw new IllegalArgumentException("not a Distributed engine: " + engineFull);
        }
        List<String> args = arguments(s, "Distributed(".length());
        if (args.size() < 3) {
            throw new IllegalArgumentException("a Distributed engine needs cluster, database and table: " + engineFull);
        }
        String key = args.size() > 3 ? args.get(3).trim() : "";
        return new DistributedEngine(name(args.get(0)), name(args.get(1)), name(args.get(2)),
                key.isEmpty() ? null : key);
    }

    /** The cluster in {@code remote_servers}. */
    public String cluster() {
        return cluster;
    }

    /** The database of the local tables; empty: each shard's default database. */
    public String database() {
        return database;
    }

    /** The local table on every shard. */
    public String table() {
        return table;
    }

    /** The sharding key expression as written, or null when the table has none. */
    public String shardingKey() {
        return shardingKey;
    }

    /** The top-level arguments from {@code start} (just after the opening parenthesis) to the matching one. */
    private static List<String> arguments(String s, int start) {
        List<String> args = new ArrayList<>();
        int depth = 0;
        int from = start;
        char quote = 0;
        for (int i = start; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '`' || c == '"') {
                quote = c;
            } else if (c == '(' || c == '[') {
                depth++;
            } else if (c == ')' || c == ']') {
                if (depth == 0) {
                    args.add(s.substring(from, i));
                    return args;
                }
                depth--;
            } else if (c == ',' && depth == 0) {
                args.add(s.substring(from, i));
                from = i + 1;
            }
        }
        throw new IllegalArgumentException("unbalanced Distributed engine clause: " + s);
    }

    /** A literal or identifier argument, unquoted: {@code 'a\'b'} gives {@code a'b}, {@code `t`} gives {@code t}. */
    static String name(String arg) {
        String a = arg.trim();
        if (a.length() >= 2 && (a.charAt(0) == '\'' || a.charAt(0) == '`' || a.charAt(0) == '"')
                && a.charAt(a.length() - 1) == a.charAt(0)) {
            StringBuilder sb = new StringBuilder();
            for (int i = 1; i < a.length() - 1; i++) {
                char c = a.charAt(i);
                if (c == '\\' && i + 1 < a.length() - 1) {
                    c = a.charAt(++i);
                } else if (c == a.charAt(0) && i + 1 < a.length() - 1 && a.charAt(i + 1) == c) {
                    i++; // a doubled quote
                }
                sb.append(c);
            }
            return sb.toString();
        }
        return a;
    }
}
