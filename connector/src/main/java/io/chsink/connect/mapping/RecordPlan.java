package io.chsink.connect.mapping;

import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * For one record shape, where each block column's value comes from: a Struct field resolved once per schema,
 * or a key of a schemaless map. Columns without a source read as null, which the column's codec turns into
 * NULL, the server-side default, or an error.
 */
abstract class RecordPlan {
    /** The value for block column {@code i}, or null. */
    abstract Object get(Object recordValue, int i);

    /** The record field feeding block column {@code i}, or null when the record has none. */
    abstract String fieldName(int i);

    static RecordPlan forStruct(Schema schema, String[] columns) {
        Field[] fields = new Field[columns.length];
        for (int i = 0; i < columns.length; i++) {
            fields[i] = schema.field(columns[i]);
        }
        return new StructPlan(fields);
    }

    static RecordPlan forMap(String[] columns) {
        return new MapPlan(columns);
    }

    private static final class StructPlan extends RecordPlan {
        private final Field[] fields;

        StructPlan(Field[] fields) {
            this.fields = fields;
        }

        @Override
        Object get(Object recordValue, int i) {
            Field f = fields[i];
            return f == null ? null : ((Struct) recordValue).get(f);
        }

        @Override
        String fieldName(int i) {
            return fields[i] == null ? null : fields[i].name();
        }
    }

    private static final class MapPlan extends RecordPlan {
        private final String[] keys;

        MapPlan(String[] keys) {
            this.keys = keys;
        }

        @Override
        Object get(Object recordValue, int i) {
            return ((Map<?, ?>) recordValue).get(keys[i]);
        }

        @Override
        String fieldName(int i) {
            return keys[i];
        }
    }
}
