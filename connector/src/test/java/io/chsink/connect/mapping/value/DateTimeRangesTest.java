package io.chsink.connect.mapping.value;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.encoder.NativeBlock;
import io.chsink.connect.mapping.RecordMappingException;
import io.chsink.connect.mapping.TableMapping;
import io.chsink.connect.mapping.ValueException;
import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.TableColumn;
import io.chsink.connect.schema.TableColumn.DefaultKind;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.util.Arrays;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * DateTime64(p[, tz]) takes exactly ClickHouse's range (0000-01-01 00:00:00 to 9999-12-31 23:59:59.(9) in the
 * column's time zone, within the Int64 of ticks), and DateTime its 1970-01-01 00:00:00 to 2106-02-07 06:28:15 UTC:
 * the last value inside is written, one tick outside is a ValueException naming the value, the range and the type.
 * The bounds are what ClickHouse 26.7 shows as themselves; one tick past them it shows the bound again (clamped).
 */
class DateTimeRangesTest {
    private static final long FIRST_SECOND = -62167219200L; // 0000-01-01 00:00:00 UTC
    private static final long END_SECOND = 253402300800L; // 10000-01-01 00:00:00 UTC

    /** The column's one value as its little-endian Int64 (DateTime64 ticks; DateTime's UInt32 in the low bytes). */
    private static long write(String type, Object value) {
        return ByteBuffer.wrap(java.util.Arrays.copyOf(ScalarWritersTest.write(type, value), 8))
                .order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    private static String refused(String type, Object value) {
        return assertThrows(ValueException.class, () -> write(type, value), type + " <- " + value).getMessage();
    }

    private static void refused(String type, Object value, String... parts) {
        String msg = refused(type, value);
        for (String p : parts) {
            assertTrue(msg.contains(p), () -> type + " <- " + value + ": " + msg + " lacks " + p);
        }
    }

    private static Instant tick(long ticks, int precision) {
        long perSecond = TemporalWriters.pow10(precision);
        return Instant.ofEpochSecond(Math.floorDiv(ticks, perSecond),
                Math.floorMod(ticks, perSecond) * TemporalWriters.pow10(9 - precision));
    }

    /** Both ends at one precision: as ticks and as instants, inside written, one tick outside refused. */
    private static void bounds(int precision, long min, long max, String range) {
        String type = "DateTime64(" + precision + ", 'UTC')";
        assertEquals(min, write(type, min));
        assertEquals(max, write(type, max));
        assertEquals(min, write(type, tick(min, precision)));
        assertEquals(max, write(type, tick(max, precision)));
        String inType = "out of range for " + type + " (" + range + ")";
        if (min > Long.MIN_VALUE) {
            refused(type, min - 1, "timestamp " + (min - 1) + " (", inType);
        }
        if (max < Long.MAX_VALUE) {
            refused(type, max + 1, "timestamp " + (max + 1) + " (", inType);
        }
        Instant before = tick(min, precision).minusNanos(TemporalWriters.pow10(9 - precision));
        Instant after = tick(max, precision).plusNanos(TemporalWriters.pow10(9 - precision));
        refused(type, before, "timestamp " + before + " is " + inType);
        refused(type, after, "timestamp " + after + " is " + inType);
    }

    @Test
    void precision0() {
        bounds(0, FIRST_SECOND, END_SECOND - 1, "0000-01-01 00:00:00 to 9999-12-31 23:59:59 in UTC");
        assertEquals(FIRST_SECOND, write("DateTime64(0, 'UTC')", "0000-01-01 00:00:00"));
        assertEquals(END_SECOND - 1, write("DateTime64(0, 'UTC')", "9999-12-31T23:59:59Z"));
    }

    @Test
    void precision3() {
        bounds(3, FIRST_SECOND * 1000, END_SECOND * 1000 - 1,
                "0000-01-01 00:00:00.000 to 9999-12-31 23:59:59.999 in UTC");
        // Connect's Timestamp (java.util.Date) and Debezium's Timestamp (an Instant after its adapter)
        assertEquals(END_SECOND * 1000 - 1, write("DateTime64(3, 'UTC')", new java.util.Date(END_SECOND * 1000 - 1)));
        refused("DateTime64(3, 'UTC')", new java.util.Date(END_SECOND * 1000), "timestamp +10000-01-01T00:00:00Z is "
                + "out of range for DateTime64(3, 'UTC') (0000-01-01 00:00:00.000 to 9999-12-31 23:59:59.999 in UTC)");
    }

    @Test
    void precision6() {
        bounds(6, FIRST_SECOND * 1_000_000, END_SECOND * 1_000_000 - 1,
                "0000-01-01 00:00:00.000000 to 9999-12-31 23:59:59.999999 in UTC");
        // ISO text, as Debezium's ZonedTimestamp carries it
        assertEquals(END_SECOND * 1_000_000 - 1, write("DateTime64(6, 'UTC')", "9999-12-31T23:59:59.999999Z"));
        refused("DateTime64(6, 'UTC')", "+10000-01-01T00:00:00Z", "out of range for DateTime64(6, 'UTC')");
    }

    @Test
    void precision7() {
        bounds(7, FIRST_SECOND * 10_000_000, END_SECOND * 10_000_000 - 1,
                "0000-01-01 00:00:00.0000000 to 9999-12-31 23:59:59.9999999 in UTC");
    }

    @Test
    void precision8EndsWhereTheInt64OfTicksEnds() {
        bounds(8, FIRST_SECOND * 100_000_000, Long.MAX_VALUE,
                "0000-01-01 00:00:00.00000000 to 4892-10-07 21:52:48.54775807 in UTC");
    }

    @Test
    void precision9IsTheInt64OfNanoseconds() {
        bounds(9, Long.MIN_VALUE, Long.MAX_VALUE,
                "1677-09-21 00:12:43.145224192 to 2262-04-11 23:47:16.854775807 in UTC");
        assertEquals(Long.MAX_VALUE, write("DateTime64(9, 'UTC')", "2262-04-11T23:47:16.854775807Z"));
        refused("DateTime64(9, 'UTC')", "2262-04-11T23:47:16.854775808Z", "out of range for DateTime64(9, 'UTC')");
        // the plain column has the same range, in UTC (the time zone the writers read zone-less text in)
        assertEquals(Long.MAX_VALUE, write("DateTime64(9)", "2262-04-11 23:47:16.854775807"));
        refused("DateTime64(9)", "2262-04-11 23:47:16.854775808", "out of range for DateTime64(9) (1677-09-21");
    }

    @Test
    void theRangeIsInTheColumnsTimeZone() {
        // Asia/Tokyo before 1888 is local mean time, +09:18:59; from 1888 on +09:00
        String type = "DateTime64(3, 'Asia/Tokyo')";
        long min = (FIRST_SECOND - (9 * 3600 + 18 * 60 + 59)) * 1000;
        long max = (END_SECOND - 9 * 3600) * 1000 - 1;
        assertEquals(min, write(type, "0000-01-01 00:00:00"));
        assertEquals(max, write(type, "9999-12-31 23:59:59.999"));
        assertEquals(max, write(type, max));
        String range = "out of range for DateTime64(3, 'Asia/Tokyo') (0000-01-01 00:00:00.000 to "
                + "9999-12-31 23:59:59.999 in Asia/Tokyo)";
        refused(type, min - 1, range);
        refused(type, max + 1, range);
        refused(type, "9999-12-31T15:00:00Z", "timestamp 9999-12-31T15:00:00Z is " + range);
        assertEquals(max, write(type, "9999-12-31T14:59:59.999Z"));
    }

    @Test
    void debeziumTimestampsOutOfRangeAreBadRecordsNamingFieldColumnAndType() {
        TableMapping m = new TableMapping(new TableSchema(new TableId("db", "t"), Arrays.asList(
                new TableColumn("ms", ClickHouseType.parse("Nullable(DateTime64(3, 'UTC'))"), DefaultKind.NONE),
                new TableColumn("us", ClickHouseType.parse("Nullable(DateTime64(6, 'UTC'))"), DefaultKind.NONE),
                new TableColumn("ns", ClickHouseType.parse("Nullable(DateTime64(9, 'UTC'))"), DefaultKind.NONE))));
        Schema s = SchemaBuilder.struct()
                .field("ms", SchemaBuilder.int64().name("io.debezium.time.Timestamp").optional().build())
                .field("us", SchemaBuilder.int64().name("io.debezium.time.MicroTimestamp").optional().build())
                .field("ns", SchemaBuilder.int64().name("io.debezium.time.NanoTimestamp").optional().build())
                .build();
        NativeBlock b = m.newBlock(2);
        m.append(new SinkRecord("cdc", 0, null, null, s, new Struct(s).put("ms", END_SECOND * 1000 - 1)
                .put("us", END_SECOND * 1_000_000 - 1).put("ns", Long.MAX_VALUE), 1), b);
        assertEquals(1, b.rows());
        // PostgreSQL's 'infinity' as Debezium sends it (MicroTimestamp 9223372036825200000): no year ClickHouse holds
        String msg = assertThrows(RecordMappingException.class, () -> m.append(new SinkRecord("cdc", 0, null, null, s,
                new Struct(s).put("us", 9223372036825200000L), 2), b)).getMessage();
        assertTrue(msg.contains("offset=2"), msg);
        assertTrue(msg.contains("field 'us' -> column 'us' (ClickHouse type Nullable(DateTime64(6, 'UTC')))"), msg);
        assertTrue(msg.contains("timestamp +294247-01-10T04:00:25.200Z is out of range for DateTime64(6, 'UTC') "
                + "(0000-01-01 00:00:00.000000 to 9999-12-31 23:59:59.999999 in UTC)"), msg);
        assertEquals(1, b.rows());
        msg = assertThrows(RecordMappingException.class, () -> m.append(new SinkRecord("cdc", 0, null, null, s,
                new Struct(s).put("ms", END_SECOND * 1000), 3), b)).getMessage();
        assertTrue(msg.contains("timestamp +10000-01-01T00:00:00Z is out of range for DateTime64(3, 'UTC')"), msg);
    }

    @Test
    void dateTimeHoldsUnsigned32BitSeconds() {
        assertEquals(0, write("DateTime", 0L));
        assertEquals(0xFFFFFFFFL, write("DateTime", 0xFFFFFFFFL) & 0xFFFFFFFFL);
        assertEquals(0, write("DateTime('UTC')", "1970-01-01T00:00:00Z"));
        refused("DateTime", -1L, "timestamp -1 (seconds since 1970-01-01 00:00:00 UTC) is out of range for DateTime "
                + "(1970-01-01 00:00:00 to 2106-02-07 06:28:15 UTC)");
        refused("DateTime('UTC')", 0x100000000L, "timestamp 4294967296 (seconds");
        refused("DateTime('UTC')", "2106-02-07T06:28:16Z", "timestamp 2106-02-07T06:28:16Z is out of range for "
                + "DateTime('UTC') (1970-01-01 00:00:00 to 2106-02-07 06:28:15 UTC)");
        refused("DateTime", new java.util.Date(-1000L), "timestamp 1969-12-31T23:59:59Z is out of range");
    }
}
