package io.chsink.it.cdc;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One source table of the CDC workload, as PostgreSQL and ClickHouse each define it, and how each side writes a
 * row as canonical text: every column formatted by its own side's SQL (no value passes through the other side's
 * code), joined with '|', NULL as {@code \N}. Equal text means equal rows.
 */
public final class CdcTable {
    /** A column: PostgreSQL and ClickHouse types, and each side's canonical-text expression ({@code %s} = column). */
    public static final class Column {
        public final String name;
        public final String pgType;
        public final String chType;
        /** The PostgreSQL type alone, for casts of JDBC string parameters. */
        final String pgBase;
        final String pgText;
        final String chText;

        Column(String name, String pgType, String chType, String pgText, String chText) {
            this.name = name;
            this.pgType = pgType;
            this.pgBase = pgType.replace(" NOT NULL DEFAULT '{}'", "").replace(" NOT NULL", "");
            this.chType = chType;
            this.pgText = pgText;
            this.chText = chText;
        }
    }

    public final String name;
    public final List<Column> columns;
    public final List<String> primaryKey;
    /** REPLICA IDENTITY FULL (deletes carry the whole before image) or DEFAULT (the key only). */
    public final boolean replicaIdentityFull;

    CdcTable(String name, List<Column> columns, List<String> primaryKey, boolean replicaIdentityFull) {
        this.name = name;
        this.columns = columns;
        this.primaryKey = primaryKey;
        this.replicaIdentityFull = replicaIdentityFull;
    }

    static Column bigint(String n, boolean nullable) {
        return col(n, "bigint", "Int64", nullable, "%s::text", "toString(%s)");
    }

    static Column integer(String n, boolean nullable) {
        return col(n, "int", "Int32", nullable, "%s::text", "toString(%s)");
    }

    static Column numeric(String n, int p, int s, boolean nullable) {
        // trim_scale: PostgreSQL prints numeric(p,s) with all s digits, ClickHouse's toString without trailing zeros.
        return col(n, "numeric(" + p + "," + s + ")", "Decimal(" + p + ", " + s + ")", nullable, "trim_scale(%s)::text",
                "toString(%s)");
    }

    static Column text(String n, String pgType, boolean nullable) {
        return col(n, pgType, "String", nullable, "%s::text", "%s");
    }

    static Column bool(String n, boolean nullable) {
        return col(n, "boolean", "Bool", nullable, "CASE WHEN %s THEN 't' ELSE 'f' END", "if(%s, 't', 'f')");
    }

    static Column date(String n, boolean nullable) {
        return col(n, "date", "Date32", nullable, "to_char(%s, 'YYYY-MM-DD')", "toString(%s)");
    }

    static Column timestamp(String n, boolean nullable) {
        return col(n, "timestamp(6)", "DateTime64(6)", nullable, "to_char(%s, 'YYYY-MM-DD HH24:MI:SS.US')",
                "formatDateTime(%s, '%%Y-%%m-%%d %%H:%%i:%%S.%%f')");
    }

    static Column timestamptz(String n, boolean nullable) {
        return col(n, "timestamptz", "DateTime64(6, 'UTC')", nullable,
                "to_char(%s AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')",
                "formatDateTime(%s, '%%Y-%%m-%%d %%H:%%i:%%S.%%f')");
    }

    static Column uuid(String n, boolean nullable) {
        return col(n, "uuid", "UUID", nullable, "%s::text", "toString(%s)");
    }

    static Column jsonb(String n, boolean nullable) {
        // Debezium sends jsonb as PostgreSQL prints it (io.debezium.data.Json): the same text as jsonb::text.
        return col(n, "jsonb", "String", nullable, "%s::text", "%s");
    }

