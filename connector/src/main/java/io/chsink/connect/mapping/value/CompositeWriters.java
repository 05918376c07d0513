package io.chsink.connect.mapping.value;

import io.chsink.connect.encoder.ArrayColumn;
import io.chsink.connect.encoder.NativeColumn;
import io.chsink.connect.encoder.TupleColumn;
import io.chsink.connect.mapping.StructValues;
import io.chsink.connect.mapping.ValueException;
import io.chsink.connect.schema.ClickHouseType;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * Writers of Array(T), Map(K, V) and Tuple (named or not) from Connect ARRAY/MAP/STRUCT values and schemaless
 * lists and maps. Elements go through their own type's writer; a null element is NULL when the element type is
 * Nullable, the empty value of an Array/Map/Variant element, and an error otherwise. An error names the element.
 */
final class CompositeWriters {
    private CompositeWriters() {
    }

    /** Writes one element value (possibly null) of type {@code t}; {@code where} names it in errors. */
    static void element(ClickHouseType t, ValueWriter w, Object v, NativeColumn c, String where) {
        if (v == null) {
            if (!Writers.writeNull(t, c)) {
                throw new ValueException(where + " is null but " + t.text() + " is not Nullable");
            }
            return;
        }
        try {
            w.write(v, c);
        } catch (ValueException e) {
            throw new ValueException(where + " (" + ValueException.kindOf(v) + "): " + e.getMessage());
        }
    }

    static ValueWriter array(ClickHouseType t) {
        ClickHouseType et = t.inner();
        ValueWriter ew = Writers.writerFor(et);
        return (v, c) -> {
            if (!(v instanceof Collection)) {
                throw new ValueException("cannot convert " + ValueException.kindOf(v) + " to " + t.text()
                        + " (expected an array)");
            }
            ArrayColumn a = (ArrayColumn) c;
            int i = 0;
            for (Object e : (Collection<?>) v) {
                element(et, ew, e, a.nested(), "array element " + i);
                i++;
            }
            a.endArray(i);
        };
    }

    static ValueWriter map(ClickHouseType t) {
        ClickHouseType kt = t.params().get(0);
        ClickHouseType vt = t.params().get(1);
        ValueWriter kw = Writers.writerFor(kt);
        ValueWriter vw = Writers.writerFor(vt);
        return (v, c) -> {
            ArrayColumn a = (ArrayColumn) c;
            TupleColumn entries = (TupleColumn) a.nested();
            int i = 0;
            if (v instanceof Map) {
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                    if (e.getKey() == null) {
                        throw new ValueException("map key " + i + " is null");
                    }
                    element(kt, kw, e.getKey(), entries.element(0), "map key " + i);
                    element(vt, vw, e.getValue(), entries.element(1), "value of map key " + i);
                    i++;
                }
            } else if (v instanceof Struct) { // a Struct's fields as the map's entries
                Struct s = (Struct) v;
                for (Field f : s.schema().fields()) {
                    element(kt, kw, f.name(), entries.element(0), "map key " + i);
                    element(vt, vw, StructValues.get(s, f), entries.element(1), "value of map key " + i);
                    i++;
                }
            } else {
                throw new ValueException("cannot convert " + ValueException.kindOf(v) + " to " + t.text()
                        + " (expected a map)");
            }
            a.endArray(i);
        };
    }

    static ValueWriter tuple(ClickHouseType t) {
        List<ClickHouseType> types = t.params();
        List<String> names = t.elementNames();
        ValueWriter[] ws = new ValueWriter[types.size()];
        for (int i = 0; i < ws.length; i++) {
            ws[i] = Writers.writerFor(types.get(i));
        }
        Set<String> nameSet = new HashSet<>(names);
        return (v, c) -> {
            TupleColumn tc = (TupleColumn) c;
            if (v instanceof List) {
                List<?> l = (List<?>) v;
                if (l.size() != ws.length) {
                    throw new ValueException("an array of " + l.size() + " values does not match " + t.text()
                            + " (" + ws.length + " elements)");
                }
                for (int i = 0; i < ws.length; i++) {
                    element(types.get(i), ws[i], l.get(i), tc.element(i), "tuple element " + (i + 1));
                }
            } else if (v instanceof Struct) {
                Struct s = (Struct) v;
                List<Field> fields = s.schema().fields();
                if (names.isEmpty()) {
                    if (fields.size() != ws.length) {
                        throw new ValueException("a Struct of " + fields.size() + " fields does not match "
                                + t.text() + " (" + ws.length + " elements)");
                    }
                    for (int i = 0; i < ws.length; i++) {
                        element(types.get(i), ws[i], StructValues.get(s, fields.get(i)), tc.element(i),
                                "tuple element " + (i + 1));
                    }
                    return;
                }
                for (Field f : fields) {
                    if (!nameSet.contains(f.name())) {
                        throw new ValueException("Struct field '" + f.name() + "' does not match any element of "
                                + t.text());
                    }
                }
                for (int i = 0; i < ws.length; i++) {
                    Field f = s.schema().field(names.get(i));
                    Object ev = f == null ? null : StructValues.get(s, f);
                    if (f == null && !Writers.acceptsNull(types.get(i))) {
                        throw new ValueException("Struct has no field '" + names.get(i) + "' of " + t.text());
                    }
                    element(types.get(i), ws[i], ev, tc.element(i), "tuple element '" + names.get(i) + "'");
                }
            } else if (v instanceof Map && !names.isEmpty()) {
                Map<?, ?> m = (Map<?, ?>) v;
                for (Object k : m.keySet()) {
                    if (!nameSet.contains(String.valueOf(k))) {
                        throw new ValueException("map key '" + k + "' does not match any element of " + t.text());
                    }
                }
                for (int i = 0; i < ws.length; i++) {
                    if (!m.containsKey(names.get(i)) && !Writers.acceptsNull(types.get(i))) {
                        throw new ValueException("map has no key '" + names.get(i) + "' of " + t.text());
                    }
                    element(types.get(i), ws[i], m.get(names.get(i)), tc.element(i),
                            "tuple element '" + names.get(i) + "'");
                }
            } else {
                throw new ValueException("a " + ValueException.kindOf(v) + " does not match " + t.text()
                        + " (expected " + (names.isEmpty() ? "an array or a Struct" : "a Struct, a map or an array")
                        + ")");
            }
        };
    }
}
