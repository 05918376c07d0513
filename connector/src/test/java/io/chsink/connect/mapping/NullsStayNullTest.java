package io.chsink.connect.mapping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.encoder.NativeBlock;
import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.TableColumn;
import io.chsink.connect.schema.TableColumn.DefaultKind;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * A null in a Struct field is NULL in ClickHouse even when the field's schema has a default (Debezium's event for a
 * column {@code DEFAULT 0} set to NULL): at the top level and inside Tuples, Arrays, Maps, Nested, Variants, Dynamic
 * and JSON. Each case writes the same row from a schema with defaults and from one without: the blocks must be
 * byte for byte the same, and differ from the block of the defaults themselves.
 */
class NullsStayNullTest {
    private static final String UNION = SourceAdapters.AVRO_UNION;

    private static TableMapping mapping(String... nameTypeKind) {
        List<TableColumn> cols = new ArrayList<>();
        for (int i = 0; i < nameTypeKind.length; i += 2) {
            cols.add(new TableColumn(nameTypeKind[i], ClickHouseType.parse(nameTypeKind[i + 1]), DefaultKind.NONE));
        }
        return new TableMapping(new TableSchema(new TableId("db", "t"), cols));
    }

    private static SinkRecord record(Object value) {
        return new SinkRecord("topic", 0, null, null, value instanceof Struct ? ((Struct) value).schema() : null,
                value, 7);
    }

    private static String written(TableMapping m, Object value) throws IOException {
        NativeBlock b = m.newBlock(1);
        m.append(record(value), b);
        return CompositeLayoutTest.hex(b);
    }

    private static Schema optInt32(boolean dflt) {
        SchemaBuilder b = SchemaBuilder.int32().optional();
        return (dflt ? b.defaultValue(7) : b).build();
    }

    private static Schema optInt64(boolean dflt) {
        SchemaBuilder b = SchemaBuilder.int64().optional();
        return (dflt ? b.defaultValue(5L) : b).build();
    }

    private static Schema optString(boolean dflt) {
        SchemaBuilder b = SchemaBuilder.string().optional();
        return (dflt ? b.defaultValue("new") : b).build();
    }

    /** price Decimal(2) default 0.00 and status default 'new', both optional: PostgreSQL's DEFAULT 0 / 'new'. */
    private static Schema scalars(boolean dflt) {
        SchemaBuilder price = Decimal.builder(2).optional();
        return SchemaBuilder.struct().field("price", (dflt ? price.defaultValue(new BigDecimal("0.00")) : price).build())
                .field("status", optString(dflt)).build();
    }

    @Test
    void aNullFieldWithASchemaDefaultIsNullAtTheTopLevel() throws IOException {
        TableMapping m = mapping("price", "Nullable(Decimal(10, 2))", "status", "Nullable(String)");
        Struct withDefaults = new Struct(scalars(true)).put("price", null).put("status", null);
        Struct plain = new Struct(scalars(false)).put("price", null).put("status", null);
        Struct theDefaults = new Struct(scalars(false)).put("price", new BigDecimal("0.00")).put("status", "new");
        Map<String, Object> schemaless = new HashMap<>();
        schemaless.put("price", null);
        schemaless.put("status", null);
        assertEquals(written(m, plain), written(m, withDefaults));
        assertEquals(written(m, schemaless), written(m, withDefaults));
        assertNotEquals(written(m, theDefaults), written(m, withDefaults));
        // a value that is there is written, default or not
        Struct set = new Struct(scalars(true)).put("price", new BigDecimal("1.50")).put("status", "new");
        assertEquals(written(m, new Struct(scalars(false)).put("price", new BigDecimal("1.50")).put("status", "new")),
                written(m, set));
    }

    @Test
    void aFieldTheRecordLacksTakesTheColumnsDefaultAndANullForANonNullableColumnIsStillRefused() throws IOException {
        TableMapping m = new TableMapping(new TableSchema(new TableId("db", "t"), Arrays.asList(
                new TableColumn("id", ClickHouseType.parse("Int32"), DefaultKind.NONE),
                new TableColumn("status", ClickHouseType.parse("String"), DefaultKind.DEFAULT))));
        Schema idOnly = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build();
        Map<String, Object> lacking = new HashMap<>();
        lacking.put("id", 1);
        // absent: NULL on the wire (the column travels as Nullable(String)), which the server turns into its DEFAULT
        assertEquals(written(m, lacking), written(m, new Struct(idOnly).put("id", 1)));
        Schema withStatus = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).field("status", optString(true))
                .build();
        assertEquals(written(m, lacking), written(m, new Struct(withStatus).put("id", 1).put("status", null)));

