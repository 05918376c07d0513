package io.chsink.connect.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.schema.ClickHouseType.Kind;
import java.util.Arrays;
import java.util.Collections;
import org.junit.jupiter.api.Test;

/** Composite type names exactly as system.columns spells them on ClickHouse 26.7. */
class CompositeTypeParserTest {
    @Test
    void namedAndUnnamedTuplesKeepTheirElementNames() {
        ClickHouseType t = ClickHouseType.parse("Tuple(x Int32, `odd name` Nullable(String), y Array(Tuple(a UInt8)))");
        assertEquals(Kind.TUPLE, t.kind());
        assertEquals(Arrays.asList("x", "odd name", "y"), t.elementNames());
        assertEquals("Nullable(String)", t.params().get(1).text());
        assertEquals(Collections.singletonList("a"), t.params().get(2).inner().elementNames());
        ClickHouseType u = ClickHouseType.parse("Tuple(Int32, String)");
        assertTrue(u.elementNames().isEmpty());
        assertEquals(2, u.params().size());
    }

    @Test
    void nestedIsAnArrayOfANamedTuple() {
        ClickHouseType n = ClickHouseType.parse("Nested(a UInt32, b String)");
        assertEquals(Kind.NESTED, n.kind());
        assertEquals(Arrays.asList("a", "b"), n.elementNames());
        assertEquals("Array(Tuple(`a` UInt32, `b` String))", n.structure().text());
    }

    @Test
    void mapsVariantsAndDynamic() {
        ClickHouseType m = ClickHouseType.parse("Map(LowCardinality(String), Array(Nullable(Int8)))");
        assertEquals(Kind.MAP, m.kind());
        assertEquals(Kind.LOW_CARDINALITY, m.params().get(0).kind());
        assertEquals(Kind.ARRAY, m.params().get(1).kind());
        ClickHouseType v = ClickHouseType.parse("Variant(Array(UInt8), String, UInt64)");
        assertEquals(Kind.VARIANT, v.kind());
        assertEquals(3, v.params().size());
        assertEquals(Kind.DYNAMIC, ClickHouseType.parse("Dynamic").kind());
        assertEquals(Kind.DYNAMIC, ClickHouseType.parse("Dynamic(max_types=5)").kind());
        assertThrows(IllegalArgumentException.class, () -> ClickHouseType.parse("Map(String)"));
    }

    @Test
    void jsonKeepsItsTypedPathsAndIgnoresSettingsAndSkips() {
        ClickHouseType j = ClickHouseType.parse(
                "JSON(max_dynamic_paths=10, `a.b` UInt32, c.d Array(String), SKIP e, SKIP REGEXP '^x', max_dynamic_types=3)");
        assertEquals(Kind.JSON, j.kind());
        assertEquals(Arrays.asList("a.b", "c.d"), Arrays.asList(j.typedPaths().keySet().toArray()));
        assertEquals("UInt32", j.typedPaths().get("a.b").text());
        assertEquals("Array(String)", j.typedPaths().get("c.d").text());
        assertTrue(ClickHouseType.parse("JSON").typedPaths().isEmpty());
    }

    @Test
    void geoTypesAndSimpleAggregateFunctionsHaveTheirStructure() {
        assertEquals("Tuple(Float64, Float64)", ClickHouseType.parse("Point").structure().text());
        assertEquals("Array(Tuple(Float64, Float64))", ClickHouseType.parse("Ring").structure().text());
        assertEquals("Array(Tuple(Float64, Float64))", ClickHouseType.parse("LineString").structure().text());
        assertEquals("Array(Array(Tuple(Float64, Float64)))", ClickHouseType.parse("Polygon").structure().text());
        assertEquals("Array(Array(Tuple(Float64, Float64)))", ClickHouseType.parse("MultiLineString").structure().text());
        assertEquals("Array(Array(Array(Tuple(Float64, Float64))))",
                ClickHouseType.parse("MultiPolygon").structure().text());
        ClickHouseType s = ClickHouseType.parse("SimpleAggregateFunction(anyLast, Nullable(String))");
        assertEquals(Kind.SIMPLE_AGGREGATE_FUNCTION, s.kind());
        assertEquals("Nullable(String)", s.structure().text());
        assertEquals("UInt64", ClickHouseType.parse("SimpleAggregateFunction(sum, UInt64)").structure().text());
    }
}
