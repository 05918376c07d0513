package io.chsink.it.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalTypes;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * The Avro writer schemas and values Confluent's AvroConverter makes of Connect data (its AvroData with the default
 * settings: connect.meta.data=true, enhanced.avro.schema.support=false, ignore.default.for.nullables=false,
 * scrub.invalid.names=false), for the Connect types path V's change events use: int32, int64, string, boolean,
 * Decimal bytes, and structs, optional or not. The rules, from AvroData.fromConnectSchema / fromConnectData of
 * confluentinc/schema-registry (avro-data), written anew here since Confluent's converter cannot be had here:
 * <ul>
 *   <li>a struct is a record named by its Connect name split at the last dot (namespace, name), its fields in
 *       order; a non-optional schema met again is the same Avro schema (written once, then referred to by
 *       name);</li>
 *   <li>metadata on each non-union schema, in this order: {@code connect.doc}, {@code connect.version},
 *       {@code connect.parameters} (a JSON object of the Connect parameters), {@code connect.default},
 *       {@code connect.name};</li>
 *   <li>Decimal: bytes with {@code scale} and {@code precision} (connect.decimal.precision, else 64) properties and
 *       {@code logicalType: decimal}; the value is the unscaled integer's big-endian two's complement bytes;</li>
 *   <li>an optional schema is the union {@code ["null", T]} with field default null, or {@code [T, "null"]} with the
 *       field default of the schema's default when it has one (an optional struct's metadata stays on the record
 *       inside the union);</li>
 *   <li>a struct field's value is {@code Struct.get(field)}: a null in a field with a default writes the default
 *       (ignore.default.for.nullables=false).</li>
 * </ul>
 */
final class ConnectAvro {
    private static final String CONNECT_NAME = "connect.name";
    private static final String CONNECT_VERSION = "connect.version";
    private static final String CONNECT_DOC = "connect.doc";
    private static final String CONNECT_PARAMETERS = "connect.parameters";
    private static final String CONNECT_DEFAULT = "connect.default";
    private static final int DEFAULT_DECIMAL_PRECISION = 64;

    private final Map<Schema, org.apache.avro.Schema> known = new HashMap<>();

    /** The Avro schema of a top-level Connect schema (a record key or value). */
    org.apache.avro.Schema schema(Schema connect) {
        known.clear();
        return convert(connect);
    }

    private org.apache.avro.Schema convert(Schema s) {
        if (!s.isOptional()) {
            org.apache.avro.Schema cached = known.get(s);
            if (cached != null) {
                return cached;
            }
        }
        if (s.type() == Schema.Type.STRUCT && s.isOptional()) {
            org.apache.avro.Schema record = convert(nonOptional(s));
            return org.apache.avro.Schema.createUnion(org.apache.avro.Schema.create(org.apache.avro.Schema.Type.NULL),
                    record);
        }
        org.apache.avro.Schema base;
        switch (s.type()) {
            case INT32 -> base = org.apache.avro.Schema.create(org.apache.avro.Schema.Type.INT);
            case INT64 -> base = org.apache.avro.Schema.create(org.apache.avro.Schema.Type.LONG);
            case STRING -> base = org.apache.avro.Schema.create(org.apache.avro.Schema.Type.STRING);
            case BOOLEAN -> base = org.apache.avro.Schema.create(org.apache.avro.Schema.Type.BOOLEAN);
            case BYTES -> {
                base = org.apache.avro.Schema.create(org.apache.avro.Schema.Type.BYTES);
                if (Decimal.LOGICAL_NAME.equals(s.name())) {
                    base.addProp("scale", JsonNodeFactory.instance.numberNode(scale(s)));
                    base.addProp("precision", JsonNodeFactory.instance.numberNode(precision(s)));
                }
            }
            case STRUCT -> {
                String full = s.name();
                int dot = full.lastIndexOf('.');
                base = org.apache.avro.Schema.createRecord(full.substring(dot + 1), null,
                        dot < 0 ? null : full.substring(0, dot), false);
                List<org.apache.avro.Schema.Field> fields = new ArrayList<>();
                for (Field f : s.fields()) {
                    Object defaultValue = f.schema().defaultValue() != null ? f.schema().defaultValue()
                            : f.schema().isOptional() ? JsonProperties.NULL_VALUE : null;
                    fields.add(new org.apache.avro.Schema.Field(f.name(), convert(f.schema()), null, defaultValue));
                }
                base.setFields(fields);
            }
            default -> throw new IllegalArgumentException("not used by path V: " + s.type());
        }
        if (s.doc() != null) {
            base.addProp(CONNECT_DOC, s.doc());
        }
        if (s.version() != null) {
            base.addProp(CONNECT_VERSION, JsonNodeFactory.instance.numberNode(s.version()));
        }
        if (s.parameters() != null && !s.parameters().isEmpty()) {
            ObjectNode params = JsonNodeFactory.instance.objectNode();
            s.parameters().forEach(params::put);
            base.addProp(CONNECT_PARAMETERS, params);
        }
        if (s.defaultValue() != null) {
            base.addProp(CONNECT_DEFAULT, JsonNodeFactory.instance.textNode(String.valueOf(s.defaultValue())));
        }
        if (s.name() != null) {
            base.addProp(CONNECT_NAME, s.name());
        }
        if (Decimal.LOGICAL_NAME.equals(s.name())) {
            LogicalTypes.decimal(precision(s), scale(s)).addToSchema(base);
        }
        org.apache.avro.Schema result = base;
        if (s.isOptional()) {
            org.apache.avro.Schema nul = org.apache.avro.Schema.create(org.apache.avro.Schema.Type.NULL);
            result = s.defaultValue() != null ? org.apache.avro.Schema.createUnion(base, nul)
                    : org.apache.avro.Schema.createUnion(nul, base);
        } else {
            known.put(s, result);
        }
        return result;
    }

    private static int scale(Schema s) {
        return Integer.parseInt(s.parameters().get(Decimal.SCALE_FIELD));
    }

    private static int precision(Schema s) {
        String p = s.parameters().get("connect.decimal.precision");
        return p == null ? DEFAULT_DECIMAL_PRECISION : Integer.parseInt(p);
    }

    private static Schema nonOptional(Schema s) {
        SchemaBuilder b = SchemaBuilder.struct().name(s.name());
        if (s.version() != null) {
            b.version(s.version());
        }
        if (s.doc() != null) {
            b.doc(s.doc());
        }
        if (s.parameters() != null) {
            b.parameters(s.parameters());
        }
        for (Field f : s.fields()) {
            b.field(f.name(), f.schema());
        }
        return b.build();
    }

    /** A Connect Struct as the GenericRecord of {@code avro} (a record schema made by {@link #schema}). */
    static GenericRecord record(Struct value, org.apache.avro.Schema avro) {
        GenericData.Record out = new GenericData.Record(avro);
        for (Field f : value.schema().fields()) {
            out.put(f.index(), datum(f.schema(), value.get(f), avro.getFields().get(f.index()).schema()));
        }
        return out;
    }

    private static Object datum(Schema s, Object v, org.apache.avro.Schema avro) {
        if (v == null) {
            return null;
        }
        if (avro.getType() == org.apache.avro.Schema.Type.UNION) {
            for (org.apache.avro.Schema branch : avro.getTypes()) {
                if (branch.getType() != org.apache.avro.Schema.Type.NULL) {
                    avro = branch;
                }
            }
        }
        if (v instanceof Struct st) {
            return record(st, avro);
        }
        if (v instanceof BigDecimal d) {
            return ByteBuffer.wrap(Decimal.fromLogical(s, d));
        }
        return v;
    }
}
