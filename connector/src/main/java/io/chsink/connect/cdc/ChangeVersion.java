package io.chsink.connect.cdc;

/**
 * The version a change writes into the ReplacingMergeTree's version column: a number that grows with every change
 * of a row, computed from the change event alone, so that a replayed event gets the same version (at-least-once
 * duplicates collapse, exactly_once rebuilds stay identical) and the latest change wins in whatever order the
 * records are inserted.
 *
 * <ul>
 *   <li>PostgreSQL ({@code source.connector = postgresql}): {@code source.lsn}, the change's position in the WAL.
 *       Snapshot rows carry the snapshot's LSN, below every change streamed after it; changes of one row are
 *       ordered in the WAL by the row lock.
 *   <li>MySQL and MariaDB: the binlog position as one number, {@code file index << 44 | pos << 12 | row}
 *       (file index below 2^19, position below 2^32, row below 2^12; else the event is refused, not misordered).
 *   <li>Every other connector (and the flattened form without position fields): the record's Kafka offset. Debezium
 *       keys change events by primary key, so all changes of a row are in one partition, in order.
 * </ul>
 */
final class ChangeVersion {
    static final int FILE_BITS = 19;
    static final int POS_BITS = 32;
    static final int ROW_BITS = 12;

    private ChangeVersion() {
    }

    /** PostgreSQL: the LSN itself. */
    static long postgres(long lsn) {
        if (lsn < 0) {
            throw new IllegalArgumentException("source.lsn is negative (" + lsn + ")");
        }
        return lsn;
    }

    /**
     * MySQL/MariaDB: binlog file (its numeric extension, as in {@code mysql-bin.000042}), position in it and row in
     * the event, packed in order into one non-negative long.
     */
    static long binlog(String file, long pos, long row) {
        long index = fileIndex(file);
        if (index >= 1L << FILE_BITS) {
            throw new IllegalArgumentException("binlog file index " + index + " of '" + file + "' is not below 2^"
                    + FILE_BITS);
        }
        if (pos < 0 || pos >= 1L << POS_BITS) {
            throw new IllegalArgumentException("binlog position " + pos + " is not in [0, 2^" + POS_BITS + ")");
        }
        if (row < 0 || row >= 1L << ROW_BITS) {
            throw new IllegalArgumentException("binlog row " + row + " is not in [0, 2^" + ROW_BITS + ")");
        }
        return index << (POS_BITS + ROW_BITS) | pos << ROW_BITS | row;
    }

    /** The numeric extension of a binlog file name: {@code mysql-bin.000042} is 42. */
    static long fileIndex(String file) {
        if (file == null) {
            throw new IllegalArgumentException("source.file is null");
        }
        int dot = file.lastIndexOf('.');
        String digits = file.substring(dot + 1);
        if (digits.isEmpty() || digits.length() > 18 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("binlog file name '" + file + "' does not end in a numeric extension");
        }
        return Long.parseLong(digits);
    }
}
