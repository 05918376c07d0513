package io.chsink.connect.cdc;

import static io.chsink.connect.cdc.DebeziumEvents.item;
import static io.chsink.connect.cdc.DebeziumEvents.mysql;
import static io.chsink.connect.cdc.DebeziumEvents.postgres;
import static io.chsink.connect.cdc.DebeziumEvents.record;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.encoder.NativeColumn;
import io.chsink.connect.mapping.ValueException;
import io.chsink.connect.mapping.value.ValueWriter;
import io.chsink.connect.mapping.value.Writers;
import io.chsink.connect.schema.ClickHouseType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/** The version rules at their extremes, in both widths, with epochs; and the refusals that name the remedy. */
class ChangeVersionTest {
    private static final String T = "srv.app.items";
    private static final ChangeVersion N = new ChangeVersion(64, 0, Map.of());
    private static final ChangeVersion W = new ChangeVersion(128, 0, Map.of());
    private static final long MAX_POS64 = (1L << 32) - 1;

    private static ChangeVersion narrow(int epoch) {
        return new ChangeVersion(64, epoch, Map.of());
    }

    private static ChangeVersion wide(int epoch) {
        return new ChangeVersion(128, epoch, Map.of());
    }

    private static String refusal(Runnable r) {
        return assertThrows(IllegalArgumentException.class, r::run).getMessage();
    }

    /** A refusal of the 64-bit rule names the remedy: the 128-bit rule with a UInt128 column. */
    private static void assertNamesWidening(String m) {
        assertTrue(m.contains("does not fit the 64-bit version") && m.contains("cdc.version.bits=128")
                && m.contains("MODIFY COLUMN <cdc.version.column> UInt128"), m);
    }

    private static void assertIncreasing(List<RowVersion> vs) {
        for (int i = 1; i < vs.size(); i++) {
            assertTrue(vs.get(i - 1).compareTo(vs.get(i)) < 0, i + ": " + vs.get(i - 1) + " !< " + vs.get(i));
        }
    }

    @Test
    void theEpochTakesFourBitsTheConfigRangeMatches() {
        assertEquals(SinkConfig.CDC_VERSION_MAX_EPOCH, ChangeVersion.MAX_EPOCH);
        assertEquals(63, ChangeVersion.EPOCH_BITS + ChangeVersion.NARROW_POSITION_BITS);
        assertEquals(ChangeVersion.NARROW_POSITION_BITS,
                ChangeVersion.NARROW_FILE_BITS + ChangeVersion.NARROW_POS_BITS + ChangeVersion.NARROW_ROW_BITS);
        assertEquals(127, ChangeVersion.EPOCH_BITS + ChangeVersion.WIDE_POSITION_BITS);
        assertEquals(ChangeVersion.WIDE_POSITION_BITS,
                ChangeVersion.WIDE_FILE_BITS + ChangeVersion.WIDE_POS_BITS + ChangeVersion.WIDE_ROW_BITS);
        assertThrows(IllegalArgumentException.class, () -> new ChangeVersion(64, 16, Map.of()));
        assertThrows(IllegalArgumentException.class, () -> new ChangeVersion(64, 0, Map.of(T, -1)));
        assertThrows(IllegalArgumentException.class, () -> new ChangeVersion(96, 0, Map.of()));
    }

    @Test
    void postgresLsnFromZeroToTheLargestAllowed() {
        assertEquals(0L, N.postgres(T, 0).toLong());
        long max = (1L << 59) - 1;
        assertEquals(max, N.postgres(T, max).toLong());
        assertNamesWidening(refusal(() -> N.postgres(T, 1L << 59)));
        // Debezium's long holds the unsigned LSN: a negative one is 2^63 or more.
        String m = refusal(() -> N.postgres(T, -1L));
        assertTrue(m.contains("18446744073709551615"), m);
        assertNamesWidening(m);

        BigInteger mark = BigInteger.ONE.shiftLeft(127);
        assertEquals(mark, W.postgres(T, 0).toBigInteger());
        assertEquals(mark.add(new BigInteger("18446744073709551615")), W.postgres(T, -1L).toBigInteger());
        assertIncreasing(List.of(W.postgres(T, 0), W.postgres(T, 1L << 59), W.postgres(T, Long.MAX_VALUE),
                W.postgres(T, Long.MIN_VALUE), W.postgres(T, -1L)));
    }

    @Test
    void kafkaOffsetsFromZeroToTheLargestAllowed() {
        assertEquals(0L, N.kafkaOffset(T, 0).toLong());
        assertEquals((1L << 59) - 1, N.kafkaOffset(T, (1L << 59) - 1).toLong());
        assertNamesWidening(refusal(() -> N.kafkaOffset(T, 1L << 59)));
        assertIncreasing(List.of(W.kafkaOffset(T, 0), W.kafkaOffset(T, 1L << 59), W.kafkaOffset(T, Long.MAX_VALUE)));
        assertTrue(refusal(() -> W.kafkaOffset(T, -1)).contains("negative"));
    }

