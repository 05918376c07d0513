package io.chsink.it.events;

import io.chsink.it.stack.ClickHouseHttp;

/** The events table: its DDL, its check query and the {@link CheckLine} of its content. */
public final class EventsTable {
    public static final String COLUMNS = "event_time DateTime, user_id UInt64, event_type LowCardinality(String), "
            + "url String, duration_ms UInt32, country LowCardinality(String), revenue Decimal(10,2)";
    /** The column names in {@link #COLUMNS} order (the order {@link DirectLoader} writes). */
    public static final String COLUMN_NAMES = "event_time, user_id, event_type, url, duration_ms, country, revenue";

    private EventsTable() {
    }

    /** An identifier in backticks, backslash and backtick escaped. */
    public static String quote(String identifier) {
        return "`" + identifier.replace("\\", "\\\\").replace("`", "\\`") + "`";
    }

    public static String qualified(String database, String table) {
        return quote(database) + "." + quote(table);
    }

    public static String createSql(String database, String table) {
        return "CREATE TABLE " + qualified(database, table) + " (" + COLUMNS + ") ENGINE = MergeTree"
                + " PARTITION BY toYYYYMM(event_time) ORDER BY (event_time, user_id)";
    }

    /**
     * The events table with insert deduplication on (a window of 1000 blocks), as delivery.guarantee=exactly_once
     * requires of a plain MergeTree.
     */
    public static String createDedupSql(String database, String table) {
        return createSql(database, table) + " SETTINGS non_replicated_deduplication_window = 1000";
    }

    /** Per country: row count and revenue in cents, sorted by country. */
    public static String checkSql(String database, String table) {
        return "SELECT country, count() AS c, toInt64(sum(revenue) * 100) AS cents FROM " + qualified(database, table)
                + " GROUP BY country ORDER BY country FORMAT TabSeparated";
    }

    /** Runs the check query. */
    public static CheckLine check(ClickHouseHttp http, String database, String table) {
        return CheckLine.fromCheckResult(http.query(checkSql(database, table)));
    }

    /** What {@link #check} should return after the first {@code count} events of {@code seed} were loaded once. */
    public static CheckLine expected(long seed, long count) {
        return CheckLine.fromEvents(EventGenerator.events(seed, count));
    }
}
