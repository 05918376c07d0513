package io.chsink.connect.evolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.junit.jupiter.api.Test;

/** DEFAULT literals of schema defaults: exact text the server casts to the column type. */
class DefaultLiteralsTest {
    @Test
    void scalars() {
        assertEquals("-7", DefaultLiterals.of(Schema.INT16_SCHEMA, (short) -7));
        assertEquals("1.5", DefaultLiterals.of(Schema.FLOAT64_SCHEMA, 1.5));
        assertEquals("0.1", DefaultLiterals.of(Schema.FLOAT32_SCHEMA, 0.1f), "the float's own shortest text");
        assertEquals("nan", DefaultLiterals.of(Schema.FLOAT64_SCHEMA, Double.NaN));
        assertEquals("-inf", DefaultLiterals.of(Schema.FLOAT64_SCHEMA, Double.NEGATIVE_INFINITY));
        assertEquals("true", DefaultLiterals.of(Schema.BOOLEAN_SCHEMA, true));
        assertEquals("'it\\'s \\\\ \\x0A'", DefaultLiterals.of(Schema.STRING_SCHEMA, "it's \\ \n"));
        assertEquals("'\\x00\\xFF'", DefaultLiterals.of(Schema.BYTES_SCHEMA, new byte[] {0, (byte) 0xff}));
        assertNull(DefaultLiterals.of(Schema.STRING_SCHEMA, null));
    }

    @Test
    void logicalTypesAreStringLiterals() {
        assertEquals("'12345678901234567890.25'", DefaultLiterals.of(Decimal.schema(2),
                new BigDecimal("12345678901234567890.25")), "never through a double");
        assertEquals("'2024-02-29'", DefaultLiterals.of(Date.SCHEMA, new java.util.Date(19782L * 86_400_000L)));
        assertEquals("'01:02:03.004'", DefaultLiterals.of(Time.SCHEMA, new java.util.Date(3_723_004L)));
        assertEquals("'2023-11-14 22:13:20.123'", DefaultLiterals.of(Timestamp.SCHEMA,
                new java.util.Date(1_700_000_000_123L)));
        assertNull(DefaultLiterals.of(new SchemaBuilder(Schema.Type.INT64).name("io.debezium.time.MicroTimestamp")
                .build(), 5L), "numbers meaning ticks get no literal");
    }

    @Test
    void arraysAndMaps() {
        assertEquals("[1, NULL, 3]", DefaultLiterals.of(SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).build(),
                java.util.Arrays.asList(1, null, 3)));
        assertEquals("map('a', 1)", DefaultLiterals.of(SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA)
                .build(), Map.of("a", 1L)));
        assertNull(DefaultLiterals.of(SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build(), List.of()));
    }
}