        TableMapping strict = mapping("id", "Int32", "status", "String");
        NativeBlock b = strict.newBlock(1);
        String msg = assertThrows(RecordMappingException.class, () -> strict.append(
                record(new Struct(withStatus).put("id", 1).put("status", null)), b)).getMessage();
        assertTrue(msg.contains("field 'status' -> column 'status' (ClickHouse type String)"), msg);
        assertTrue(msg.contains("null for a non-Nullable column without a default"), msg);
    }

    private static Schema element(boolean dflt) {
        return SchemaBuilder.struct().field("a", optInt32(dflt)).field("b", optString(dflt)).build();
    }

    private static Schema union(boolean dflt) {
        return SchemaBuilder.struct().name(UNION).field("int", optInt64(dflt)).field("string", optString(false))
                .build();
    }

    private static Schema composites(boolean dflt) {
        Schema e = element(dflt);
        return SchemaBuilder.struct()
                .field("t", e)
                .field("arr", SchemaBuilder.array(e).build())
                .field("n", SchemaBuilder.array(e).build())
                .field("m", SchemaBuilder.struct().field("x", optInt32(dflt)).field("y", optInt32(dflt)).build())
                .field("v", union(dflt))
                .field("d", union(dflt))
                .field("w", union(dflt))
                .field("j", e)
                .build();
    }

    private static Struct compositeRow(boolean dflt, boolean defaultsFilledIn) {
        Schema s = composites(dflt);
        Schema e = element(dflt);
        Object a = defaultsFilledIn ? 7 : null;
        Object b = defaultsFilledIn ? "new" : null;
        Schema u = s.field("v").schema();
        return new Struct(s)
                .put("t", new Struct(e).put("a", a).put("b", "x"))
                .put("arr", Collections.singletonList(new Struct(e).put("a", a).put("b", b)))
                .put("n", Arrays.asList(new Struct(e).put("a", a).put("b", "q"), new Struct(e).put("a", 1).put("b", b)))
                .put("m", new Struct(s.field("m").schema()).put("x", a).put("y", 3))
                .put("v", new Struct(u).put("string", "hello"))
                .put("d", new Struct(u).put("string", "hello"))
                .put("w", new Struct(u).put("string", "hello"))
                .put("j", new Struct(e).put("a", a).put("b", "z"));
    }

    @Test
    void aNullFieldWithASchemaDefaultIsNullInsideEveryCompositeColumn() throws IOException {
        TableMapping m = mapping(
                "t", "Tuple(a Nullable(Int32), b Nullable(String))",
                "arr", "Array(Tuple(a Nullable(Int32), b Nullable(String)))",
                "n.a", "Array(Nullable(Int32))", "n.b", "Array(Nullable(String))",
                "m", "Map(String, Nullable(Int32))",
                "v", "Variant(Int64, String)",
                "d", "Dynamic",
                "w", "Nullable(String)",
                "j", "JSON");
        String withDefaults = written(m, compositeRow(true, false));
        assertEquals(written(m, compositeRow(false, false)), withDefaults);
        assertNotEquals(written(m, compositeRow(false, true)), withDefaults);
    }

    @Test
    void theUnwrittenUnionBranchWithADefaultIsNoSecondBranch() throws IOException {
        // Before: the int branch read as its default 5 next to the string branch: "more than one non-null branch"
        TableMapping m = mapping("v", "Variant(Int64, String)");
        Schema s = SchemaBuilder.struct().field("v", union(true)).build();
        Struct row = new Struct(s).put("v", new Struct(union(true)).put("string", "hello"));
        Schema plain = SchemaBuilder.struct().field("v", union(false)).build();
        assertEquals(written(m, new Struct(plain).put("v", new Struct(union(false)).put("string", "hello"))),
                written(m, row));
    }

    @Test
    void structValuesKeepsNullsOfOptionalFieldsAndConnectsDefaultOfAnUnsetRequiredField() {
        Schema s = SchemaBuilder.struct()
                .field("opt", optString(true))
                .field("req", SchemaBuilder.string().defaultValue("dflt").build())
                .field("plain", Schema.OPTIONAL_STRING_SCHEMA)
                .build();
        Struct st = new Struct(s).put("opt", null).put("plain", null);
        assertEquals("new", st.get(s.field("opt")), "Connect's own get substitutes; this is what the sink avoids");
        assertNull(StructValues.get(st, s.field("opt")));
        assertNull(StructValues.get(st, "opt"));
        assertNull(StructValues.get(st, s.field("plain")));
        assertNull(StructValues.get(st, "nosuchfield"));
        // a required field cannot hold null (Struct.put refuses it): unset, it means its default, as Connect says
        assertEquals("dflt", StructValues.get(st, s.field("req")));
        // a value equal to, or the very object of, the default is the value (JsonConverter's replacement)
        st.put("opt", s.field("opt").schema().defaultValue());
        assertSame(s.field("opt").schema().defaultValue(), StructValues.get(st, s.field("opt")));
        st.put("opt", new String("new"));
        assertEquals("new", StructValues.get(st, "opt"));
    }
}