    @Test
    void mysqlEpochZeroIsThePackingOfBeforeEpochs() {
        long[][] cases = {{0, 0, 0}, {3, 4, 0}, {42, 123_456, 7}, {(1 << 15) - 1, MAX_POS64, 4095}};
        for (long[] c : cases) {
            assertEquals(c[0] << 44 | c[1] << 12 | c[2],
                    N.binlog(T, String.format("mysql-bin.%06d", c[0]), c[1], c[2]).toLong());
        }
    }

    @Test
    void mysqlBinlogIndexPositionAndRowAtTheirExtremes() {
        // 64 bits: file index < 2^15, position < 2^32, row < 2^12; beyond, refused naming the remedy.
        assertIncreasing(List.of(N.binlog(T, "mysql-bin.000000", 0, 0), N.binlog(T, "mysql-bin.000000", 0, 4095),
                N.binlog(T, "mysql-bin.000000", MAX_POS64, 0), N.binlog(T, "mysql-bin.032767", MAX_POS64, 4095)));
        String file = refusal(() -> N.binlog(T, "mysql-bin.032768", 4, 0));
        assertTrue(file.contains("binlog file index 32768 of 'mysql-bin.032768'"), file);
        assertNamesWidening(file);
        String pos = refusal(() -> N.binlog(T, "mysql-bin.000001", 1L << 32, 0));
        assertTrue(pos.contains("binlog position 4294967296"), pos);
        assertNamesWidening(pos);
        String row = refusal(() -> N.binlog(T, "mysql-bin.000001", 4, 4096));
        assertTrue(row.contains("binlog row 4096"), row);
        assertNamesWidening(row);

        // 128 bits: file index < 2^31 (MySQL's own limit), position < 2^61, row < 2^31 (Debezium's row is int32).
        long maxPos = (1L << 61) - 1;
        assertIncreasing(List.of(W.binlog(T, "mysql-bin.000000", 0, 0), W.binlog(T, "mysql-bin.000000", 0, 4096),
                W.binlog(T, "mysql-bin.000000", 0, Integer.MAX_VALUE), W.binlog(T, "mysql-bin.000000", 1L << 32, 0),
                W.binlog(T, "mysql-bin.000000", maxPos, Integer.MAX_VALUE), W.binlog(T, "mysql-bin.524288", 4, 0),
                W.binlog(T, "mysql-bin.2147483647", maxPos, Integer.MAX_VALUE)));
        assertTrue(refusal(() -> W.binlog(T, "mysql-bin.2147483648", 4, 0)).contains("MySQL's own limit"));
        assertTrue(refusal(() -> W.binlog(T, "mysql-bin.000001", 1L << 61, 0)).contains("not below 2^61"));
        assertTrue(refusal(() -> W.binlog(T, "mysql-bin.000001", 4, 1L << 31)).contains("not below 2^31"));
        assertTrue(refusal(() -> W.binlog(T, "mysql-bin.000001", -1, 0)).contains("negative"));
        assertTrue(refusal(() -> W.binlog(T, "mysql-bin", 4, 0)).contains("numeric extension"));
    }

    @Test
    void fileRolloverOutranksTheLargestPositionOfTheFileBefore() {
        assertIncreasing(List.of(N.binlog(T, "mysql-bin.000007", MAX_POS64, 4095), N.binlog(T, "mysql-bin.000008", 4, 0)));
        assertIncreasing(List.of(W.binlog(T, "mysql-bin.000007", (1L << 61) - 1, Integer.MAX_VALUE),
                W.binlog(T, "mysql-bin.000008", 4, 0)));
    }

    /**
     * Debezium 3.6.1 gives the changes of a compressed transaction (one TRANSACTION_PAYLOAD event) the payload's
     * position; row counts the rows of each inner rows event from 0. Rows of one inner event are ordered; two inner
     * events' rows of the same index tie, and ClickHouse keeps the last inserted row of a tie.
     */
    @Test
    void changesOfACompressedTransactionShareThePositionAndAreOrderedByRow() {
        for (ChangeVersion rule : new ChangeVersion[] {N, W}) {
            List<RowVersion> vs = new ArrayList<>();
            for (int row = 0; row < 4; row++) {
                vs.add(rule.binlog(T, "mysql-bin.000009", 1_000_000, row));
            }
            vs.add(rule.binlog(T, "mysql-bin.000009", 1_000_001, 0)); // the next event of the file
            assertIncreasing(vs);
            assertEquals(rule.binlog(T, "mysql-bin.000009", 1_000_000, 0), rule.binlog(T, "mysql-bin.000009",
                    1_000_000, 0), "the same position and row: the same version (a tie, not an order)");
        }
    }

