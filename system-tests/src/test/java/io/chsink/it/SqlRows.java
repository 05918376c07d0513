package io.chsink.it;

import java.util.List;
import java.util.StringJoiner;

/** The VALUES list of a reference table filled from SQL literals, given column by column. */
final class SqlRows {
    private SqlRows() {
    }

    /** {@code (c0[0], c1[0], ...), (c0[1], c1[1], ...), ...} for {@code rows} rows of the columns' literals. */
    static String values(List<String[]> columnLiterals, int rows) {
        StringJoiner out = new StringJoiner(", ");
        for (int r = 0; r < rows; r++) {
            StringJoiner row = new StringJoiner(", ", "(", ")");
            for (String[] column : columnLiterals) {
                row.add(column[r]);
            }
            out.add(row.toString());
        }
        return out.toString();
    }
}
