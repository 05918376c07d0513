package io.chsink.connect.mapping;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * For one record shape, where each block column's value comes from: a Struct field resolved once per schema
 * (with the adapter its schema name calls for, see {@link SourceAdapters}), or a key of a schemaless map.
 * Columns without a source read as null, which the column's codec turns into NULL, the server-side default, or
 * an error.
 */
abstract class RecordPlan {
    /** The value for block column {@code i}, or null. */
    abstract Object get(Object recordValue, int i);

    /** The record's own value behind block column {@code i} (before a Nested projection), for error reports. */
    abstract Object source(Object recordValue, int i);

    /** The record field feeding block column {@code i}, or null when the record has none. */
    abstract String fieldName(int i);

    /** The first field of the record that no written column takes, or null. */
    abstract String unknownField(Object recordValue, Set<String> known);

    /**
     * @param scalar per column, whether it is a scalar column (schema-name adapters apply to these only; composite
     *     columns get the field's value as it is)
     */
    static RecordPlan forStruct(Schema schema, String[] columns, boolean[] scalar, Set<String> known) {
        Field[] fields = new Field[columns.length];
        @SuppressWarnings("unchecked")
        UnaryOperator<Object>[] adapters = new UnaryOperator[columns.length];
        NestedProjection[] nested = new NestedProjection[columns.length];
        Set<String> parents = new HashSet<>();
        for (int i = 0; i < columns.length; i++) {
            fields[i] = schema.field(columns[i]);
            adapters[i] = fields[i] == null || !scalar[i] ? null : SourceAdapters.forSchema(fields[i].schema());
            if (fields[i] == null) {
                nested[i] = NestedProjection.of(columns, i);
                if (nested[i] != null) {
                    fields[i] = schema.field(nested[i].parent());
                    if (fields[i] == null || fields[i].schema().type() != Schema.Type.ARRAY) {
                        fields[i] = null;
                        nested[i] = null;
                    } else {
                        parents.add(nested[i].parent());
                    }
                }
            }
        }
        String unknown = null;
        for (Field f : schema.fields()) {
            if (!known.contains(f.name()) && !parents.contains(f.name())) {
                unknown = f.name();
                break;
            }
        }
        return new StructPlan(fields, adapters, nested, unknown);
    }

    static RecordPlan forMap(String[] columns) {
        NestedProjection[] nested = new NestedProjection[columns.length];
        for (int i = 0; i < columns.length; i++) {
            nested[i] = NestedProjection.of(columns, i);
        }
        return new MapPlan(columns, nested);
    }

    private static final class StructPlan extends RecordPlan {
        private final Field[] fields;
        private final UnaryOperator<Object>[] adapters;
        private final NestedProjection[] nested;
        private final String unknown;

        StructPlan(Field[] fields, UnaryOperator<Object>[] adapters, NestedProjection[] nested, String unknown) {
            this.fields = fields;
            this.adapters = adapters;
            this.nested = nested;
            this.unknown = unknown;
        }

        @Override
        Object get(Object recordValue, int i) {
            Field f = fields[i];
            if (f == null) {
                return null;
            }
            Object v = StructValues.get((Struct) recordValue, f);
            if (nested[i] != null) {
                return nested[i].project(v);
            }
            UnaryOperator<Object> a = adapters[i];
            if (a == null || v == null) {
                return v;
            }
            try {
                return a.apply(v);
            } catch (ValueException e) {
                throw e;
            } catch (RuntimeException e) {
                throw new ValueException("value does not fit its schema " + f.schema().name());
            }
        }

        @Override
        Object source(Object recordValue, int i) {
            return fields[i] == null ? null : StructValues.get((Struct) recordValue, fields[i]);
        }

        @Override
        String fieldName(int i) {
            return fields[i] == null ? null : nested[i] == null ? fields[i].name() : nested[i].describe();
        }

        @Override
        String unknownField(Object recordValue, Set<String> known) {
            return unknown;
        }
    }

    private static final class MapPlan extends RecordPlan {
        private final String[] keys;
        private final NestedProjection[] nested;

        MapPlan(String[] keys, NestedProjection[] nested) {
            this.keys = keys;
            this.nested = nested;
        }

        @Override
        Object get(Object recordValue, int i) {
            Map<?, ?> m = (Map<?, ?>) recordValue;
            Object v = m.get(keys[i]);
            if (v == null && nested[i] != null && !m.containsKey(keys[i]) && m.get(nested[i].parent()) instanceof List) {
                return nested[i].project(m.get(nested[i].parent()));
            }
            return v;
        }

        @Override
        Object source(Object recordValue, int i) {
            Map<?, ?> m = (Map<?, ?>) recordValue;
            return m.containsKey(keys[i]) || nested[i] == null ? m.get(keys[i]) : m.get(nested[i].parent());
        }

        @Override
        String fieldName(int i) {
            return keys[i];
        }

        private boolean isNestedParent(String key) {
            for (NestedProjection p : nested) {
                if (p != null && p.parent().equals(key)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        String unknownField(Object recordValue, Set<String> known) {
            for (Object k : ((Map<?, ?>) recordValue).keySet()) {
                if (!known.contains(String.valueOf(k)) && !isNestedParent(String.valueOf(k))) {
                    return String.valueOf(k);
                }
            }
            return null;
        }
    }
}
