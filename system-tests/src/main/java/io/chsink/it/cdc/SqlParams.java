package io.chsink.it.cdc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;

/** The JDBC parameter and row-count helpers of the CDC workloads' statements: every value bound as text. */
final class SqlParams {
    private SqlParams() {
    }

    /** Binds text {@code v} (null: SQL NULL) to parameter {@code i}. */
    static void set(PreparedStatement ps, int i, String v) throws SQLException {
        if (v == null) {
            ps.setNull(i, Types.VARCHAR);
        } else {
            ps.setString(i, v);
        }
    }

    /** Binds the parts of a key as text from parameter {@code i} on; returns the next parameter's index. */
    static int bindKey(PreparedStatement ps, int i, Object[] key) throws SQLException {
        for (Object k : key) {
            ps.setString(i++, String.valueOf(k));
        }
        return i;
    }

    /** Fails unless the statement changed one row. */
    static void expectOne(int n, String what, String table) {
        if (n != 1) {
            throw new IllegalStateException(what + " of " + table + " changed " + n + " rows, expected 1");
        }
    }
}
