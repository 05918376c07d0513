package io.chsink.connect.mapping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.encoder.NativeBlock;
import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.TableColumn;
import io.chsink.connect.schema.TableColumn.DefaultKind;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/** How records become composite column values: choices, projections, errors and whole-row rollback. */
class CompositeMappingTest {
    private static TableMapping mapping(String... nameType) {
        List<TableColumn> cols = new ArrayList<>();
        for (int i = 0; i < nameType.length; i += 2) {
            cols.add(new TableColumn(nameType[i], ClickHouseType.parse(nameType[i + 1]), DefaultKind.NONE));
        }
        return new TableMapping(new TableSchema(new TableId("db", "t"), cols));
    }

    private static Map<String, Object> row(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private static SinkRecord record(Schema schema, Object value) {
        return new SinkRecord("topic", 1, null, null, schema, value, 42);
    }

    private static String error(TableMapping m, NativeBlock b, Schema schema, Object value) {
        return assertThrows(RecordMappingException.class, () -> m.append(record(schema, value), b)).getMessage();
    }

    private static final Schema AB = SchemaBuilder.struct().field("a", Schema.INT64_SCHEMA)
            .field("b", Schema.STRING_SCHEMA).build();

    @Test
    void aFlattenedNestedColumnIsFedFromOneListOfStructsAndABadRecordLeavesNoPartialRow() throws IOException {
        TableMapping m = mapping("n.a", "Array(UInt32)", "n.b", "Array(String)", "t", "Tuple(x Int32)");
        Schema s = SchemaBuilder.struct().field("n", SchemaBuilder.array(AB).build())
                .field("t", SchemaBuilder.struct().field("x", Schema.INT64_SCHEMA).build()).build();
        NativeBlock expected = m.newBlock(4);
        NativeBlock b = m.newBlock(4);
        Struct good = new Struct(s).put("n", Arrays.asList(new Struct(AB).put("a", 1L).put("b", "p"),
                new Struct(AB).put("a", 2L).put("b", "q"))).put("t", new Struct(s.field("t").schema()).put("x", 5L));
        m.append(record(s, good), expected);
        m.append(record(s, good), b);
        // n.a and n.b are written, then t rejects the record: the whole row is withdrawn
        Struct bad = new Struct(s).put("n", good.get("n"))
                .put("t", new Struct(s.field("t").schema()).put("x", 1L << 40));
        String msg = error(m, b, s, bad);
        assertTrue(msg.contains("field 't' -> column 't' (ClickHouse type Tuple(x Int32))"), msg);
        assertTrue(msg.contains("tuple element 'x' (Long): value is out of range for Int32"), msg);
        assertEquals(1, b.rows());
        assertEquals(CompositeLayoutTest.hex(expected), CompositeLayoutTest.hex(b));
    }

    @Test
    void theFieldFeedingAFlattenedNestedIsNotAnUnknownField() {
        List<TableColumn> cols = Arrays.asList(
                new TableColumn("n.a", ClickHouseType.parse("Array(UInt32)"), DefaultKind.NONE),
                new TableColumn("n.b", ClickHouseType.parse("Array(String)"), DefaultKind.NONE));
        TableMapping strict = new TableMapping(new TableSchema(new TableId("db", "t"), cols), true);
        NativeBlock b = strict.newBlock(4);
        Schema s = SchemaBuilder.struct().field("n", SchemaBuilder.array(AB).build()).build();
        strict.append(record(s, new Struct(s).put("n", Arrays.asList(new Struct(AB).put("a", 1L).put("b", "x")))), b);
        strict.append(record(null, row("n", Arrays.asList(row("a", 2L, "b", "y")))), b);
        assertEquals(2, b.rows());
        String unknown = error(strict, b, null, row("n", Collections.emptyList(), "other", 1L));
        assertTrue(unknown.contains("field 'other'"), unknown);
    }

    @Test
    void nestedElementsMustMatchTheTablesSubColumns() {
        TableMapping m = mapping("n.a", "Array(UInt32)", "n.b", "Array(String)");
        NativeBlock b = m.newBlock(4);
        Schema abc = SchemaBuilder.struct().field("a", Schema.INT64_SCHEMA).field("b", Schema.STRING_SCHEMA)
                .field("c", Schema.STRING_SCHEMA).build();
        Schema s = SchemaBuilder.struct().field("n", SchemaBuilder.array(abc).build()).build();
        String extra = error(m, b, s, new Struct(s).put("n", Arrays.asList(new Struct(abc).put("a", 1L).put("b", "x").put("c", "y"))));
        assertTrue(extra.contains("field 'n[].a' -> column 'n.a' (ClickHouse type Array(UInt32)): value is ArrayList: "
                + "element 0 of 'n' has field 'c', which does not match any Nested column n.*"), extra);
        String missing = error(m, b, null, row("n", Arrays.asList(row("a", 1L))));
        assertTrue(missing.contains("element 0 of 'n' has no field 'b' for Nested column n.b"), missing);
        // fields named n.a and n.b directly: their lengths must agree, or ClickHouse would reject the block
        String lengths = error(m, b, null, row("n.a", Arrays.asList(1L, 2L), "n.b", Arrays.asList("x")));
        assertTrue(lengths.contains("column 'n.b'") && lengths.contains("array length differs"), lengths);
        assertEquals(0, b.rows());
    }

    @Test
    void mapKeysArrayElementsAndTupleShapesAreCheckedAndNamed() {
        TableMapping m = mapping("m", "Map(UInt32, String)", "a", "Array(Array(UInt8))", "t", "Tuple(Int32, String)");
        NativeBlock b = m.newBlock(4);
        String key = error(m, b, null, row("m", row("x1", "v"), "a", Collections.emptyList(), "t", Arrays.asList(1L, "s")));
        assertTrue(key.contains("value is LinkedHashMap: map key 0 (string of length 2): string is not a number"), key);
        String el = error(m, b, null, row("m", row(), "a", Arrays.asList(Arrays.asList(1L, 256L)), "t", Arrays.asList(1L, "s")));
        assertTrue(el.contains("array element 0 (Arrays$ArrayList): array element 1 (Long): value is out of range for UInt8")
                || el.contains("array element 0 (ArrayList): array element 1 (Long): value is out of range for UInt8"), el);
        String nul = error(m, b, null, row("m", row(), "a", Arrays.asList(Arrays.asList(1L, null)), "t", Arrays.asList(1L, "s")));
        assertTrue(nul.contains("array element 1 is null but UInt8 is not Nullable"), nul);
        String shape = error(m, b, null, row("m", row(), "a", null, "t", Arrays.asList(1L)));
        assertTrue(shape.contains("an array of 1 values does not match Tuple(Int32, String) (2 elements)"), shape);
        String tupleNull = error(m, b, null, row("m", null, "a", null, "t", null));
        assertTrue(tupleNull.contains("column 't'"), tupleNull);
        assertEquals(0, b.rows());
        m.append(record(null, row("m", null, "a", null, "t", Arrays.asList(1L, "s"))), b); // null map/array: empty
        assertEquals(1, b.rows());
    }

    @Test
    void variantsArePickedByUnionBranchThenByTheValuesKind() throws IOException {
        TableMapping m = mapping("v", "Variant(String, UInt64, Array(UInt8))");
        Schema union = SchemaBuilder.struct().name("io.confluent.connect.avro.Union").optional()
                .field("string", Schema.OPTIONAL_STRING_SCHEMA).field("long", Schema.OPTIONAL_INT64_SCHEMA).build();
        Schema s = SchemaBuilder.struct().field("v", union).build();
        NativeBlock b = m.newBlock(8);
        m.append(record(s, new Struct(s).put("v", new Struct(union).put("string", "12"))), b);
        m.append(record(s, new Struct(s).put("v", new Struct(union).put("long", 12L))), b);
        m.append(record(s, new Struct(s).put("v", new Struct(union))), b);
        m.append(record(null, row("v", Arrays.asList(1L, 2L))), b);
        m.append(record(null, row("v", "x")), b);
        String neg = error(m, b, null, row("v", -1L));
        assertTrue(neg.contains("no variant of Variant(String, UInt64, Array(UInt8)) holds a Long value exactly"), neg);
        // sorted variants: Array(UInt8)=0, String=1, UInt64=2; discriminators 1, 2, NULL, 0, 1
        String hex = CompositeLayoutTest.hex(b);
        assertTrue(hex.contains("0000000000000000" + "0102ff0001"), hex);
    }

    @Test
    void jsonTypedPathsGoThroughTheirTypesWriters() {
        TableMapping m = mapping("j", "JSON(a UInt8, `b.c` String)");
        NativeBlock b = m.newBlock(4);
        m.append(record(null, row("j", "{\"a\": 3, \"b\": {\"c\": \"x\"}, \"z\": [1.5, null]}")), b);
        m.append(record(null, row("j", row("a", 4L, "b", row("c", "y")))), b);
        String range = error(m, b, null, row("j", row("a", 300L)));
        assertTrue(range.contains("JSON path 'a' (Long): value is out of range for UInt8"), range);
        String twice = error(m, b, null, row("j", row("b.c", "x", "b", row("c", "y"))));
        assertTrue(twice.contains("JSON path 'b.c' appears twice"), twice);
        String text = error(m, b, null, row("j", "{\"a\": 1,"));
        assertTrue(text.contains("string is not valid JSON"), text);
        String notObject = error(m, b, null, row("j", "[1]"));
        assertTrue(notObject.contains("is not a JSON object"), notObject);
        assertEquals(2, b.rows());
    }

    // The type each kind of value is stored under: DynamicWriterTest.
    @Test
    void aDynamicColumnRefusesObjects() {
        TableMapping m = mapping("d", "Dynamic");
        String object = error(m, m.newBlock(1), null, row("d", row("a", 1L)));
        assertTrue(object.contains("a Dynamic column takes scalars and arrays, not a LinkedHashMap"), object);
    }

    @Test
    void arrayOfLowCardinalityWritesTheDictionaryPrefixBeforeTheOffsets() throws IOException {
        TableMapping m = mapping("lc", "Array(LowCardinality(String))");
        NativeBlock b = m.newBlock(4);
        m.append(record(null, row("lc", Arrays.asList("a", "b", "a"))), b);
        m.append(record(null, row("lc", Collections.emptyList())), b);
        String hex = CompositeLayoutTest.hex(b);
        String header = "0102" + "026c63" + "1d" + hex("Array(LowCardinality(String))");
        String prefix = "0100000000000000"; // LowCardinality key version, before any data
        String offsets = "0300000000000000" + "0300000000000000";
        String lcData = "0002000000000000" + "0200000000000000" + "0161" + "0162" + "0300000000000000" + "000100";
        assertEquals(header + prefix + offsets + lcData, hex);
    }

    @Test
    void typesWhoseElementsCannotTravelAreReportedAsNotWrittenYet() {
        TableMapping m = mapping("ok", "Array(LowCardinality(Nullable(String)))", "aj", "Array(JSON)",
                "alc", "Array(LowCardinality(UInt32))", "jlc", "JSON(a LowCardinality(UInt8))");
        assertEquals(Arrays.asList("`ok`", "`aj`"), m.quotedColumnNames());
        assertEquals(2, m.unwritableColumns().size());
    }

    private static String hex(String s) {
        StringBuilder sb = new StringBuilder();
        for (byte x : s.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            sb.append(String.format("%02x", x & 0xff));
        }
        return sb.toString();
    }
}
