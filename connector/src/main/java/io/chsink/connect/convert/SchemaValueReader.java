package io.chsink.connect.convert;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.databind.node.TextNode;
import io.chsink.connect.mapping.StructFill;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;

/**
 * Reads a JSON value token by token into the Connect value JsonConverter makes of it for a schema: the same
 * null-and-default rule, the same logical types (chosen by schema name, as JsonConverter does), the same Jackson
 * narrowing of numbers, Struct / ArrayList / HashMap, BYTES through Jackson's own base64 decoding of a text node.
 * One difference: the strings "NaN", "Infinity" and "-Infinity" that JsonConverter writes for non-finite floats are
 * read as those floats in float32 and float64 fields (JsonConverter reads 0.0). Only the token shapes whose result is
 * certain are read here; any other (a string in a number field, an object in
 * an array field, a null for a required field without default, a repeated struct field, ...) throws
 * {@link FastPathMiss} so that JsonConverter converts the whole record and the result or error is its own.
 */
final class SchemaValueReader {
    private final boolean replaceNullWithDefault;

    SchemaValueReader(boolean replaceNullWithDefault) {
        this.replaceNullWithDefault = replaceNullWithDefault;
    }

    /** {@link #read(JsonParser, Schema, FieldNames)} with every struct field name read by name. */
    Object read(JsonParser p, Schema schema) throws IOException {
        return read(p, schema, FieldNames.NONE);
    }

