package io.chsink.connect.convert;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;

/**
 * The field names of every struct schema inside one cached schema, in field order, as Jackson's
 * {@code nextFieldName(SerializableString)} takes them: it compares the expected name's encoded bytes with the input
 * in place instead of decoding the name and looking it up in its symbol table, about a third of reading an envelope's
 * payload before (Debezium writes the fields in their schema's order, so the expected name is nearly always the one
 * there). Made once per cached schema ({@link SchemaBytesCache}) and never changed after, so it is read without
 * locking.
 */
final class FieldNames {
    static final FieldNames NONE = new FieldNames(Map.of());

    private final Map<Schema, SerializableString[]> byStruct;

    private FieldNames(Map<Schema, SerializableString[]> byStruct) {
        this.byStruct = byStruct;
    }

    /** The names of {@code root}'s struct schemas and of those nested in it (fields, array elements, map keys and values). */
    static FieldNames of(Schema root) {
        Map<Schema, SerializableString[]> m = new IdentityHashMap<>();
        collect(root, m);
        return new FieldNames(m);
    }

    private static void collect(Schema s, Map<Schema, SerializableString[]> m) {
        if (s == null) {
            return;
        }
        switch (s.type()) {
            case STRUCT:
                if (m.containsKey(s)) {
                    return;
                }
                List<Field> fields = s.fields();
                SerializableString[] names = new SerializableString[fields.size()];
                m.put(s, names);
                for (int i = 0; i < names.length; i++) {
                    names[i] = new SerializedString(fields.get(i).name());
                    collect(fields.get(i).schema(), m);
                }
                return;
            case ARRAY:
                collect(s.valueSchema(), m);
                return;
            case MAP:
                collect(s.keySchema(), m);
                collect(s.valueSchema(), m);
                return;
            default:
                return;
        }
    }

    /** The struct schema's field names in field order, or null when it is none of this schema's (read them by name). */
    SerializableString[] namesOf(Schema struct) {
        return byStruct.get(struct);
    }
}
