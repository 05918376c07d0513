package io.chsink.it.cdc;

import io.chsink.it.stack.ClickHouseHttp;
import io.chsink.it.stack.PostgresServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/**
 * One PostgreSQL table whose nullable columns have defaults ({@code status text DEFAULT 'new'},
 * {@code amount numeric(10,2) DEFAULT 0}, {@code qty int DEFAULT 7}), its ReplacingMergeTree target with those
 * columns Nullable, and its Debezium source (JSON with schemas, the source's own converter keeping nulls):
 * the smallest CDC setup where a source NULL and a column default can be told apart in ClickHouse.
 */
public final class NullsTable {
    private final PostgresServer pg;
    private final String prefix;
    public final String name;

    public NullsTable(PostgresServer pg, String prefix) {
        this.pg = pg;
        this.prefix = prefix;
        this.name = prefix + "_nulls";
    }

    /** Debezium's topic of the table. */
    public String topic() {
        return prefix + ".public." + name;
    }

    public void createSource() {
        sql("DROP TABLE IF EXISTS " + name,
                "CREATE TABLE " + name + " (id int PRIMARY KEY, status text DEFAULT 'new', amount numeric(10,2) "
                        + "DEFAULT 0, qty int DEFAULT 7)");
    }

    public void createTarget(ClickHouseHttp ch, String database) {
        ch.exec("CREATE TABLE `" + database + "`.`" + name + "` (`id` Int32, `status` Nullable(String), `amount` "
                + "Nullable(Decimal(10, 2)), `qty` Nullable(Int32), `_version` UInt64, `_is_deleted` UInt8) "
                + "ENGINE = ReplacingMergeTree(`_version`, `_is_deleted`) ORDER BY `id`");
    }

    /** Rows {@code from..to} with values: status 'paid', amount 12.50, qty 3. */
    public void insertValues(int from, int to) {
        sql("INSERT INTO " + name + " SELECT i, 'paid', 12.50, 3 FROM generate_series(" + from + ", " + to + ") i");
    }

    /** Rows {@code from..to} with an explicit NULL in every column that has a default. */
    public void insertNulls(int from, int to) {
        sql("INSERT INTO " + name + " SELECT i, NULL, NULL, NULL FROM generate_series(" + from + ", " + to + ") i");
    }

    /** Rows {@code from..to} with the id only: the columns take their defaults ('new', 0, 7). */
    public void insertDefaults(int from, int to) {
        sql("INSERT INTO " + name + " (id) SELECT i FROM generate_series(" + from + ", " + to + ") i");
    }

    /** Sets status and amount of rows {@code from..to} to NULL, one UPDATE per row. */
    public void updateToNull(int from, int to) {
        String[] updates = new String[to - from + 1];
        for (int i = from; i <= to; i++) {
            updates[i - from] = "UPDATE " + name + " SET status = NULL, amount = NULL WHERE id = " + i;
        }
        sql(updates);
    }

    /**
     * The Debezium PostgreSQL source for this table: config/debezium-postgres-source.json (an initial snapshot, and
     * {@code value.converter.replace.null.with.default=false} so that the topic holds the NULLs), one partition.
     */
    public Map<String, String> debeziumConfig() {
        return DebeziumSource.partitions(DebeziumSource.postgres(pg, prefix, "public." + name), 1);
    }

    private void sql(String... statements) {
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            for (String s : statements) {
                st.execute(s);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL: " + e.getMessage(), e);
        }
    }
}
