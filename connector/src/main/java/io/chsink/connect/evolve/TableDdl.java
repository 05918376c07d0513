package io.chsink.connect.evolve;

import io.chsink.connect.schema.TableId;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The text of the statements auto.create and auto.evolve run. Every identifier (database, table, column, cluster,
 * setting name) is backtick-quoted and escaped ({@link TableId#quote}); values are literals. Only the engine is text
 * from the configuration as it is ({@code auto.create.engine}, checked by its validator).
 */
public final class TableDdl {
    private static final Pattern NUMBER = Pattern.compile("-?[0-9]+(\\.[0-9]+)?");

    /** A column to create or add: its name, ClickHouse type and optional DEFAULT literal. */
    public static final class Column {
        private final String name;
        private final String type;
        private final String defaultLiteral;

        public Column(String name, String type, String defaultLiteral) {
            this.name = name;
            this.type = type;
            this.defaultLiteral = defaultLiteral;
        }

        public String name() {
            return name;
        }

        public String type() {
            return type;
        }

        /** The literal of its DEFAULT clause, or null. */
        public String defaultLiteral() {
            return defaultLiteral;
        }

        String definition() {
            return TableId.quote(name) + " " + type + (defaultLiteral == null ? "" : " DEFAULT " + defaultLiteral);
        }

        @Override
        public String toString() {
            return definition();
        }
    }

    private TableDdl() {
    }

    /**
     * {@code CREATE TABLE IF NOT EXISTS db.t [ON CLUSTER c] (columns) ENGINE = engine ORDER BY (...) [SETTINGS ...]};
     * an empty {@code orderBy} is {@code ORDER BY tuple()}.
     */
    public static String createTable(TableId table, String cluster, List<Column> columns, String engine,
            List<String> orderBy, Map<String, String> settings) {
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("a table needs at least one column");
        }
        StringBuilder sb = new StringBuilder("CREATE TABLE IF NOT EXISTS ").append(table.quoted())
                .append(onCluster(cluster)).append(" (");
        for (int i = 0; i < columns.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(columns.get(i).definition());
        }
        sb.append(") ENGINE = ").append(engine).append(" ORDER BY ");
        if (orderBy.isEmpty()) {
            sb.append("tuple()");
        } else {
            sb.append('(');
            for (int i = 0; i < orderBy.size(); i++) {
                sb.append(i == 0 ? "" : ", ").append(TableId.quote(orderBy.get(i)));
            }
            sb.append(')');
        }
        if (!settings.isEmpty()) {
            sb.append(" SETTINGS ");
            boolean first = true;
            for (Map.Entry<String, String> e : settings.entrySet()) {
                sb.append(first ? "" : ", ").append(TableId.quote(e.getKey())).append(" = ").append(value(e.getValue()));
                first = false;
            }
        }
        return sb.toString();
    }

    /** {@code ALTER TABLE db.t [ON CLUSTER c] ADD COLUMN IF NOT EXISTS a T [DEFAULT x], ...}. */
    public static String addColumns(TableId table, String cluster, List<Column> columns) {
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("no column to add");
        }
        StringBuilder sb = new StringBuilder("ALTER TABLE ").append(table.quoted()).append(onCluster(cluster));
        for (int i = 0; i < columns.size(); i++) {
            sb.append(i == 0 ? " " : ", ").append("ADD COLUMN IF NOT EXISTS ").append(columns.get(i).definition());
        }
        return sb.toString();
    }

    /** The engine of cdc.mode=debezium tables: the latest version of a key wins, deleted rows are dropped. */
    public static String replacingEngine(String versionColumn, String deletedColumn) {
        return "ReplacingMergeTree(" + TableId.quote(versionColumn) + ", " + TableId.quote(deletedColumn) + ")";
    }

    private static String onCluster(String cluster) {
        return cluster == null || cluster.trim().isEmpty() ? "" : " ON CLUSTER " + TableId.quote(cluster.trim());
    }

    /** A setting value: numbers and true/false as they are, anything else as a string literal. */
    private static String value(String v) {
        String t = v.trim();
        if (NUMBER.matcher(t).matches() || t.equalsIgnoreCase("true") || t.equalsIgnoreCase("false")) {
            return t;
        }
        return DefaultLiterals.quote(t);
    }
}
