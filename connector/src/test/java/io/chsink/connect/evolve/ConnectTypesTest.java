package io.chsink.connect.evolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.junit.jupiter.api.Test;

/**
 * The documented Connect -> ClickHouse mapping (docs/tables.md, "Column types of created and added columns"),
 * row by row.
 */
class ConnectTypesTest {
    private final ConnectTypes types = new ConnectTypes(ConnectTypes.StructAs.TUPLE);

    private static Schema named(Schema.Type type, String name) {
        return new SchemaBuilder(type).name(name).build();
    }

    @Test
    void primitives() {
        assertEquals("Int8", types.columnType(Schema.INT8_SCHEMA));
        assertEquals("Int16", types.columnType(Schema.INT16_SCHEMA));
        assertEquals("Int32", types.columnType(Schema.INT32_SCHEMA));
        assertEquals("Int64", types.columnType(Schema.INT64_SCHEMA));
        assertEquals("Float32", types.columnType(Schema.FLOAT32_SCHEMA));
        assertEquals("Float64", types.columnType(Schema.FLOAT64_SCHEMA));
        assertEquals("Bool", types.columnType(Schema.BOOLEAN_SCHEMA));
        assertEquals("String", types.columnType(Schema.STRING_SCHEMA));
        assertEquals("String", types.columnType(Schema.BYTES_SCHEMA));
    }

