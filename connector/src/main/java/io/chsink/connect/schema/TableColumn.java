package io.chsink.connect.schema;

/** One column of a target table as {@code system.columns} describes it. */
public final class TableColumn {

    /** How the server fills the column when an INSERT does not: the {@code default_kind} of system.columns. */
    public enum DefaultKind {
        NONE, DEFAULT, MATERIALIZED, ALIAS, EPHEMERAL;

        static DefaultKind of(String s) {
            return s == null || s.isEmpty() ? NONE : valueOf(s.toUpperCase(java.util.Locale.ROOT));
        }
    }

    private final String name;
    private final ClickHouseType type;
    private final DefaultKind defaultKind;

    public TableColumn(String name, ClickHouseType type, DefaultKind defaultKind) {
        this.name = name;
        this.type = type;
        this.defaultKind = defaultKind;
    }

    public String name() {
        return name;
    }

    public ClickHouseType type() {
        return type;
    }

    public DefaultKind defaultKind() {
        return defaultKind;
    }

    /** MATERIALIZED and ALIAS columns are computed by the server and never written. */
    public boolean insertable() {
        return defaultKind != DefaultKind.MATERIALIZED && defaultKind != DefaultKind.ALIAS;
    }

    /** Whether the server can fill the column itself when a row has no value for it. */
    public boolean hasDefaultExpression() {
        return defaultKind == DefaultKind.DEFAULT || defaultKind == DefaultKind.EPHEMERAL;
    }
}
