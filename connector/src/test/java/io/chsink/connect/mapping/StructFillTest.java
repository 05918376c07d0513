package io.chsink.connect.mapping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

class StructFillTest {
    private static final Schema INNER = SchemaBuilder.struct().name("inner")
            .field("id", Schema.INT64_SCHEMA).field("note", Schema.OPTIONAL_STRING_SCHEMA).build();
    private static final Schema OUTER = SchemaBuilder.struct().name("outer")
            .field("price", Decimal.builder(2).build())
            .field("at", Timestamp.builder().optional().build())
            .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
            .field("attrs", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_INT32_SCHEMA).optional().build())
            .field("row", INNER)
            .field("flag", SchemaBuilder.int8().defaultValue((byte) 0).build())
            .build();

    @Test
    void reachesTheStructsOwnValuesOnThisKafka() {
        assertTrue(StructFill.direct(), "Connect's Struct no longer keeps its values where StructFill looks");
    }

    @Test
    void makesTheStructThatPutsMake() {
        Struct inner = new Struct(INNER).put("id", 7L).put("note", null);
        Object[] values = {new BigDecimal("12.34"), new java.util.Date(1_700_000_000_000L), List.of("a", "b"),
            Map.of("k", 1), StructFill.of(INNER, new Object[] {7L, null}), (byte) 1};
        Struct filled = StructFill.of(OUTER, values);
        Struct put = new Struct(OUTER).put("price", values[0]).put("at", values[1]).put("tags", values[2])
                .put("attrs", values[3]).put("row", inner).put("flag", (byte) 1);
        assertEquals(put, filled);
        assertEquals(put.hashCode(), filled.hashCode());
        assertEquals(put.toString(), filled.toString());
        filled.validate();
        values[0] = new BigDecimal("99.99");
        assertEquals(new BigDecimal("12.34"), filled.get("price"), "the Struct keeps its own copy of the values");
    }

    @Test
    void aNullInAnOptionalFieldStaysNull() {
        Struct filled = StructFill.of(INNER, new Object[] {1L, null});
        assertNull(filled.get("note"));
        filled.validate();
    }

    @Test
    void aNullInARequiredFieldIsConnectsOwnError() {
        DataException e = assertThrows(DataException.class, () -> StructFill.of(INNER, new Object[] {null, "x"}));
        DataException fromPut = assertThrows(DataException.class, () -> new Struct(INNER).put("id", null));
        assertEquals(fromPut.getMessage(), e.getMessage());
    }
}