    @Test
    void everyVersionOfEpochEPlusOneIsAboveEveryVersionOfEpochE() {
        List<Function<ChangeVersion, RowVersion>> lowest = List.of(r -> r.postgres(T, 0), r -> r.kafkaOffset(T, 0),
                r -> r.binlog(T, "mysql-bin.000000", 0, 0));
        List<Function<ChangeVersion, RowVersion>> highest64 = List.of(r -> r.postgres(T, (1L << 59) - 1),
                r -> r.kafkaOffset(T, (1L << 59) - 1), r -> r.binlog(T, "mysql-bin.032767", MAX_POS64, 4095));
        List<Function<ChangeVersion, RowVersion>> highest128 = List.of(r -> r.postgres(T, -1L),
                r -> r.kafkaOffset(T, Long.MAX_VALUE),
                r -> r.binlog(T, "mysql-bin.2147483647", (1L << 61) - 1, Integer.MAX_VALUE));
        for (int e = 0; e < ChangeVersion.MAX_EPOCH; e++) {
            for (Function<ChangeVersion, RowVersion> hi : highest64) {
                for (Function<ChangeVersion, RowVersion> lo : lowest) {
                    assertIncreasing(List.of(hi.apply(narrow(e)), lo.apply(narrow(e + 1))));
                }
            }
            for (Function<ChangeVersion, RowVersion> hi : highest128) {
                for (Function<ChangeVersion, RowVersion> lo : lowest) {
                    assertIncreasing(List.of(hi.apply(wide(e)), lo.apply(wide(e + 1))));
                }
            }
        }
        // Every 128-bit version is above every 64-bit one: widening a table keeps its order.
        for (Function<ChangeVersion, RowVersion> hi : highest64) {
            for (Function<ChangeVersion, RowVersion> lo : lowest) {
                assertIncreasing(List.of(hi.apply(narrow(ChangeVersion.MAX_EPOCH)), lo.apply(wide(0))));
            }
        }
        assertEquals(Long.MAX_VALUE, narrow(15).postgres(T, (1L << 59) - 1).toLong());
        assertEquals(BigInteger.ONE.shiftLeft(128).subtract(BigInteger.ONE),
                wide(15).binlog(T, "mysql-bin.2147483647", (1L << 61) - 1, Integer.MAX_VALUE).toBigInteger());
    }

    @Test
    void topicsOfTheEpochMapTakeTheirEpochOthersTheDefault() {
        ChangeVersion rule = new ChangeVersion(64, 2, Map.of("moved", 3));
        assertEquals(3, rule.epoch("moved"));
        assertEquals(2, rule.epoch("other"));
        assertEquals(3L << 59 | 100, rule.postgres("moved", 100).toLong());
        assertEquals(2L << 59 | 100, rule.postgres("other", 100).toLong());
        SinkConfig config = new SinkConfig(Map.of("clickhouse.url", "http://localhost:8123", "cdc.version.bits",
                "128", "cdc.version.epoch", "1", "cdc.version.epoch.map", "a.b.c:4, d:0"));
        ChangeVersion fromConfig = ChangeVersion.of(config);
        assertEquals(128, fromConfig.bits());
        assertEquals(4, fromConfig.epoch("a.b.c"));
        assertEquals(0, fromConfig.epoch("d"));
        assertEquals(1, fromConfig.epoch("e"));
    }

    @Test
    void snapshotRowsSortBelowTheChangesStreamedAfterThem() {
        for (ChangeVersion rule : new ChangeVersion[] {N, W}) {
            // MySQL: snapshot rows carry SHOW BINARY LOG STATUS's position with row 0; the first change streamed
            // after it starts further on (a GTID event comes first).
            RowVersion snap = ChangeEvent.read(record(mysql("r", "null", item(1, "a", 1L), "mysql-bin.000005", 1570,
                    0), true, 0), rule).version;
            RowVersion upd = ChangeEvent.read(record(mysql("u", item(1, "a", 1L), item(1, "b", 1L),
                    "mysql-bin.000005", 1570 + 79 + 75, 0), true, 1), rule).version;
            assertIncreasing(List.of(snap, upd));
            // PostgreSQL: the snapshot's LSN, below every change's.
            RowVersion psnap = ChangeEvent.read(record(postgres("r", "null", item(1, "a", 1L), "last", 5000L), true,
                    7), rule).version;
            RowVersion pupd = ChangeEvent.read(record(postgres("u", "null", item(1, "b", 1L), "false", 5064L), true,
                    3), rule).version;
            assertIncreasing(List.of(psnap, pupd));
        }
    }

