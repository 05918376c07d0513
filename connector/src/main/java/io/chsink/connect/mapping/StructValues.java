package io.chsink.connect.mapping;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * Reads Struct fields as the record carries them: a null in an optional field stays null. Connect's
 * {@code Struct.get(Field)} returns the field schema's default instead, so a source's NULL (Debezium's event for a
 * column {@code DEFAULT 0} set to NULL) would land as the default: silent wrong data. A required field keeps
 * Connect's contract: it can hold no null ({@code Struct.put} refuses one), so an unset required field with a default
 * means that default. Where a converter already replaced the null (JsonConverter's
 * {@code replace.null.with.default=true}), the Struct holds the default and that is what is read.
 *
 * <p>The hot path is one {@code Struct.get(Field)} and a look at the field's schema; the by-name
 * {@code getWithoutDefault} runs only for an optional field with a default whose value reads as that very default.
 */
public final class StructValues {
    private StructValues() {
    }

    /** The value of {@code field} (a field of {@code struct}'s schema, or of one equal to it), null kept null. */
    public static Object get(Struct struct, Field field) {
        Object v = struct.get(field);
        if (v == null) {
            return null;
        }
        Schema s = field.schema();
        if (!s.isOptional()) {
            return v;
        }
        Object d = s.defaultValue();
        return d == null || v != d ? v : struct.getWithoutDefault(field.name());
    }

    /** The value of the field named {@code name}, null kept null; null too when the schema has no such field. */
    public static Object get(Struct struct, String name) {
        Field f = struct.schema().field(name);
        return f == null ? null : get(struct, f);
    }
}
