package io.chsink.connect.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.schema.ClickHouseType.Kind;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

class TypeParserTest {
    @Test
    void parsesWrappersAndKeepsTheServerSpelling() {
        ClickHouseType t = ClickHouseType.parse("LowCardinality(Nullable(String))");
        assertEquals(Kind.LOW_CARDINALITY, t.kind());
        assertEquals(Kind.NULLABLE, t.inner().kind());
        assertEquals(Kind.STRING, t.inner().inner().kind());
        assertTrue(t.isNullable());
        assertEquals("LowCardinality(Nullable(String))", t.text());
        assertEquals("Nullable(String)", t.inner().text());
    }

    @Test
    void parsesDecimalsInBothSpellings() {
        ClickHouseType d = ClickHouseType.parse("Decimal(38, 5)");
        assertEquals(38, d.precision());
        assertEquals(5, d.scale());
        assertEquals(16, d.decimalWidth());
        ClickHouseType d64 = ClickHouseType.parse("Decimal64(4)");
        assertEquals(18, d64.precision());
        assertEquals(4, d64.scale());
        assertEquals(8, d64.decimalWidth());
        assertEquals(4, ClickHouseType.parse("Decimal(9, 2)").decimalWidth());
        assertEquals(32, ClickHouseType.parse("Decimal(76, 10)").decimalWidth());
    }

    @Test
    void parsesTimeTypesWithZones() {
        ClickHouseType dt = ClickHouseType.parse("DateTime('Asia/Tokyo')");
        assertEquals(ZoneId.of("Asia/Tokyo"), dt.zone());
        ClickHouseType dt64 = ClickHouseType.parse("DateTime64(9, 'UTC')");
        assertEquals(9, dt64.scale());
        assertEquals(ZoneId.of("UTC"), dt64.zone());
        assertEquals(null, ClickHouseType.parse("DateTime").zone());
        assertEquals(3, ClickHouseType.parse("DateTime64(3)").scale());
    }

    @Test
    void parsesEnumsWithQuotesAndNegativeValues() {
        ClickHouseType e = ClickHouseType.parse("Enum8('a' = 1, 'it''s' = -2, 'b\\'c' = 3)");
        assertEquals(Kind.ENUM8, e.kind());
        assertEquals(Integer.valueOf(1), e.enumValues().get("a"));
        assertEquals(Integer.valueOf(-2), e.enumValues().get("it's"));
        assertEquals(Integer.valueOf(3), e.enumValues().get("b'c"));
    }

    @Test
    void parsesNestedContainersAndUnknownTypes() {
        ClickHouseType m = ClickHouseType.parse("Map(String, Array(Nullable(Int32)))");
        assertEquals(Kind.MAP, m.kind());
        assertEquals(2, m.params().size());
        assertEquals(Kind.ARRAY, m.params().get(1).kind());
        ClickHouseType tuple = ClickHouseType.parse("Tuple(a Int32, b String)");
        assertEquals(2, tuple.params().size());
        assertEquals(Kind.STRING, tuple.params().get(1).kind());
        ClickHouseType agg = ClickHouseType.parse("AggregateFunction(sum, UInt64)");
        assertEquals(Kind.OTHER, agg.kind());
        assertEquals(16, ClickHouseType.parse("FixedString(16)").length());
    }

    @Test
    void rejectsMalformedTypes() {
        assertThrows(IllegalArgumentException.class, () -> ClickHouseType.parse("Nullable(String"));
        assertThrows(IllegalArgumentException.class, () -> ClickHouseType.parse("Nullable()"));
        assertThrows(IllegalArgumentException.class, () -> ClickHouseType.parse("String junk"));
    }
}