    @Test
    void refusalsReachTheRecordAsMalformedEventsNamingTheRemedy() {
        SinkRecord rows = record(mysql("c", "null", item(1, "a", 1L), "mysql-bin.000001", 4, 5000), true, 0);
        ChangeEvent.Malformed m = assertThrows(ChangeEvent.Malformed.class, () -> ChangeEvent.read(rows));
        assertTrue(m.getMessage().contains("binlog row 5000"), m.getMessage());
        assertNamesWidening(m.getMessage());
        // The 128-bit rule takes it.
        ChangeEvent e = ChangeEvent.read(rows, W);
        assertEquals(W.binlog(DebeziumEvents.TOPIC, "mysql-bin.000001", 4, 5000), e.version);
        assertThrows(IllegalStateException.class, e.version::toLong, "a 128-bit version has no long form");

        SinkRecord lsn = record(postgres("c", "null", item(1, "a", 1L), "false", 1L << 60), true, 0);
        assertNamesWidening(assertThrows(ChangeEvent.Malformed.class, () -> ChangeEvent.read(lsn)).getMessage());
        assertEquals(W.postgres(DebeziumEvents.TOPIC, 1L << 60), ChangeEvent.read(lsn, W).version);
    }

    @Test
    void flattenedPositionFieldsAndTheKafkaOffsetFollowTheRuleAndItsEpoch() {
        ChangeVersion rule = new ChangeVersion(128, 1, Map.of());
        Map<String, Object> flat = new HashMap<>();
        flat.put("id", 1);
        flat.put("__file", "mysql-bin.000002");
        flat.put("__pos", 9000L);
        flat.put("__row", 4096);
        ChangeEvent e = ChangeEvent.read(new SinkRecord(T, 0, null, null, null, flat, 77), rule);
        assertEquals(rule.binlog(T, "mysql-bin.000002", 9000, 4096), e.version);
        Map<String, Object> plain = new HashMap<>(Map.of("id", 1, "__deleted", "false"));
        ChangeEvent o = ChangeEvent.read(new SinkRecord(T, 0, null, null, null, plain, 77), narrow(3));
        assertEquals(64, o.version.bits());
        assertEquals(3L << 59 | 77, o.version.toLong());
        Map<String, Object> truncate = new HashMap<>(Map.of("__op", "t"));
        assertNull(ChangeEvent.read(new SinkRecord(T, 0, null, null, null, truncate, 77), rule).version);
    }

    /** What the row builder puts into the version field: a Long under INT64, or a Decimal(0) ClickHouse takes. */
    @Test
    void connectValuesFitTheirSchemaAndTheVersionColumn() throws IOException {
        RowVersion n = N.binlog(T, "mysql-bin.000003", 4000, 2);
        assertEquals(Schema.INT64_SCHEMA, n.schema());
        assertEquals(3L << 44 | 4000L << 12 | 2, n.toConnectValue());
        RowVersion w = W.binlog(T, "mysql-bin.000003", 4000, 2);
        assertEquals(Decimal.LOGICAL_NAME, w.schema().name());
        assertEquals(RowVersion.WIDE_SCHEMA, RowVersion.schema(128));
        assertEquals(new BigDecimal(w.toBigInteger()), w.toConnectValue());

        // Connect accepts each value under its schema (Struct.put validates).
        for (RowVersion v : new RowVersion[] {n, w}) {
            Schema row = SchemaBuilder.struct().field("_version", v.schema()).build();
            new Struct(row).put("_version", v.toConnectValue()).validate();
        }

        // The column writers write both exactly: the narrow one into UInt64, the wide one into UInt128/UInt256.
        assertArrayEquals(littleEndian(n.toBigInteger(), 8), written("UInt64", n.toConnectValue()));
        assertArrayEquals(littleEndian(w.toBigInteger(), 16), written("UInt128", w.toConnectValue()));
        assertArrayEquals(littleEndian(w.toBigInteger(), 32), written("UInt256", w.toConnectValue()));
        assertArrayEquals(littleEndian(n.toBigInteger(), 16), written("UInt128", n.toConnectValue()));
        // ... and refuse a wide one for UInt64 (the table check asks for UInt128 before it comes to that).
        assertThrows(ValueException.class, () -> written("UInt64", w.toConnectValue()));
    }

    private static byte[] written(String type, Object value) throws IOException {
        ClickHouseType t = ClickHouseType.parse(type);
        NativeColumn c = Writers.newColumn(t, 1);
        ValueWriter writer = Writers.writerFor(t);
        writer.write(value, c);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        c.writeData(out);
        return out.toByteArray();
    }

    private static byte[] littleEndian(BigInteger x, int width) {
        byte[] be = x.toByteArray();
        byte[] le = new byte[width];
        for (int i = 0; i < width && i < be.length; i++) {
            le[i] = be[be.length - 1 - i];
        }
        return le;
    }
}
