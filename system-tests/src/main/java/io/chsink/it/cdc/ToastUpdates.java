package io.chsink.it.cdc;

import io.chsink.it.stack.ClickHouseHttp;
import io.chsink.it.stack.PostgresServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * A PostgreSQL table whose every row holds an out-of-line TOAST value, and updates of its small column only: each
 * update's change event carries Debezium's placeholder for the body (REPLICA IDENTITY DEFAULT), so the sink must find
 * the row's current body (a pending block, its cache, or a read of the table). Table {@code <prefix>_docs (id, n,
 * body)}, topic {@code <prefix>.public.<prefix>_docs}; compared by id, n and md5(body) on both sides.
 */
public final class ToastUpdates {
    private final PostgresServer pg;
    public final String table;
    public final String topic;
    private final String prefix;

    public ToastUpdates(PostgresServer pg, String prefix) {
        this.pg = pg;
        this.prefix = prefix;
        this.table = prefix + "_docs";
        this.topic = prefix + ".public." + table;
    }

    /** The source table with {@code rows} rows of 4 KB bodies, stored out of line uncompressed. */
    public void create(int rows) {
        exec("CREATE TABLE " + table + " (id bigint PRIMARY KEY, n integer NOT NULL, body text NOT NULL)",
                "ALTER TABLE " + table + " ALTER COLUMN body SET STORAGE EXTERNAL",
                "INSERT INTO " + table + " SELECT i, 0, (SELECT string_agg(md5(i::text || '.' || j::text), '') FROM "
                        + "generate_series(1, 128) j) FROM generate_series(1, " + rows + ") i");
    }

    /** One update of the small column of every row, in one transaction: one change event per row. */
    public int updateAll() {
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            return st.executeUpdate("UPDATE " + table + " SET n = n + 1");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Debezium's PostgreSQL connector for the table (config/debezium-postgres-source.json): a snapshot, then the stream. */
    public Map<String, String> debeziumConfig() {
        return DebeziumSource.postgres(pg, prefix, "public." + table);
    }

    /** The ClickHouse twin in {@code database}. */
    public String chCreate(String database) {
        return "CREATE TABLE `" + database + "`.`" + table + "` (`id` Int64, `n` Int32, `body` String, `_version` UInt64, "
                + "`_is_deleted` UInt8) ENGINE = ReplacingMergeTree(`_version`, `_is_deleted`) ORDER BY `id`";
    }

    /** PostgreSQL's rows: id to "n md5(body)". */
    public Map<Long, String> sourceRows() {
        Map<Long, String> rows = new HashMap<>();
        try (Connection c = pg.connect(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT id, n, md5(body) FROM " + table)) {
            while (rs.next()) {
                rows.put(rs.getLong(1), rs.getInt(2) + " " + rs.getString(3));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return rows;
    }

    /** ClickHouse's live rows (FINAL, not deleted): id to "n md5(body)". */
    public Map<Long, String> targetRows(ClickHouseHttp ch, String database) {
        Map<Long, String> rows = new HashMap<>();
        String tsv = ch.query("SELECT id, n, lower(hex(MD5(body))) FROM `" + database + "`.`" + table
                + "` FINAL WHERE _is_deleted = 0 FORMAT TSV");
        for (String line : tsv.split("\n")) {
            if (!line.isEmpty()) {
                String[] f = line.split("\t");
                rows.put(Long.parseLong(f[0]), f[1] + " " + f[2]);
            }
        }
        return rows;
    }

    private void exec(String... sql) {
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            for (String s : sql) {
                st.execute(s);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