    /** int[] NOT NULL (a NULL array would land as [] in ClickHouse, where Array cannot be Nullable). */
    static Column intArray(String n) {
        return new Column(n, "int[] NOT NULL DEFAULT '{}'", "Array(Nullable(Int32))",
                "'[' || array_to_string(%s, ',', 'N') || ']'",
                "concat('[', arrayStringConcat(arrayMap(e -> ifNull(toString(e), 'N'), %s), ','), ']')");
    }

    private static Column col(String n, String pg, String ch, boolean nullable, String pgText, String chText) {
        return new Column(n, pg + (nullable ? "" : " NOT NULL"), nullable ? "Nullable(" + ch + ")" : ch, pgText,
                chText);
    }

    String pgCreate() {
        String cols = columns.stream().map(c -> c.name + " " + c.pgType).collect(Collectors.joining(", "));
        return "CREATE TABLE " + name + " (" + cols + ", PRIMARY KEY (" + String.join(", ", primaryKey) + "))";
    }

    String chCreate(String database, String versionColumn, String deletedColumn, boolean dedupWindow) {
        String cols = columns.stream().map(c -> "`" + c.name + "` " + c.chType).collect(Collectors.joining(", "));
        return "CREATE TABLE `" + database + "`.`" + name + "` (" + cols + ", `" + versionColumn + "` UInt64, `"
                + deletedColumn + "` UInt8) ENGINE = ReplacingMergeTree(`" + versionColumn + "`, `" + deletedColumn
                + "`) ORDER BY (" + primaryKey.stream().map(k -> "`" + k + "`").collect(Collectors.joining(", "))
                + ")" + (dedupWindow ? " SETTINGS non_replicated_deduplication_window = 1000" : "");
    }

    /** PostgreSQL: SELECT key text, row text; with {@code key} (not null) only the row of that key text. */
    String pgCanonicalQuery(String key) {
        return "SELECT " + keyExpr(true) + ", " + rowExpr(true) + " FROM " + name
                + (key == null ? "" : " WHERE " + keyExpr(true) + " = " + literal(key, true));
    }

    /** ClickHouse: the same from the table's current state, FINAL, deleted rows excluded. */
    String chCanonicalQuery(String database, String deletedColumn, String key) {
        return "SELECT " + keyExpr(false) + ", " + rowExpr(false) + " FROM `" + database + "`.`" + name
                + "` FINAL WHERE `" + deletedColumn + "` = 0"
                + (key == null ? "" : " AND " + keyExpr(false) + " = " + literal(key, false)) + " FORMAT TSVRaw";
    }

    private static String literal(String text, boolean pg) {
        String quoted = text.replace("'", "''");
        return pg ? "'" + quoted + "'" : "'" + quoted.replace("\\", "\\\\") + "'";
    }

    private String keyExpr(boolean pg) {
        List<String> parts = new ArrayList<>();
        for (String k : primaryKey) {
            Column c = columns.stream().filter(x -> x.name.equals(k)).findFirst().orElseThrow();
            parts.add(expr(c, pg));
        }
        return pg ? "concat_ws('|', " + String.join(", ", parts) + ")" : "concat_ws('|', " + String.join(", ", parts)
                + ")";
    }

    private String rowExpr(boolean pg) {
        List<String> parts = new ArrayList<>();
        for (Column c : columns) {
            parts.add(expr(c, pg));
        }
        // Tabs and newlines in text would break TSV lines: both sides replace them alike.
        String joined = "concat_ws('|', " + String.join(", ", parts) + ")";
        return pg ? "replace(replace(" + joined + ", E'\\t', '\\t'), E'\\n', '\\n')"
                : "replaceAll(replaceAll(" + joined + ", '\\t', '\\\\t'), '\\n', '\\\\n')";
    }

    private static String expr(Column c, boolean pg) {
        String e = String.format(pg ? c.pgText : c.chText, pg ? c.name : "`" + c.name + "`");
        return pg ? "coalesce(" + e + ", '\\N')" : "ifNull(" + e + ", '\\\\N')";
    }
}