    @Test
    void optionalIsNullableWhereClickHouseAllowsIt() {
        assertEquals("Nullable(Int64)", types.columnType(Schema.OPTIONAL_INT64_SCHEMA));
        assertEquals("Nullable(String)", types.columnType(Schema.OPTIONAL_STRING_SCHEMA));
        assertEquals("Nullable(Decimal(64, 2))", types.columnType(Decimal.builder(2).optional().build()));
        assertEquals("Array(Nullable(Int32))",
                types.columnType(SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).optional().build()));
        assertEquals("Map(String, Nullable(Float64))", types.columnType(SchemaBuilder.map(
                Schema.OPTIONAL_STRING_SCHEMA, Schema.OPTIONAL_FLOAT64_SCHEMA).optional().build()));
        assertEquals("Tuple(`x` Int32, `y` Nullable(String))", types.columnType(SchemaBuilder.struct()
                .field("x", Schema.INT32_SCHEMA).field("y", Schema.OPTIONAL_STRING_SCHEMA).optional().build()));
    }

    @Test
    void logicalTypes() {
        // Without connect.decimal.precision: 64, as Confluent's AvroData reads its absence
        // (AvroData.CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT; toConnectSchema drops a precision of 64).
        assertEquals("Decimal(64, 4)", types.columnType(Decimal.schema(4)), "default precision");
        assertEquals("Decimal(76, 2)", types.columnType(Decimal.builder(2)
                .parameter(ConnectTypes.DECIMAL_PRECISION, "100").build()), "at most 76: longer values are bad records");
        ConnectTypes.Unmappable negative = assertThrows(ConnectTypes.Unmappable.class,
                () -> types.columnType(Decimal.schema(-2)));
        assertEquals("a Decimal of scale -2 has no ClickHouse Decimal (scale 0 to 76)", negative.getMessage());
        assertThrows(ConnectTypes.Unmappable.class, () -> types.columnType(Decimal.schema(77)));
        assertEquals("Decimal(12, 4)", types.columnType(Decimal.builder(4)
                .parameter(ConnectTypes.DECIMAL_PRECISION, "12").build()), "connect.decimal.precision");
        assertEquals("Decimal(50, 50)", types.columnType(Decimal.builder(50)
                .parameter(ConnectTypes.DECIMAL_PRECISION, "10").build()), "precision at least the scale");
        assertEquals("Date32", types.columnType(Date.SCHEMA));
        assertEquals("Time64(3)", types.columnType(Time.SCHEMA));
        assertEquals("DateTime64(3, 'UTC')", types.columnType(Timestamp.SCHEMA));
        assertEquals("Nullable(DateTime64(3, 'UTC'))", types.columnType(Timestamp.builder().optional().build()));
    }

    @Test
    void debeziumTypesByTheirPrecision() {
        assertEquals("Date32", types.columnType(named(Schema.Type.INT32, "io.debezium.time.Date")));
        assertEquals("DateTime64(3, 'UTC')", types.columnType(named(Schema.Type.INT64, "io.debezium.time.Timestamp")));
        assertEquals("DateTime64(6, 'UTC')",
                types.columnType(named(Schema.Type.INT64, "io.debezium.time.MicroTimestamp")));
        assertEquals("DateTime64(9, 'UTC')",
                types.columnType(named(Schema.Type.INT64, "io.debezium.time.NanoTimestamp")));
        assertEquals("DateTime64(9, 'UTC')",
                types.columnType(named(Schema.Type.STRING, "io.debezium.time.ZonedTimestamp")));
        assertEquals("Time64(3)", types.columnType(named(Schema.Type.INT32, "io.debezium.time.Time")));
        assertEquals("Time64(6)", types.columnType(named(Schema.Type.INT64, "io.debezium.time.MicroTime")));
        assertEquals("Time64(9)", types.columnType(named(Schema.Type.INT64, "io.debezium.time.NanoTime")));
        assertEquals("UUID", types.columnType(named(Schema.Type.STRING, "io.debezium.data.Uuid")));
        assertEquals("String", types.columnType(SchemaBuilder.struct().name("io.debezium.data.VariableScaleDecimal")
                .field("scale", Schema.INT32_SCHEMA).field("value", Schema.BYTES_SCHEMA).build()));
        assertEquals("Int32", types.columnType(named(Schema.Type.INT32, "io.debezium.time.Year")), "others by type");
    }

    @Test
    void unionsAreVariantsAndNeverNullable() {
        Schema union = SchemaBuilder.struct().name("io.confluent.connect.avro.Union")
                .field("int", Schema.OPTIONAL_INT32_SCHEMA).field("string", Schema.OPTIONAL_STRING_SCHEMA)
                .optional().build();
        assertEquals("Variant(Int32, String)", types.columnType(union));
        Schema oneof = SchemaBuilder.struct().name("io.confluent.connect.protobuf.Union.choice")
                .field("a", Schema.OPTIONAL_INT64_SCHEMA).field("b", Schema.OPTIONAL_BOOLEAN_SCHEMA).build();
        assertEquals("Variant(Int64, Bool)", types.columnType(oneof));
        Schema same = SchemaBuilder.struct().name("io.confluent.connect.avro.Union")
                .field("string", Schema.OPTIONAL_STRING_SCHEMA).field("bytes", Schema.OPTIONAL_BYTES_SCHEMA)
                .optional().build();
        assertEquals("Nullable(String)", types.columnType(same), "one distinct type is that type");
    }

    @Test
    void structsAsJsonWhereConfigured() {
        Schema s = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).optional().build();
        assertEquals("JSON", new ConnectTypes(ConnectTypes.StructAs.JSON).columnType(s));
        assertEquals("Array(JSON)", new ConnectTypes(ConnectTypes.StructAs.JSON)
                .columnType(SchemaBuilder.array(s).build()));
    }

    @Test
    void nestingAndQuotedElementNames() {
        Schema inner = SchemaBuilder.struct().field("we`ird", Schema.INT16_SCHEMA).build();
        assertEquals("Array(Tuple(`we\\`ird` Int16))", types.columnType(SchemaBuilder.array(inner).build()));
        assertEquals("Map(Int64, Array(String))", types.columnType(SchemaBuilder.map(Schema.OPTIONAL_INT64_SCHEMA,
                SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build()).build()), "map keys never Nullable");
    }

    @Test
    void unmappableSchemasSayWhy() {
        ConnectTypes.Unmappable e = assertThrows(ConnectTypes.Unmappable.class,
                () -> types.columnType(SchemaBuilder.struct().build()));
        assertTrue(e.getMessage().contains("without fields"), e.getMessage());
    }
}
