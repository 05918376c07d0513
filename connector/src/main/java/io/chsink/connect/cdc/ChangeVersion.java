package io.chsink.connect.cdc;

import io.chsink.connect.config.SinkConfig;
import java.math.BigInteger;
import java.util.Map;

/**
 * The rule that gives a change the version it writes into the ReplacingMergeTree's version column: a number that
 * grows with every change of a row, computed from the change event (and its topic's epoch) alone, so that a
 * replayed event gets the same version (at-least-once duplicates collapse, exactly_once rebuilds stay identical)
 * and the latest change wins in whatever order the records are inserted.
 *
 * <p>A version is {@code epoch . position}, the epoch ({@code cdc.version.epoch}, per topic
 * {@code cdc.version.epoch.map}) in the high bits, so that every version of epoch e+1 is above every version of
 * epoch e: raising the epoch moves a table onto a new source log whose positions restart lower. The position:
 * <ul>
 *   <li>PostgreSQL ({@code source.connector = postgresql}): {@code source.lsn}, the change's position in the WAL.
 *   <li>MySQL and MariaDB: binlog file index, position and row in the event, packed in this order.
 *   <li>Every other connector (and the flattened form without position fields): the record's Kafka offset.
 * </ul>
 *
 * <p>Two widths ({@code cdc.version.bits}): 64 (a non-negative long: 4 epoch bits, 59 position bits) and 128
 * (bit 127 set, 4 epoch bits, 123 position bits). Every 128-bit version is above every 64-bit one, so a table whose
 * version column is widened to UInt128 can switch from 64 to 128 at any time. A position that does not fit is
 * refused (the record is a bad record whose reason names the remedy), never wrapped or cut.
 */
final class ChangeVersion {
    static final int EPOCH_BITS = 4;
    static final int MAX_EPOCH = (1 << EPOCH_BITS) - 1;

    /** 64 bits: epoch in bits 59..62 (bit 63 stays 0: the value is a non-negative long). */
    static final int NARROW_POSITION_BITS = 59;
    /** 64 bits, MySQL: {@code file index << 44 | pos << 12 | row} (as before epochs existed, for epoch 0). */
    static final int NARROW_FILE_BITS = 15;
    static final int NARROW_POS_BITS = 32;
    static final int NARROW_ROW_BITS = 12;

    /** 128 bits: bit 127 set, epoch in bits 123..126. */
    static final int WIDE_POSITION_BITS = 123;
    /** 128 bits, MySQL: {@code file index << 92 | pos << 31 | row}. */
    static final int WIDE_FILE_BITS = 31;
    static final int WIDE_POS_BITS = 61;
    static final int WIDE_ROW_BITS = 31;

    private static final BigInteger WIDE_MARK = BigInteger.ONE.shiftLeft(127);

    /** 64 bits, epoch 0 for every topic. */
    static final ChangeVersion DEFAULT = new ChangeVersion(64, 0, Map.of());

    private final int bits;
    private final int epoch;
    private final Map<String, Integer> topicEpochs;

    ChangeVersion(int bits, int epoch, Map<String, Integer> topicEpochs) {
        if (bits != 64 && bits != 128) {
            throw new IllegalArgumentException("version bits are 64 or 128, not " + bits);
        }
        checkEpoch(epoch, "epoch");
        for (Map.Entry<String, Integer> e : topicEpochs.entrySet()) {
            checkEpoch(e.getValue(), "epoch of topic " + e.getKey());
        }
        this.bits = bits;
        this.epoch = epoch;
        this.topicEpochs = Map.copyOf(topicEpochs);
    }

    /** The rule the configuration asks for: cdc.version.bits, cdc.version.epoch, cdc.version.epoch.map. */
    static ChangeVersion of(SinkConfig config) {
        return new ChangeVersion(config.cdcVersionBits(), config.cdcVersionEpoch(), config.cdcVersionEpochs());
    }

    private static void checkEpoch(int e, String what) {
        if (e < 0 || e > MAX_EPOCH) {
            throw new IllegalArgumentException(what + " " + e + " is not in [0, " + MAX_EPOCH + "]");
        }
    }

    int bits() {
        return bits;
    }

    /** The epoch of a topic's versions: its cdc.version.epoch.map entry, else cdc.version.epoch. */
    int epoch(String topic) {
        Integer e = topic == null ? null : topicEpochs.get(topic);
        return e != null ? e : epoch;
    }

