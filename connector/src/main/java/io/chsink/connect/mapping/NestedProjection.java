package io.chsink.connect.mapping;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * A Nested column stored flattened ({@code flatten_nested=1}): the table has Array columns {@code n.a}, {@code n.b}
 * and the record one field {@code n}, a list of Structs (or maps) with fields {@code a}, {@code b}. Column
 * {@code n.a} takes the list of every element's {@code a}. Each element must have exactly the table's
 * sub-columns: a missing one, or one the table does not have, is an error (a shape mismatch, never data dropped).
 */
final class NestedProjection {
    private final String parent;
    private final String sub;
    private final Set<String> siblings;

    private NestedProjection(String parent, String sub, Set<String> siblings) {
        this.parent = parent;
        this.sub = sub;
        this.siblings = siblings;
    }

    /** The projection feeding column {@code i} when its name is {@code parent.sub}, or null. */
    static NestedProjection of(String[] columns, int i) {
        String name = columns[i];
        int dot = name.indexOf('.');
        if (dot <= 0 || dot == name.length() - 1) {
            return null;
        }
        String parent = name.substring(0, dot);
        Set<String> siblings = new HashSet<>();
        for (String c : columns) {
            if (c.startsWith(parent + ".")) {
                siblings.add(c.substring(dot + 1));
            }
        }
        return new NestedProjection(parent, name.substring(dot + 1), siblings);
    }

    String parent() {
        return parent;
    }

    String describe() {
        return parent + "[]." + sub;
    }

    /** The list of the elements' {@code sub} values, or null when the list is null. */
    Object project(Object list) {
        if (list == null) {
            return null;
        }
        if (!(list instanceof List)) {
            throw new ValueException("field '" + parent + "' is a " + ValueException.kindOf(list)
                    + ", not an array of Structs for Nested columns " + parent + ".*");
        }
        List<?> l = (List<?>) list;
        List<Object> out = new ArrayList<>(l.size());
        for (int j = 0; j < l.size(); j++) {
            Object e = l.get(j);
            if (e instanceof Struct) {
                Struct s = (Struct) e;
                for (Field f : s.schema().fields()) {
                    checkKnown(f.name(), j);
                }
                Field f = s.schema().field(sub);
                if (f == null) {
                    throw missing(j);
                }
                out.add(StructValues.get(s, f));
            } else if (e instanceof Map) {
                Map<?, ?> m = (Map<?, ?>) e;
                for (Object k : m.keySet()) {
                    checkKnown(String.valueOf(k), j);
                }
                if (!m.containsKey(sub)) {
                    throw missing(j);
                }
                out.add(m.get(sub));
            } else {
                throw new ValueException("element " + j + " of '" + parent + "' is a " + ValueException.kindOf(e)
                        + ", not a Struct matching Nested columns " + parent + ".*");
            }
        }
        return out;
    }

    private void checkKnown(String field, int j) {
        if (!siblings.contains(field)) {
            throw new ValueException("element " + j + " of '" + parent + "' has field '" + field
                    + "', which does not match any Nested column " + parent + ".*");
        }
    }

    private ValueException missing(int j) {
        return new ValueException("element " + j + " of '" + parent + "' has no field '" + sub
                + "' for Nested column " + parent + "." + sub);
    }
}
