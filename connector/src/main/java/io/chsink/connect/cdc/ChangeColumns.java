package io.chsink.connect.cdc;

import io.chsink.connect.mapping.SchemaMemo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Names the columns a change event's row takes from elsewhere than its image: the record key's fields, an upsert's
 * fields holding Debezium's placeholder (filled from the row's current value), and the columns the delete of a
 * primary-key change's old key carries. Each schema is looked at once. What the read planner asks of a batch and
 * what {@link ChangeRows} makes of a record agree because both ask here.
 */
final class ChangeColumns {
    private final Placeholders placeholders;
    private final SchemaMemo<List<String>> keyNames = SchemaMemo.byIdentity();
    private final SchemaMemo<Field[]> textFields = SchemaMemo.byIdentity();

    ChangeColumns(Placeholders placeholders) {
        this.placeholders = placeholders;
    }

    /** Debezium's placeholder for an unchanged TOAST value as configured (cdc.unavailable.placeholder). */
    String placeholderText() {
        return placeholders.text();
    }

    /** The names of the record key's fields (Debezium keys by primary key), or null for a key without fields. */
    List<String> keyFields(Object key) {
        if (key instanceof Struct) {
            Schema s = ((Struct) key).schema();
            List<String> names = keyNames.get(s);
            if (names == null) {
                names = new ArrayList<>();
                for (Field f : s.fields()) {
                    names.add(f.name());
                }
                keyNames.put(s, names);
            }
            return names.isEmpty() ? null : names;
        }
        if (key instanceof Map && !((Map<?, ?>) key).isEmpty()) {
            List<String> names = new ArrayList<>();
            for (Object k : ((Map<?, ?>) key).keySet()) {
                names.add(String.valueOf(k));
            }
            return names;
        }
        return null;
    }

    List<String> keyFieldsOrEmpty(Object key) {
        List<String> k = keyFields(key);
        return k == null ? List.of() : k;
    }

    /** The text and bytes fields of an upsert's image that hold Debezium's placeholder (looked at once). */
    List<String> placeholderFields(ChangeEvent e) {
        if (e.placeholders == null) {
            e.placeholders = findPlaceholders(e);
        }
        return e.placeholders;
    }

    private List<String> findPlaceholders(ChangeEvent e) {
        List<String> out = List.of();
        Object image = e.image.value();
        if (image instanceof Struct) {
            Struct s = (Struct) image;
            for (Field f : textFields(s.schema())) {
                if (placeholders.is(s.get(f))) {
                    out = out.isEmpty() ? new ArrayList<>(2) : out;
                    out.add(f.name());
                }
            }
        } else if (image instanceof Map) {
            for (Map.Entry<?, ?> en : ((Map<?, ?>) image).entrySet()) {
                if (placeholders.is(en.getValue())) {
                    out = out.isEmpty() ? new ArrayList<>(2) : out;
                    out.add(String.valueOf(en.getKey()));
                }
            }
        }
        return out;
    }

    /** The fields that can hold a placeholder ({@link Placeholders#canHold}), looked at once per schema. */
    private Field[] textFields(Schema schema) {
        Field[] fs = textFields.get(schema);
        if (fs == null) {
            List<Field> l = new ArrayList<>();
            for (Field f : schema.fields()) {
                if (Placeholders.canHold(f.schema())) {
                    l.add(f);
                }
            }
            fs = l.toArray(new Field[0]);
            textFields.put(schema, fs);
        }
        return fs;
    }

    /**
     * The columns the delete of a primary-key change's old key carries beyond its key and sorting columns: those that
     * can hold Debezium's placeholder for an unchanged TOAST value, from the row's current value, so that the create of
     * the new key ({@link KeyChanges}) finds them there. Other deletes carry none.
     */
    List<String> carried(SinkRecord record, TableLayout layout, Object image, List<String> keyFields,
            List<String> beyond) {
        if (layout == null || !KeyChange.isOldKeyDelete(record)) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        if (image instanceof Struct) {
            for (Field f : textFields(((Struct) image).schema())) {
                if (layout.types.containsKey(f.name()) && !keyFields.contains(f.name()) && !beyond.contains(f.name())) {
                    out.add(f.name());
                }
            }
        } else if (image instanceof Map) {
            for (Object k : ((Map<?, ?>) image).keySet()) {
                String c = String.valueOf(k);
                String type = layout.types.get(c);
                if (type != null && type.contains("String") && !keyFields.contains(c) && !beyond.contains(c)) {
                    out.add(c);
                }
            }
        }
        return out;
    }

    static List<String> union(List<String> a, List<String> b) {
        if (b.isEmpty()) {
            return a;
        }
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
