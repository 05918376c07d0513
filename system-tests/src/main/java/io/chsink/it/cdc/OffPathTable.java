package io.chsink.it.cdc;

import io.chsink.it.stack.ClickHouseHttp;
import io.chsink.it.stack.ClickHouseQueryException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * One source table of {@link OffPathWorkload} (the CDC paths off the main road: TOAST, NULLs into columns with
 * defaults, NaN, ALTER TABLE mid-stream, sorting keys beyond the primary key, tombstones, auto.create from a delete)
 * and its comparison with ClickHouse: like {@link CdcTable}, each side writes every column as canonical text with its
 * own SQL (no value passes through the other side's code), NULL as {@code \N}; large values as their md5 on both
 * sides. Unlike CdcTable, the columns stay apart, so a difference names its column.
 */
public final class OffPathTable {
    /** A compared column: each side's canonical-text expression, {@code %1$s} the (quoted) column. */
    public static final class Col {
        /** What a difference calls it: the column's name, or e.g. "big_text (md5)". */
        public final String name;
        final String column;
        final String pgText;
        final String chText;

        Col(String name, String pgText, String chText) {
            this(name, name, pgText, chText);
        }

        Col(String name, String column, String pgText, String chText) {
            this.name = name;
            this.column = column;
            this.pgText = pgText;
            this.chText = chText;
        }
    }

    static Col integer(String n) {
        return new Col(n, "%1$s::text", "toString(%1$s)");
    }

    static Col numeric(String n) {
        // PostgreSQL prints all s digits of numeric(p,s), ClickHouse's toString of a Decimal trims trailing zeros.
        return new Col(n, "trim_scale(%1$s)::text", "toString(%1$s)");
    }

    static Col text(String n) {
        return new Col(n, "%1$s::text", "%1$s");
    }

    /** A large text, bytea or jsonb value: its md5 (jsonb: of its text, which Debezium sends as it is). */
    static Col md5(String n, String pgType) {
        return new Col(n + " (md5)", n, pgType.equals("jsonb") ? "md5(%1$s::text)" : "md5(%1$s)",
                "lower(hex(MD5(%1$s)))");
    }

    /** A large int[] or text[] value: the md5 of its elements joined by commas, on both sides. */
    static Col md5Array(String n) {
        return new Col(n + " (md5)", n, "md5(array_to_string(%1$s, ','))",
                "lower(hex(MD5(arrayStringConcat(arrayMap(x -> toString(x), %1$s), ','))))");
    }

    static Col bool(String n) {
        return new Col(n, "CASE WHEN %1$s THEN 't' ELSE 'f' END", "if(%1$s, 't', 'f')");
    }

    static Col date(String n) {
        return new Col(n, "to_char(%1$s, 'YYYY-MM-DD')", "toString(%1$s)");
    }

    static Col time(String n) {
        return new Col(n, "to_char(%1$s, 'HH24:MI:SS.US')", "toString(%1$s)");
    }

    static Col timestamp(String n) {
        return new Col(n, "to_char(%1$s, 'YYYY-MM-DD HH24:MI:SS.US')", "formatDateTime(%1$s, '%%Y-%%m-%%d %%H:%%i:%%S.%%f')");
    }

    static Col timestamptz(String n) {
        return new Col(n, "to_char(%1$s AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')",
                "formatDateTime(%1$s, '%%Y-%%m-%%d %%H:%%i:%%S.%%f', 'UTC')");
    }

    /** double precision / real: NaN and the infinities as ClickHouse prints them (nan, inf, -inf). */
    static Col floating(String n) {
        return new Col(n, "CASE WHEN %1$s = 'NaN' THEN 'nan' WHEN %1$s = 'Infinity' THEN 'inf' WHEN %1$s = '-Infinity' "
                + "THEN '-inf' ELSE %1$s::text END", "toString(%1$s)");
    }

    public final String part;
    public final String name;
    final List<String> key;
    final List<Col> cols = new ArrayList<>();
    /** PostgreSQL: the column definitions and the primary key, inside CREATE TABLE (...). */
    final String pgColumns;
    final boolean replicaIdentityFull;
    /** ClickHouse: the column definitions without _version and _is_deleted; null: auto.create makes the table. */
    String chColumns;
    String chOrderBy;
    String chPartitionBy;
    String chSettings;
    /** SETTINGS of the comparison's SELECT ... FINAL in ClickHouse, or empty. */
    String finalSettings = "";

    OffPathTable(String part, String name, String pgColumns, boolean replicaIdentityFull, List<String> key) {
        this.part = part;
        this.name = name;
        this.pgColumns = pgColumns;
        this.replicaIdentityFull = replicaIdentityFull;
        this.key = key;
    }

    OffPathTable col(Col c) {
        cols.add(c);
        return this;
    }

    OffPathTable ch(String columns, String orderBy) {
        this.chColumns = columns;
        this.chOrderBy = orderBy;
        return this;
    }

    String pgCreate() {
        return "CREATE TABLE " + name + " (" + pgColumns + ")";
    }

    /** The ClickHouse twin, ReplacingMergeTree(_version, _is_deleted); null for a table auto.create makes. */
    public String chCreate(String database, boolean dedupWindow) {
        if (chColumns == null) {
            return null;
        }
        List<String> settings = new ArrayList<>();
        if (chSettings != null) {
            settings.add(chSettings);
        }
        if (dedupWindow) {
            settings.add("non_replicated_deduplication_window = 1000");
        }
        return "CREATE TABLE `" + database + "`.`" + name + "` (" + chColumns + ", `_version` UInt64, `_is_deleted` "
                + "UInt8) ENGINE = ReplacingMergeTree(`_version`, `_is_deleted`)"
                + (chPartitionBy == null ? "" : " PARTITION BY " + chPartitionBy) + " ORDER BY (" + chOrderBy + ")"
                + (settings.isEmpty() ? "" : " SETTINGS " + String.join(", ", settings));
    }

    public List<String> columnNames() {
        return cols.stream().map(c -> c.name).collect(Collectors.toList());
    }

    /** Both sides of the table: row counts, the number of differing keys and the first differences. */
    public static final class Comparison {
        public final OffPathTable table;
        public final String database;
        public final String when;
        public final int sourceRows;
        public final int targetRows;
        public final int differing;
        public final List<String> differences;

        Comparison(OffPathTable table, String database, String when, int sourceRows, int targetRows, int differing,
                List<String> differences) {
            this.table = table;
            this.database = database;
            this.when = when;
            this.sourceRows = sourceRows;
            this.targetRows = targetRows;
            this.differing = differing;
            this.differences = differences;
        }

        public boolean equal() {
            return differing == 0 && sourceRows == targetRows;
        }

        @Override
        public String toString() {
            String head = "part (" + table.part + ") " + database + "." + table.name + when + ": PostgreSQL "
                    + sourceRows + " rows, ClickHouse FINAL " + targetRows + " rows";
            if (equal()) {
                return head + ", equal";
            }
            return head + ", " + differing + " keys differ; first:\n      " + String.join("\n      ", differences);
        }
    }

    private static final int SHOWN = 5;

    /** Compares PostgreSQL's rows with ClickHouse's {@code SELECT ... FINAL} (deleted rows excluded), column by column. */
    public Comparison compare(Connection pg, ClickHouseHttp ch, String database, String when) {
        TreeMap<String, String[]> source = new TreeMap<>();
        try (Statement st = pg.createStatement(); ResultSet rs = st.executeQuery(pgQuery())) {
            while (rs.next()) {
                String[] v = new String[cols.size()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = rs.getString(i + 2);
                }
                source.put(rs.getString(1), v);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read " + name + " from PostgreSQL: " + e.getMessage(), e);
        }
        TreeMap<String, String[]> target = new TreeMap<>();
        Set<String> repeated = new LinkedHashSet<>();
        try {
            ch.queryLines(chQuery(database), Duration.ofMinutes(2), line -> {
                if (!line.isEmpty()) {
                    String[] f = line.split("\t", -1);
                    String[] v = new String[cols.size()];
                    System.arraycopy(f, 1, v, 0, Math.min(v.length, f.length - 1));
                    if (target.put(f[0], v) != null) {
                        repeated.add(f[0]);
                    }
                }
            });
        } catch (ClickHouseQueryException e) {
            String m = String.valueOf(e.getMessage());
            return new Comparison(this, database, when, source.size(), -1, source.size(),
                    List.of("the ClickHouse query failed (HTTP " + e.httpStatus() + "): "
                            + (m.length() > 400 ? m.substring(0, 400) + "..." : m)));
        }
        List<String> shown = new ArrayList<>();
        int differing = 0;
        for (String k : repeated) {
            differing++;
            if (shown.size() < SHOWN) {
                shown.add("key " + k + ": more than one live row in ClickHouse FINAL");
            }
        }
        for (Map.Entry<String, String[]> e : source.entrySet()) {
            String[] other = target.get(e.getKey());
            String d = other == null ? "missing in ClickHouse" : columnDifferences(e.getValue(), other);
            if (d != null) {
                differing++;
                if (shown.size() < SHOWN) {
                    shown.add("key " + e.getKey() + ": " + d);
                }
            }
        }
        for (String k : target.keySet()) {
            if (!source.containsKey(k)) {
                differing++;
                if (shown.size() < SHOWN) {
                    shown.add("key " + k + ": only in ClickHouse (deleted in PostgreSQL, or never there)");
                }
            }
        }
        return new Comparison(this, database, when, source.size(), target.size(), differing, shown);
    }

    private String columnDifferences(String[] pg, String[] ch) {
        List<String> d = new ArrayList<>();
        for (int i = 0; i < cols.size(); i++) {
            if (!pg[i].equals(ch[i])) {
                d.add("column " + cols.get(i).name + ": PostgreSQL '" + cut(pg[i]) + "' | ClickHouse '" + cut(ch[i]) + "'");
            }
        }
        return d.isEmpty() ? null : String.join("; ", d);
    }

    private static String cut(String s) {
        return s == null ? "null" : s.length() > 70 ? s.substring(0, 70) + "...(" + s.length() + " chars)" : s;
    }

    String pgQuery() {
        StringBuilder b = new StringBuilder("SELECT concat_ws('|', ");
        b.append(key.stream().map(k -> k + "::text").collect(Collectors.joining(", "))).append(")");
        for (Col c : cols) {
            b.append(", coalesce(").append(String.format(c.pgText, c.column)).append(", '\\N')");
        }
        return b.append(" FROM ").append(name).toString();
    }

    String chQuery(String database) {
        StringBuilder b = new StringBuilder("SELECT concat_ws('|', ");
        b.append(key.stream().map(k -> "toString(`" + k + "`)").collect(Collectors.joining(", "))).append(")");
        for (Col c : cols) {
            b.append(", ifNull(").append(String.format(c.chText, "`" + c.column + "`")).append(", '\\\\N')");
        }
        return b.append(" FROM `").append(database).append("`.`").append(name).append("` FINAL WHERE `_is_deleted` = 0")
                .append(finalSettings.isEmpty() ? "" : " SETTINGS " + finalSettings).append(" FORMAT TSVRaw").toString();
    }
}
