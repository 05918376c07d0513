package io.chsink.it.bench;

import io.chsink.it.events.Event;
import io.chsink.it.events.EventGenerator;
import io.chsink.it.events.EventsTable;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.Properties;

/**
 * Paths D and E: the events written through clickhouse-jdbc (jdbc-v2) with a prepared
 * {@code INSERT INTO t (columns) VALUES (?, ?, ?, ?, ?, ?, ?)}, values set as a JDBC sink sets them from a Connect
 * Struct (Timestamp, long, String, BigDecimal). D: {@code addBatch()} per row and {@code executeBatch()} every
 * 3,000 rows, the way Confluent's JDBC sink writes (its batch.size default). E: one {@code executeUpdate()} per row
 * with auto-commit. Both with {@code async_insert=0}, as the connector sends (on by default since ClickHouse 26.2,
 * where each JDBC insert would wait for the server's async flush instead).
 */
final class JdbcPath {
    static final int BATCH_ROWS = 3_000;

    private JdbcPath() {
    }

    static String url(String clickhouseUrl, String db) {
        java.net.URI uri = java.net.URI.create(clickhouseUrl);
        return "jdbc:clickhouse://" + uri.getHost() + ":" + uri.getPort() + "/" + db;
    }

    static Connection connect(String clickhouseUrl, String db, String user, String password) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        p.setProperty("clickhouse_setting_async_insert", "0");
        Connection c;
        try {
            // Straight from the driver class: DriverManager hides why a driver declined a URL.
            Driver driver = (Driver) Class.forName("com.clickhouse.jdbc.Driver").getDeclaredConstructor().newInstance();
            c = driver.connect(url(clickhouseUrl, db), p);
        } catch (ReflectiveOperationException e) {
            throw new SQLException("clickhouse-jdbc (com.clickhouse:jdbc-v2) is not on the classpath", e);
        }
        if (c == null) {
            throw new SQLException("clickhouse-jdbc does not accept the URL " + url(clickhouseUrl, db));
        }
        c.setAutoCommit(true);
        return c;
    }

    /** The async_insert setting the server applies to this connection's statements. */
    static String asyncInsert(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT getSetting('async_insert')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** Inserts the first {@code rows} events of {@code seed}; {@code batchRows} 1 means one executeUpdate per row. */
    static long insert(Connection c, String db, String table, long seed, long rows, int batchRows) throws SQLException {
        String sql = "INSERT INTO " + EventsTable.qualified(db, table) + " (" + EventsTable.COLUMN_NAMES
                + ") VALUES (?, ?, ?, ?, ?, ?, ?)";
        EventGenerator generator = new EventGenerator(seed);
        long written = 0;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int pending = 0;
            for (long i = 0; i < rows; i++) {
                Event e = generator.next();
                ps.setTimestamp(1, new Timestamp(e.eventTime() * 1000));
                ps.setLong(2, e.userId());
                ps.setString(3, e.eventType());
                ps.setString(4, e.url());
                ps.setLong(5, e.durationMs());
                ps.setString(6, e.country());
                ps.setBigDecimal(7, BigDecimal.valueOf(e.revenueCents(), 2));
                if (batchRows == 1) {
                    written += ps.executeUpdate();
                    continue;
                }
                ps.addBatch();
                if (++pending == batchRows) {
                    written += sum(ps.executeBatch());
                    pending = 0;
                }
            }
            if (pending > 0) {
                written += sum(ps.executeBatch());
            }
        }
        return written;
    }

    private static long sum(int[] counts) {
        long total = 0;
        for (int n : counts) {
            total += Math.max(0, n);
        }
        return total;
    }
}
