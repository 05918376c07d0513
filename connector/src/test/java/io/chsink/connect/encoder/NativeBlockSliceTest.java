package io.chsink.connect.encoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.mapping.RecordMappingException;
import io.chsink.connect.mapping.SourceAdapters;
import io.chsink.connect.mapping.TableMapping;
import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.TableColumn;
import io.chsink.connect.schema.TableColumn.DefaultKind;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.function.ObjIntConsumer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * {@link NativeBlock#writeTo(java.io.OutputStream, int, int)}: a range of a block's rows written alone is byte for
 * byte the block that received only those rows, for every column shape the encoder has, nested in each other.
 */
class NativeBlockSliceTest {
    /** Every column shape, nested; {@code bad} last, so a record it refuses is withdrawn after all others took it. */
    private static final String[] COLUMNS = {
        "i8", "Int8", "u64", "UInt64", "f64", "Float64", "id", "UUID", "s", "String", "fs", "FixedString(4)",
        "nfs", "Nullable(FixedString(3))", "ns", "Nullable(String)", "lc", "LowCardinality(String)",
        "lcn", "LowCardinality(Nullable(String))", "ans", "Array(Nullable(String))", "aa", "Array(Array(UInt16))",
        "alcn", "Array(LowCardinality(Nullable(String)))",
        "t", "Tuple(a Int32, b Nullable(String), c Array(LowCardinality(String)))",
        "m", "Map(String, Array(Nullable(Int32)))", "nest", "Nested(x Int32, y String)", "p", "Point",
        "v", "Variant(Array(UInt8), String, UInt64)", "vlc", "Variant(Int64, LowCardinality(String))",
        "d", "Dynamic", "ad", "Array(Dynamic)", "j", "JSON(a UInt8, b LowCardinality(String))", "aj", "Array(JSON)",
        "bad", "UInt8"};

    private static TableMapping mapping(String... nameType) {
        List<TableColumn> cols = new ArrayList<>();
        for (int i = 0; i < nameType.length; i += 2) {
            cols.add(new TableColumn(nameType[i], ClickHouseType.parse(nameType[i + 1]), DefaultKind.NONE));
        }
        TableMapping m = new TableMapping(new TableSchema(new TableId("db", "t"), cols));
        assertEquals(nameType.length / 2, m.quotedColumnNames().size(), "every column is written");
        return m;
    }

    private static byte[] bytes(NativeBlock b) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        b.writeTo(out);
        return out.toByteArray();
    }

    private static byte[] bytes(NativeBlock b, int from, int to) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        b.writeTo(out, from, to);
        return out.toByteArray();
    }

    private static SinkRecord record(Map<String, Object> value, long offset) {
        return new SinkRecord("topic", 0, null, null, null, value, offset);
    }

    /** Random values for {@link #COLUMNS}: repeated and new strings, NULLs, empty and long arrays, many types. */
    private static final class Values {
        private final Random rnd;
        private int fresh;

        Values(long seed) {
            rnd = new Random(seed);
        }

        String str() {
            int k = rnd.nextInt(20);
            if (k == 0) {
                return "new-" + fresh++; // a key no row had before
            }
            if (k == 1) {
                return "\u00e9t\u00e9-" + rnd.nextInt(5);
            }
            if (k == 2) {
                return "long-".repeat(30 + rnd.nextInt(30)) + rnd.nextInt(3);
            }
            return k == 3 ? "" : "v" + rnd.nextInt(12);
        }

        String nullableStr() {
            return rnd.nextInt(4) == 0 ? null : str();
        }

        List<Object> list(java.util.function.Supplier<Object> element) {
            int n = rnd.nextInt(5) == 0 ? 0 : rnd.nextInt(4);
            List<Object> l = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                l.add(element.get());
            }
            return l;
        }

        Object dynamic() {
            switch (rnd.nextInt(8)) {
                case 0:
                    return null;
                case 1:
                    return rnd.nextLong();
                case 2:
                    return str();
                case 3:
                    return rnd.nextDouble();
                case 4:
                    return rnd.nextBoolean();
                case 5:
                    return list(() -> (long) rnd.nextInt(100));
                case 6:
                    return list(this::nullableStr);
                default:
                    return new java.math.BigDecimal(rnd.nextInt(10000)).movePointLeft(rnd.nextInt(3));
            }
        }

        Map<String, Object> json() {
            Map<String, Object> o = new LinkedHashMap<>();
            if (rnd.nextBoolean()) {
                o.put("a", (long) rnd.nextInt(256));
            }
            if (rnd.nextBoolean()) {
                o.put("b", str());
            }
            int paths = rnd.nextInt(4);
            for (int i = 0; i < paths; i++) {
                String path = "p" + rnd.nextInt(rnd.nextInt(10) == 0 ? 40 : 6);
                switch (rnd.nextInt(6)) {
                    case 0:
                        o.put(path, rnd.nextLong());
                        break;
                    case 1:
                        o.put(path, str());
                        break;
                    case 2:
                        o.put(path, rnd.nextDouble());
                        break;
                    case 3:
                        o.put(path, list(() -> (long) rnd.nextInt(9)));
                        break;
                    case 4:
                        o.put("obj" + path, Map.of("q", rnd.nextLong())); // path objp.q
                        break;
                    default:
                        o.put("objs" + path, list(() -> Map.of("k", (long) rnd.nextInt(3)))); // Array(JSON)
                }
            }
            return o;
        }

        /** A record value; {@code refused} ones carry a value the last column cannot take. */
        Map<String, Object> row(boolean refused) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("i8", (long) rnd.nextInt(256) - 128);
            r.put("u64", rnd.nextLong() & Long.MAX_VALUE);
            r.put("f64", rnd.nextGaussian());
            r.put("id", new UUID(rnd.nextLong(), rnd.nextLong()).toString());
            r.put("s", str());
            r.put("fs", "ab".substring(0, rnd.nextInt(3)) + (rnd.nextBoolean() ? "cd" : ""));
            r.put("nfs", rnd.nextInt(3) == 0 ? null : "x" + rnd.nextInt(99));
            r.put("ns", nullableStr());
            r.put("lc", str());
            r.put("lcn", nullableStr());
            r.put("ans", list(this::nullableStr));
            r.put("aa", list(() -> list(() -> (long) rnd.nextInt(65536))));
            r.put("alcn", list(this::nullableStr));
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("a", (long) rnd.nextInt());
            t.put("b", nullableStr());
            t.put("c", list(this::str));
            r.put("t", t);
            Map<String, Object> m = new LinkedHashMap<>();
            for (Object k : list(this::str)) {
                m.put((String) k, list(() -> rnd.nextInt(3) == 0 ? null : (Object) (long) rnd.nextInt()));
            }
            r.put("m", m);
            r.put("nest", list(() -> Map.of("x", (long) rnd.nextInt(), "y", str())));
            r.put("p", Arrays.asList(rnd.nextDouble(), rnd.nextDouble()));
            int v = rnd.nextInt(4);
            r.put("v", v == 0 ? null : v == 1 ? str() : v == 2 ? (Object) (rnd.nextLong() & Long.MAX_VALUE)
                    : list(() -> (long) rnd.nextInt(256)));
            int vlc = rnd.nextInt(3);
            r.put("vlc", vlc == 0 ? null : vlc == 1 ? (Object) rnd.nextLong() : str());
            r.put("d", dynamic());
            r.put("ad", list(this::dynamic));
            r.put("j", json());
            r.put("aj", list(this::json));
            r.put("bad", refused ? 1000L : (long) rnd.nextInt(256));
            return r;
        }
    }

    /**
     * Appends {@code count} random records, about one in seven refused (withdrawn after every other column took
     * it, leaving behind dictionary keys, Dynamic types and JSON paths no row uses), and returns those kept.
     */
    private static List<SinkRecord> fill(TableMapping m, NativeBlock b, Values values, int count) {
        List<SinkRecord> kept = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            boolean refused = i == 0 || values.rnd.nextInt(7) == 0;
            SinkRecord r = record(values.row(refused), i);
            if (refused) {
                assertThrows(RecordMappingException.class, () -> m.append(r, b));
            } else {
                m.append(r, b);
                kept.add(r);
            }
        }
        assertEquals(kept.size(), b.rows());
        return kept;
    }

    /** Edge ranges and random ones of {@code b}, each against a fresh block given only the range's records. */
    private static void assertSlicesAreFreshBlocks(TableMapping m, NativeBlock b, List<SinkRecord> kept, Random rnd)
            throws IOException {
        int n = b.rows();
        List<int[]> ranges = new ArrayList<>(Arrays.asList(new int[] {0, 0}, new int[] {n / 2, n / 2},
                new int[] {n, n}, new int[] {0, 1}, new int[] {n - 1, n}, new int[] {1, 2}, new int[] {0, n - 1},
                new int[] {1, n}, new int[] {0, n / 2}, new int[] {n / 2, n}));
        for (int i = 0; i < 40; i++) {
            int from = rnd.nextInt(n + 1);
            ranges.add(new int[] {from, from + rnd.nextInt(n - from + 1)});
        }
        for (int[] r : ranges) {
            NativeBlock fresh = m.newBlock(16);
            for (SinkRecord rec : kept.subList(r[0], r[1])) {
                m.append(rec, fresh);
            }
            assertArrayEquals(bytes(fresh), bytes(b, r[0], r[1]), "rows " + r[0] + ".." + r[1] + " of " + n);
        }
    }

    @Test
    void aRangeOfRowsIsTheBlockOfJustThoseRowsForEveryColumnShape() throws IOException {
        TableMapping m = mapping(COLUMNS);
        for (long seed = 1; seed <= 5; seed++) {
            NativeBlock b = m.newBlock(16);
            List<SinkRecord> kept = fill(m, b, new Values(seed), 300);
            assertSlicesAreFreshBlocks(m, b, kept, new Random(seed));
        }
    }

    @Test
    void theWholeRangeIsWhatWriteToWrites() throws IOException {
        TableMapping m = mapping(COLUMNS);
        NativeBlock b = m.newBlock(16);
        fill(m, b, new Values(11), 100);
        assertArrayEquals(bytes(b), bytes(b, 0, b.rows()));
        NativeBlock empty = m.newBlock(16);
        assertArrayEquals(bytes(empty), bytes(empty, 0, 0));
    }

    @Test
    void aSingleRowIsItsOwnBlockAtEveryPosition() throws IOException {
        TableMapping m = mapping(COLUMNS);
        NativeBlock b = m.newBlock(16);
        List<SinkRecord> kept = fill(m, b, new Values(21), 60);
        for (int row = 0; row < b.rows(); row++) {
            NativeBlock fresh = m.newBlock(16);
            m.append(kept.get(row), fresh);
            assertArrayEquals(bytes(fresh), bytes(b, row, row + 1), "row " + row);
        }
    }

    /** The columns {@link NativeBlock#reset()} reuses (composites are made anew) refilled after a reset. */
    @Test
    void aBlockResetAndRefilledSlicesLikeAFreshOne() throws IOException {
        List<String> reusable = Arrays.asList("i8", "u64", "f64", "id", "s", "fs", "nfs", "ns", "lc", "lcn", "bad");
        List<String> columns = new ArrayList<>();
        for (int i = 0; i < COLUMNS.length; i += 2) {
            if (reusable.contains(COLUMNS[i])) {
                columns.add(COLUMNS[i]);
                columns.add(COLUMNS[i + 1]);
            }
        }
        TableMapping m = mapping(columns.toArray(new String[0]));
        NativeBlock b = m.newBlock(16);
        Values values = new Values(31);
        fill(m, b, values, 400);
        assertTrue(b.reset());
        List<SinkRecord> kept = fill(m, b, values, 150);
        assertSlicesAreFreshBlocks(m, b, kept, new Random(33));
    }

    /** Strings, offsets and dictionaries over many buffer chunks (values straddle chunk ends). */
    @Test
    void rangesAcrossBufferChunks() throws IOException {
        TableMapping m = mapping("s", "String", "as", "Array(String)", "ns", "Nullable(String)",
                "lcn", "LowCardinality(Nullable(String))", "fs", "FixedString(7)", "u", "UInt32");
        NativeBlock b = m.newBlock(16);
        Random rnd = new Random(41);
        List<SinkRecord> kept = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("s", "s".repeat(rnd.nextInt(1000)));
            r.put("as", Arrays.asList("a".repeat(rnd.nextInt(300)), "b" + i));
            r.put("ns", rnd.nextBoolean() ? null : "n".repeat(rnd.nextInt(700)) + i);
            r.put("lcn", rnd.nextInt(5) == 0 ? null : "k".repeat(rnd.nextInt(200)) + rnd.nextInt(500));
            r.put("fs", "f" + (i % 1000));
            r.put("u", (long) i);
            kept.add(record(r, i));
            m.append(kept.get(i), b);
        }
        assertTrue(b.sizeInBytes() > 4 * ByteSink.MAX_CHUNK);
        assertSlicesAreFreshBlocks(m, b, kept, new Random(42));
    }

    /** Replays row recipes [from, to) into a fresh one-column block. */
    private static NativeBlock replay(NativeColumn column, ObjIntConsumer<NativeColumn> recipe, int from, int to) {
        NativeBlock b = new NativeBlock(new String[] {"c"}, new NativeColumn[] {column});
        for (int r = from; r < to; r++) {
            b.beginRow();
            recipe.accept(column, r);
            b.commitRow();
        }
        return b;
    }

    private static void assertSlicesReplay(java.util.function.Supplier<NativeColumn> column,
            ObjIntConsumer<NativeColumn> recipe, int rows, int[][] ranges) throws IOException {
        NativeBlock b = replay(column.get(), recipe, 0, rows);
        for (int[] r : ranges) {
            assertArrayEquals(bytes(replay(column.get(), recipe, r[0], r[1])), bytes(b, r[0], r[1]),
                    "rows " + r[0] + ".." + r[1]);
        }
    }

    /** Past 255 types a Dynamic's indexes take two bytes; a range holding fewer types goes back to one. */
    @Test
    void dynamicIndexesNarrowWhenTheRangeHoldsFewerTypes() throws IOException {
        ObjIntConsumer<NativeColumn> recipe = (c, r) -> {
            DynamicColumn d = (DynamicColumn) c;
            if (r % 5 == 0) {
                d.putNull();
            } else {
                ((FixedWidthColumn) d.select("T" + (r * 7 % 300), n -> new FixedWidthColumn(n, 1, 4))).putByte(r);
            }
        };
        assertSlicesReplay(() -> new DynamicColumn("Dynamic", 16), recipe, 2000,
                new int[][] {{0, 1999}, {1, 2000}, {10, 200}, {300, 1900}, {5, 6}, {7, 7}});
    }

    /** A dictionary past 256 and 65,536 keys takes wider indexes; a range's own dictionary is as wide as it needs. */
    @Test
    void lowCardinalityIndexesNarrowWithTheRangesDictionary() throws IOException {
        ObjIntConsumer<NativeColumn> recipe = (c, r) -> {
            LowCardinalityStringColumn lc = (LowCardinalityStringColumn) c;
            if (r % 11 == 0) {
                lc.putNull();
            } else {
                lc.putString(r % 3 == 0 ? "k" + r : "repeat" + (r % 17));
            }
        };
        assertSlicesReplay(() -> new LowCardinalityStringColumn("LowCardinality(Nullable(String))", true, 16), recipe,
                210_000, new int[][] {{0, 209_999}, {1000, 2000}, {50_000, 150_000}, {3, 4}, {9, 9}, {0, 1}});
    }

    /**
     * A JSON path that every row of the range holds NULL at is left out of the range's path list: NULL at a dynamic
     * path is its absence, so the range reads back as the rows without it. A fresh block lists such a path when a row
     * names it with a null value (an Avro union with no branch set): that one difference is by nature, as the block
     * keeps no record of which rows named a path.
     */
    @Test
    void aJsonPathNullInEveryRowOfTheRangeIsLeftOut() throws IOException {
        TableMapping m = mapping("j", "JSON");
        Schema union = SchemaBuilder.struct().name(SourceAdapters.AVRO_UNION).optional()
                .field("string", Schema.OPTIONAL_STRING_SCHEMA).build();
        NativeBlock b = m.newBlock(4);
        m.append(record(Map.of("j", Map.of("y", 1L)), 0), b);
        m.append(record(Map.of("j", Map.of("x", new Struct(union), "y", 2L)), 1), b);
        m.append(record(Map.of("j", Map.of("x", 3L)), 2), b);
        NativeBlock without = m.newBlock(4);
        m.append(record(Map.of("j", Map.of("y", 1L)), 0), without);
        m.append(record(Map.of("j", Map.of("y", 2L)), 1), without);
        assertArrayEquals(bytes(without), bytes(b, 0, 2));
        NativeBlock named = m.newBlock(4);
        m.append(record(Map.of("j", Map.of("y", 1L)), 0), named);
        m.append(record(Map.of("j", Map.of("x", new Struct(union), "y", 2L)), 1), named);
        assertTrue(bytes(named).length > bytes(b, 0, 2).length, "the fresh block lists path x");
    }

    @Test
    void rangesOutsideTheBlockAreRefused() {
        TableMapping m = mapping("u", "UInt8");
        NativeBlock b = m.newBlock(4);
        m.append(record(Map.of("u", 1L), 0), b);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThrows(IndexOutOfBoundsException.class, () -> b.writeTo(out, 0, 2));
        assertThrows(IndexOutOfBoundsException.class, () -> b.writeTo(out, 1, 0));
        assertThrows(IndexOutOfBoundsException.class, () -> b.writeTo(out, -1, 1));
    }

    @Test
    void theEstimateIsTheBlocksBytesInProportionToTheRows() {
        TableMapping m = mapping("u", "UInt32");
        NativeBlock b = m.newBlock(4);
        for (long i = 0; i < 10; i++) {
            m.append(record(Map.of("u", i), i), b);
        }
        assertEquals(12, b.estimatedBytes(2, 5));
        assertEquals(0, b.estimatedBytes(3, 3));
        assertEquals(40, b.estimatedBytes(0, 10));
    }
}
