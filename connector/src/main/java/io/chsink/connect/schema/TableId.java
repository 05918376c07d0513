package io.chsink.connect.schema;

import java.util.Objects;

/** A database-qualified table name; {@link #quoted()} is the only form that ever goes into SQL. */
public final class TableId {
    private final String database;
    private final String table;
    /** Made once: a table id is a key of the maps every record of a table meets. */
    private final int hash;

    public TableId(String database, String table) {
        this.database = Objects.requireNonNull(database, "database");
        this.table = Objects.requireNonNull(table, "table");
        this.hash = database.hashCode() * 31 + table.hashCode();
    }

    public String database() {
        return database;
    }

    public String table() {
        return table;
    }

    /** {@code `db`.`table`} with backslashes and backticks escaped. */
    public String quoted() {
        return quote(database) + "." + quote(table);
    }

    /** Quotes one identifier for ClickHouse SQL. */
    public static String quote(String identifier) {
        StringBuilder sb = new StringBuilder(identifier.length() + 2).append('`');
        for (int i = 0; i < identifier.length(); i++) {
            char c = identifier.charAt(i);
            if (c == '`' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        return sb.append('`').toString();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TableId)) {
            return false;
        }
        TableId t = (TableId) o;
        return hash == t.hash && database.equals(t.database) && table.equals(t.table);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    /** For messages: db.table, unquoted. */
    @Override
    public String toString() {
        return database + "." + table;
    }
}