    /**
     * The value starting at the parser's current token; leaves the parser on the value's last token. {@code names}:
     * the field names of the schema's structs ({@link FieldNames}), matched in place where they come in field order.
     */
    Object read(JsonParser p, Schema schema, FieldNames names) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            return absent(schema);
        }
        String name = schema.name();
        if (name != null) {
            switch (name) {
                case Decimal.LOGICAL_NAME:
                    return decimal(p, schema, t);
                case Date.LOGICAL_NAME:
                    return Date.toLogical(schema, int32Only(p, t));
                case Time.LOGICAL_NAME:
                    return Time.toLogical(schema, int32Only(p, t));
                case Timestamp.LOGICAL_NAME:
                    if (!JsonNumbers.isSmallInt(p)) {
                        throw FastPathMiss.INSTANCE;
                    }
                    return Timestamp.toLogical(schema, p.getLongValue());
                default:
                    break;
            }
        }
        switch (schema.type()) {
            case BOOLEAN:
                if (t == JsonToken.VALUE_TRUE) {
                    return Boolean.TRUE;
                }
                if (t == JsonToken.VALUE_FALSE) {
                    return Boolean.FALSE;
                }
                throw FastPathMiss.INSTANCE;
            case INT8:
                return (byte) JsonNumbers.intValue(p);
            case INT16:
                return (short) JsonNumbers.intValue(p);
            case INT32:
                return JsonNumbers.intValue(p);
            case INT64:
                return JsonNumbers.longValue(p);
            case FLOAT32:
                return t == JsonToken.VALUE_STRING ? (float) nonFinite(p) : JsonNumbers.node(p).floatValue();
            case FLOAT64:
                return t == JsonToken.VALUE_STRING ? nonFinite(p) : JsonNumbers.node(p).doubleValue();
            case STRING:
                return text(p, t);
            case BYTES:
                return base64(p, t);
            case ARRAY:
                return array(p, schema, t, names);
            case MAP:
                return schema.keySchema().type() == Schema.Type.STRING ? objectMap(p, schema, t, names)
                        : pairMap(p, schema, t, names);
            case STRUCT:
                return struct(p, schema, t, names);
            default:
                throw FastPathMiss.INSTANCE;
        }
    }

    /** A null or absent JSON value: the default (replace.null.with.default), null if optional, else JsonConverter's error. */
    private Object absent(Schema schema) {
        Object dflt = schema.defaultValue();
        if (dflt != null && replaceNullWithDefault) {
            return dflt;
        }
        if (schema.isOptional()) {
            return null;
        }
        throw FastPathMiss.INSTANCE;
    }

    private static Object decimal(JsonParser p, Schema schema, JsonToken t) throws IOException {
        if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
            return JsonNumbers.node(p).decimalValue();
        }
        return Decimal.toLogical(schema, base64(p, t));
    }

    /**
     * "NaN", "Infinity" or "-Infinity", as JsonConverter writes those floats ({@link FloatStrings}); any other string
     * goes to the fallback, which rejects it.
     */
    private static double nonFinite(JsonParser p) throws IOException {
        Double d = FloatStrings.parse(p.getText());
        if (d == null) {
            throw FastPathMiss.INSTANCE;
        }
        return d;
    }

    /** Date and Time take only integers JsonNode.isInt() accepts (an IntNode). */
    private static int int32Only(JsonParser p, JsonToken t) throws IOException {
        if (t != JsonToken.VALUE_NUMBER_INT || p.getNumberType() != JsonParser.NumberType.INT) {
            throw FastPathMiss.INSTANCE;
        }
        return p.getIntValue();
    }

    private static String text(JsonParser p, JsonToken t) throws IOException {
        if (t != JsonToken.VALUE_STRING) {
            throw FastPathMiss.INSTANCE;
        }
        return p.getText();
    }

    /** Jackson's TextNode.binaryValue(), as JsonConverter decodes BYTES (it trims, then uses the default variant). */
    private static byte[] base64(JsonParser p, JsonToken t) throws IOException {
        return new TextNode(text(p, t)).binaryValue();
    }

    private List<Object> array(JsonParser p, Schema schema, JsonToken t, FieldNames names) throws IOException {
        if (t != JsonToken.START_ARRAY) {
            throw FastPathMiss.INSTANCE;
        }
        Schema elements = schema.valueSchema();
        List<Object> list = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            list.add(read(p, elements, names));
        }
        return list;
    }

    /** A map with STRING keys, encoded as a JSON object (keys are taken as they are, as JsonConverter does). */
    private Map<Object, Object> objectMap(JsonParser p, Schema schema, JsonToken t, FieldNames names)
            throws IOException {
        if (t != JsonToken.START_OBJECT) {
            throw FastPathMiss.INSTANCE;
        }
        Schema values = schema.valueSchema();
        Map<Object, Object> map = new HashMap<>();
        String key;
        while ((key = p.nextFieldName()) != null) {
            p.nextToken();
            if (map.containsKey(key)) {
                throw FastPathMiss.INSTANCE;
            }
            map.put(key, read(p, values, names));
        }
        endObject(p);
        return map;
    }

    /** A map with other keys, encoded as a JSON array of [key, value] arrays. */
    private Map<Object, Object> pairMap(JsonParser p, Schema schema, JsonToken t, FieldNames names)
            throws IOException {
        if (t != JsonToken.START_ARRAY) {
            throw FastPathMiss.INSTANCE;
        }
        Schema keys = schema.keySchema();
        Schema values = schema.valueSchema();
        Map<Object, Object> map = new HashMap<>();
        while (p.nextToken() == JsonToken.START_ARRAY) {
            p.nextToken();
            Object key = read(p, keys, names);
            p.nextToken();
            Object value = read(p, values, names);
            if (p.nextToken() != JsonToken.END_ARRAY) {
                throw FastPathMiss.INSTANCE;
            }
            map.put(key, value);
        }
        if (p.currentToken() != JsonToken.END_ARRAY) {
            throw FastPathMiss.INSTANCE;
        }
        return map;
    }

    /**
     * A struct, its values read straight into the Struct's own array where {@link StructFill#ownValues} reaches it.
     * A field whose name comes where {@code names} expects it is matched without decoding the name.
     */
    private Struct struct(JsonParser p, Schema schema, JsonToken t, FieldNames names) throws IOException {
        if (t != JsonToken.START_OBJECT) {
            throw FastPathMiss.INSTANCE;
        }
        List<Field> fields = schema.fields();
        int n = fields.size();
        SerializableString[] expected = names.namesOf(schema);
        Struct struct = new Struct(schema);
        Object[] own = StructFill.ownValues(struct);
        Object[] values = own != null ? own : new Object[n];
        long seenBits = 0; // fields read, one bit each; an array for structs of more than 64 fields
        boolean[] seenMany = n > 64 ? new boolean[n] : null;
        int seen = 0;
        boolean nullInRequired = false; // never from read() or absent(); were it there, put() refuses it as before
        int next = 0; // writers put the fields in their schema's order: the next one is the likely one
        while (true) {
            Field field;
            if (expected != null && next < n) {
                if (p.nextFieldName(expected[next])) {
                    field = fields.get(next);
                } else if (p.currentToken() == JsonToken.FIELD_NAME) {
                    field = schema.field(p.currentName());
                } else {
                    break;
                }
            } else {
                String name = p.nextFieldName();
                if (name == null) {
                    break;
                }
                field = next < n && fields.get(next).name().equals(name) ? fields.get(next) : schema.field(name);
            }
            p.nextToken();
            if (field == null) {
                p.skipChildren(); // JsonConverter never looks at fields its schema does not have
                continue;
            }
            int i = field.index();
            next = i + 1;
            if (seenMany == null ? (seenBits & 1L << i) != 0 : seenMany[i]) {
                throw FastPathMiss.INSTANCE; // JsonConverter's tree keeps the last of repeated keys
            }
            if (seenMany == null) {
                seenBits |= 1L << i;
            } else {
                seenMany[i] = true;
            }
            seen++;
            Object v = read(p, field.schema(), names);
            values[i] = v;
            nullInRequired |= v == null && !field.schema().isOptional();
        }
        endObject(p);
        if (seen < n) {
            for (int i = 0; i < n; i++) {
                if (seenMany == null ? (seenBits & 1L << i) == 0 : !seenMany[i]) {
                    Schema s = fields.get(i).schema();
                    Object v = absent(s);
                    values[i] = v;
                    nullInRequired |= v == null && !s.isOptional();
                }
            }
        }
        // Every value was read by its field schema (or is its default, or a null the schema allows): what put()
        // would check holds already.
        if (own == null) {
            return StructFill.of(schema, values);
        }
        return nullInRequired ? StructFill.of(schema, own.clone()) : struct;
    }

    private static void endObject(JsonParser p) {
        if (p.currentToken() != JsonToken.END_OBJECT) {
            throw FastPathMiss.INSTANCE;
        }
    }
}
