package io.chsink.connect.convert;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * Corrects what JsonConverter reads for float32 and float64 fields, where it calls JsonNode.floatValue() /
 * doubleValue() on whatever node is there: 0.0 for the strings "NaN", "Infinity", "-Infinity" it writes itself, and
 * 0.0 for any other string, boolean, object or array. This walks the record's JSON payload along its schema next to
 * JsonConverter's value and puts NaN, +Infinity or -Infinity where one of the three strings is
 * ({@link FloatStrings}); any other non-number for a float is a DataException, never a zero. Used only for records
 * the fast path handed to JsonConverter, and only when their schema has a float somewhere.
 */
final class FallbackFloats {
    private final JsonConverter inner;
    /** Reads bytes into the tree JsonConverter's deserializer makes of them (the same Jackson settings). */
    private final ObjectMapper mapper = new ObjectMapper();

    FallbackFloats(JsonConverter inner) {
        this.inner = inner;
        mapper.enable(JsonReadFeature.ALLOW_LEADING_ZEROS_FOR_NUMBERS.mappedFeature());
        mapper.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
        mapper.setNodeFactory(new JsonNodeFactory(true));
    }

    /** {@code read} (JsonConverter's result for the envelope {@code value}) with its floats corrected. */
    SchemaAndValue repair(byte[] value, SchemaAndValue read) {
        Schema schema = read.schema();
        if (schema == null || !hasFloats(schema)) {
            return read;
        }
        JsonNode payload;
        try {
            payload = mapper.readTree(value).get("payload");
        } catch (IOException e) {
            throw new DataException("cannot re-read a record JsonConverter read", e);
        }
        Object fixed = repair(schema, payload, read.value());
        return fixed == read.value() ? read : new SchemaAndValue(schema, fixed);
    }

    static boolean hasFloats(Schema s) {
        switch (s.type()) {
            case FLOAT32:
            case FLOAT64:
                return true;
            case ARRAY:
                return hasFloats(s.valueSchema());
            case MAP:
                return hasFloats(s.keySchema()) || hasFloats(s.valueSchema());
            case STRUCT:
                for (Field f : s.fields()) {
                    if (hasFloats(f.schema())) {
                        return true;
                    }
                }
                return false;
            default:
                return false;
        }
    }

    /**
     * The corrected value of node {@code n} of schema {@code s}, {@code v} being what JsonConverter made of it: v
     * itself (corrected in place where it is a container) unless it is a float to replace. Walks the nodes exactly
     * as JsonConverter does (a missing or null node is a null or default it has already handled).
     */
    @SuppressWarnings("unchecked")
    private Object repair(Schema s, JsonNode n, Object v) {
        if (n == null || n.isNull() || v == null || !hasFloats(s)) {
            return v;
        }
        switch (s.type()) {
            case FLOAT32:
            case FLOAT64: {
                if (n.isNumber()) {
                    return v;
                }
                Double d = n.isTextual() ? FloatStrings.parse(n.textValue()) : null;
                if (d == null) {
                    throw new DataException("Invalid value for " + s.type() + " field: a JSON " + kind(n)
                            + ", not a number or one of the strings \"NaN\", \"Infinity\", \"-Infinity\"");
                }
                return s.type() == Schema.Type.FLOAT32 ? (Object) d.floatValue() : d;
            }
            case ARRAY: {
                List<Object> list = (List<Object>) v;
                int i = 0;
                for (JsonNode e : n) { // JsonConverter iterates any container node here, an object's values too
                    Object old = list.get(i);
                    Object fixed = repair(s.valueSchema(), e, old);
                    if (fixed != old) {
                        list.set(i, fixed);
                    }
                    i++;
                }
                return v;
            }
            case MAP:
                return s.keySchema().type() == Schema.Type.STRING ? objectMap(s, n, (Map<Object, Object>) v) : pairMap(s, n);
            case STRUCT: {
                Struct struct = (Struct) v;
                for (Field f : s.fields()) {
                    Object old = struct.get(f);
                    Object fixed = repair(f.schema(), n.get(f.name()), old);
                    if (fixed != old) {
                        struct.put(f, fixed);
                    }
                }
                return v;
            }
            default:
                return v;
        }
    }

    private Object objectMap(Schema s, JsonNode n, Map<Object, Object> map) {
        Iterator<Map.Entry<String, JsonNode>> entries = n.fields();
        while (entries.hasNext()) {
            Map.Entry<String, JsonNode> e = entries.next();
            Object old = map.get(e.getKey());
            Object fixed = repair(s.valueSchema(), e.getValue(), old);
            if (fixed != old) {
                map.put(e.getKey(), fixed);
            }
        }
        return map;
    }

    /**
     * A map encoded as [key, value] pairs: JsonConverter's map may have merged keys it read as 0.0, so it is built
     * again, each key and value converted on its own by JsonConverter and then corrected.
     */
    private Object pairMap(Schema s, JsonNode n) {
        Map<Object, Object> map = new HashMap<>();
        for (JsonNode pair : n) { // JsonConverter has checked: pairs of two
            JsonNode k = pair.get(0);
            JsonNode v = pair.get(1);
            map.put(repair(s.keySchema(), k, alone(s.keySchema(), k)), repair(s.valueSchema(), v, alone(s.valueSchema(), v)));
        }
        return map;
    }

    /** What JsonConverter makes of node {@code n} with schema {@code s} on its own. */
    private Object alone(Schema s, JsonNode n) {
        ObjectNode envelope = mapper.getNodeFactory().objectNode();
        envelope.set("schema", inner.asJsonSchema(s));
        envelope.set("payload", n);
        try {
            return inner.toConnectData("", mapper.writeValueAsBytes(envelope)).value();
        } catch (IOException e) {
            throw new DataException("cannot convert a map entry", e);
        }
    }

    private static String kind(JsonNode n) {
        return n.isTextual() ? "string" : n.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
    }
}