    /** PostgreSQL: the LSN, an unsigned 64-bit number (Debezium's long; negative = 2^63 and above). */
    RowVersion postgres(String topic, long lsn) {
        if (bits == 64) {
            if (lsn < 0 || lsn >= 1L << NARROW_POSITION_BITS) {
                throw new IllegalArgumentException("source.lsn " + Long.toUnsignedString(lsn)
                        + " does not fit the 64-bit version beside its epoch (LSN < 2^" + NARROW_POSITION_BITS
                        + " there); " + WIDEN);
            }
            return narrow(topic, lsn);
        }
        return wide(topic, new BigInteger(Long.toUnsignedString(lsn)));
    }

    /** Any other connector: the record's Kafka offset. */
    RowVersion kafkaOffset(String topic, long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("the Kafka offset is negative (" + offset + ")");
        }
        if (bits == 64) {
            if (offset >= 1L << NARROW_POSITION_BITS) {
                throw new IllegalArgumentException("Kafka offset " + offset + " does not fit the 64-bit version "
                        + "beside its epoch (offset < 2^" + NARROW_POSITION_BITS + " there); " + WIDEN);
            }
            return narrow(topic, offset);
        }
        return wide(topic, BigInteger.valueOf(offset));
    }

    /**
     * MySQL/MariaDB: binlog file (its numeric extension, as in {@code mysql-bin.000042}), position in it and row in
     * the event, packed in this order.
     */
    RowVersion binlog(String topic, String file, long pos, long row) {
        long index = fileIndex(file);
        if (pos < 0) {
            throw new IllegalArgumentException("binlog position " + pos + " is negative");
        }
        if (row < 0) {
            throw new IllegalArgumentException("binlog row " + row + " is negative");
        }
        if (bits == 64) {
            String what = index >= 1L << NARROW_FILE_BITS
                    ? "binlog file index " + index + " of '" + file + "' (below 2^" + NARROW_FILE_BITS + " there)"
                    : pos >= 1L << NARROW_POS_BITS ? "binlog position " + pos + " (below 2^" + NARROW_POS_BITS
                            + " there)"
                    : row >= 1L << NARROW_ROW_BITS ? "binlog row " + row + " of the event (below 2^"
                            + NARROW_ROW_BITS + " there)"
                    : null;
            if (what != null) {
                throw new IllegalArgumentException(what + " does not fit the 64-bit version; " + WIDEN);
            }
            return narrow(topic, index << (NARROW_POS_BITS + NARROW_ROW_BITS) | pos << NARROW_ROW_BITS | row);
        }
        if (index >= 1L << WIDE_FILE_BITS) {
            throw new IllegalArgumentException("binlog file index " + index + " of '" + file
                    + "' is not below 2^" + WIDE_FILE_BITS + " (MySQL's own limit)");
        }
        if (pos >= 1L << WIDE_POS_BITS) {
            throw new IllegalArgumentException("binlog position " + pos + " is not below 2^" + WIDE_POS_BITS);
        }
        if (row >= 1L << WIDE_ROW_BITS) {
            throw new IllegalArgumentException("binlog row " + row + " is not below 2^" + WIDE_ROW_BITS);
        }
        BigInteger position = BigInteger.valueOf(index).shiftLeft(WIDE_POS_BITS + WIDE_ROW_BITS)
                .or(BigInteger.valueOf(pos).shiftLeft(WIDE_ROW_BITS)).or(BigInteger.valueOf(row));
        return wide(topic, position);
    }

    /** What to do when a position does not fit 64 bits. */
    static final String WIDEN = "make the table's version column UInt128 (ALTER TABLE ... MODIFY COLUMN <"
            + SinkConfig.CDC_VERSION_COLUMN + "> UInt128) and set " + SinkConfig.CDC_VERSION_BITS + "=128: every "
            + "128-bit version is above every 64-bit one, so the rows already written keep their order";

    private RowVersion narrow(String topic, long position) {
        return RowVersion.narrow((long) epoch(topic) << NARROW_POSITION_BITS | position);
    }

    private RowVersion wide(String topic, BigInteger position) {
        return RowVersion.wide(WIDE_MARK.or(BigInteger.valueOf(epoch(topic)).shiftLeft(WIDE_POSITION_BITS))
                .or(position));
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
