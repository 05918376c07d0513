package io.chsink.connect.mapping.value;

import io.chsink.connect.encoder.DynamicColumn;
import io.chsink.connect.encoder.JsonColumn;
import io.chsink.connect.encoder.NativeColumn;
import io.chsink.connect.mapping.StructValues;
import io.chsink.connect.mapping.ValueException;
import io.chsink.connect.mapping.text.JsonText;
import io.chsink.connect.schema.ClickHouseType;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * JSON (the native type, with typed paths), written natively: the object (a Struct, a map, or a string holding a
 * JSON object) is flattened into paths ({@code {"b":{"c":1}}} is path {@code b.c}); a typed path's value goes
 * through its declared type's writer (a value the type cannot hold is this record's error); every other path is a
 * Dynamic value typed by {@link DynamicWriter}'s rules, with lists of objects as Array(JSON). Null members and empty
 * objects hold no path, as in ClickHouse; a typed path the object lacks takes its type's default.
 */
final class JsonWriter implements ValueWriter {
    private final ClickHouseType type;
    private final Map<String, ClickHouseType> typed;
    private final Map<String, ValueWriter> writers = new LinkedHashMap<>();
    private final DynamicWriter dynamic = new DynamicWriter(true);

    JsonWriter(ClickHouseType type) {
        this.type = type;
        this.typed = type.typedPaths();
        for (Map.Entry<String, ClickHouseType> e : typed.entrySet()) {
            writers.put(e.getKey(), Writers.writerFor(e.getValue()));
        }
    }

    @Override
    public void write(Object v, NativeColumn c) {
        Object doc = v instanceof CharSequence ? JsonText.parse(v.toString()) : v;
        if (!(doc instanceof Map) && !(doc instanceof Struct)) {
            throw new ValueException("a " + ValueException.kindOf(doc) + " is not a JSON object for " + type.text());
        }
        Map<String, Object> paths = new LinkedHashMap<>();
        flatten(doc, "", paths);
        JsonColumn jc = (JsonColumn) c;
        for (Map.Entry<String, ValueWriter> e : writers.entrySet()) {
            String path = e.getKey();
            Object pv = paths.remove(path);
            NativeColumn col = jc.typedPath(path);
            if (pv == null) {
                col.putDefault();
            } else {
                CompositeWriters.element(typed.get(path), e.getValue(), pv, col, "JSON path '" + path + "'");
            }
        }
        for (Map.Entry<String, Object> e : paths.entrySet()) {
            DynamicColumn dc = jc.dynamicPath(e.getKey());
            try {
                dynamic.writeValue(e.getValue(), dc);
            } catch (ValueException x) {
                throw new ValueException("JSON path '" + e.getKey() + "' (" + ValueException.kindOf(e.getValue())
                        + "): " + x.getMessage());
            }
        }
        jc.endRow();
    }

    private void flatten(Object obj, String prefix, Map<String, Object> out) {
        if (obj instanceof Struct) {
            Struct s = (Struct) obj;
            for (Field f : s.schema().fields()) {
                member(prefix + f.name(), StructValues.get(s, f), out);
            }
        } else {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) obj).entrySet()) {
                if (!(e.getKey() instanceof CharSequence)) {
                    throw new ValueException("JSON object keys must be strings, not " + ValueException.kindOf(e.getKey()));
                }
                member(prefix + e.getKey(), e.getValue(), out);
            }
        }
    }

    private void member(String path, Object value, Map<String, Object> out) {
        if (value == null) {
            return;
        }
        boolean object = value instanceof Map
                || (value instanceof Struct && !VariantWriter.isUnion(value));
        if (object && !typed.containsKey(path)) {
            flatten(value, path + ".", out);
            return;
        }
        if (out.put(path, value) != null) {
            throw new ValueException("JSON path '" + path + "' appears twice in the object");
        }
    }
}
