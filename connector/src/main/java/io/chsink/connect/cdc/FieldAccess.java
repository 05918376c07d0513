package io.chsink.connect.cdc;

import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/** Reads a change event's parts by field name alike from a Struct (a converter with schemas) or a schemaless map. */
abstract class FieldAccess {
    /** Whether the value has the field (a Struct: its schema has it; a map: it has the key, even with a null). */
    abstract boolean has(String name);

    /** The field's value, or null when it is null or absent. */
    abstract Object get(String name);

    /** The Struct or map itself. */
    abstract Object value();

    /** A Struct or a map as FieldAccess; null for any other value. */
    static FieldAccess of(Object value) {
        if (value instanceof Struct) {
            return new OfStruct((Struct) value);
        }
        if (value instanceof Map) {
            return new OfMap((Map<?, ?>) value);
        }
        return null;
    }

    private static final class OfStruct extends FieldAccess {
        private final Struct struct;

        OfStruct(Struct struct) {
            this.struct = struct;
        }

        @Override
        boolean has(String name) {
            return struct.schema().field(name) != null;
        }

        @Override
        Object get(String name) {
            Field f = struct.schema().field(name);
            return f == null ? null : io.chsink.connect.mapping.StructValues.get(struct, f);
        }

        @Override
        Object value() {
            return struct;
        }
    }

    private static final class OfMap extends FieldAccess {
        private final Map<?, ?> map;

        OfMap(Map<?, ?> map) {
            this.map = map;
        }

        @Override
        boolean has(String name) {
            return map.containsKey(name);
        }

        @Override
        Object get(String name) {
            return map.get(name);
        }

        @Override
        Object value() {
            return map;
        }
    }
}
