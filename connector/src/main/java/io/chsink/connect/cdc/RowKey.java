package io.chsink.connect.cdc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * A row's key as the sink compares it: the record key's field values as ClickHouse's text of them ({@code toString}
 * of the column), so that a key read from the table and one from a record are equal when they name the same row.
 * Only integer, string and boolean key fields (the keys Debezium writes for integer, text, uuid and boolean primary
 * keys) have such a form; other keys cannot be looked up.
 */
final class RowKey {
    final List<String> columns;
    final List<String> values;
    private final boolean[] quoted;
    /** The values' hash, made once: a key is hashed by every map of pending, recent and asked rows it meets. */
    private final int hash;

    private RowKey(List<String> columns, List<String> values, boolean[] quoted) {
        this.columns = columns;
        this.values = values;
        this.quoted = quoted;
        this.hash = values.hashCode();
    }

    /** A key read from the table: its columns' text, in {@code columns}' order. */
    static RowKey ofText(List<String> columns, List<String> values) {
        return new RowKey(columns, values, new boolean[values.size()]);
    }

    /**
     * The key of a record (a Struct or a map key), or null when it has no field or a field of a type without a text
     * form here; {@code why} (if not null) gets the reason then.
     */
    static RowKey of(Object key, StringBuilder why) {
        if (key instanceof Struct && ((Struct) key).schema().fields().size() == 1) {
            // The common key, one column: no lists to build and copy. Anything else takes the general path below,
            // which names the reason.
            Field f = ((Struct) key).schema().fields().get(0);
            Object v = io.chsink.connect.mapping.StructValues.get((Struct) key, f);
            String text = hasText(f.schema()) ? text(v) : null;
            if (text != null) {
                return new RowKey(List.of(f.name()), List.of(text), v instanceof String ? QUOTED : PLAIN);
            }
        }
        List<String> cols = new ArrayList<>();
        List<Object> vals = new ArrayList<>();
        if (key instanceof Struct) {
            Struct s = (Struct) key;
            for (Field f : s.schema().fields()) {
                if (!hasText(f.schema())) {
                    if (why != null) {
                        why.append("key field '").append(f.name()).append("' is ").append(describe(f.schema()))
                                .append(", which the connector cannot look up (integer, string and boolean keys can)");
                    }
                    return null;
                }
                cols.add(f.name());
                vals.add(io.chsink.connect.mapping.StructValues.get(s, f));
            }
        } else if (key instanceof Map) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) key).entrySet()) {
                cols.add(String.valueOf(e.getKey()));
                vals.add(e.getValue());
            }
        } else {
            if (why != null) {
                why.append(key == null ? "the record has no key" : "the record key is "
                        + key.getClass().getSimpleName() + ", not a Struct or a map");
            }
            return null;
        }
        if (cols.isEmpty()) {
            if (why != null) {
                why.append("the record key has no field");
            }
            return null;
        }
        List<String> text = new ArrayList<>(vals.size());
        boolean[] quoted = new boolean[vals.size()];
        for (int i = 0; i < vals.size(); i++) {
            Object v = vals.get(i);
            String t = text(v);
            if (t == null) {
                if (why != null) {
                    why.append("key field '").append(cols.get(i)).append("' is ")
                            .append(v == null ? "null" : v.getClass().getSimpleName())
                            .append(", which the connector cannot look up (integer, string and boolean keys can)");
                }
                return null;
            }
            text.add(t);
            quoted[i] = v instanceof String;
        }
        // Compact lists and, for a one-column key, shared flags: the cache holds a key per row (RowHeap.key).
        return new RowKey(List.copyOf(cols), List.copyOf(text), quoted.length != 1 ? quoted
                : quoted[0] ? QUOTED : PLAIN);
    }

    /** A key field of a type with a text form here: an integer, a string, a boolean. */
    private static boolean hasText(Schema s) {
        Schema.Type t = s.type();
        boolean integer = t == Schema.Type.INT8 || t == Schema.Type.INT16 || t == Schema.Type.INT32
                || t == Schema.Type.INT64;
        // Named integers are dates and times, whose text in ClickHouse is no number.
        return integer && s.name() == null || t == Schema.Type.STRING || t == Schema.Type.BOOLEAN;
    }

    /** A key value's text as ClickHouse's toString gives it (a string as itself), or null for any other value. */
    private static String text(Object v) {
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte
                || v instanceof Boolean) {
            return v.toString();
        }
        return v instanceof String ? (String) v : null;
    }

    private static final boolean[] QUOTED = {true};
    private static final boolean[] PLAIN = {false};

    /** The key as a SQL tuple element: {@code 5}, {@code 'a'} or {@code (5, 'a')}. */
    String literal() {
        StringBuilder b = new StringBuilder();
        if (values.size() > 1) {
            b.append('(');
        }
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                b.append(", ");
            }
            if (quoted[i]) {
                quote(values.get(i), b);
            } else {
                b.append(values.get(i));
            }
        }
        if (values.size() > 1) {
            b.append(')');
        }
        return b.toString();
    }

    static void quote(String s, StringBuilder b) {
        b.append('\'');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\'' || c == '\\') {
                b.append('\\');
            }
            b.append(c);
        }
        b.append('\'');
    }

    private static String describe(Schema s) {
        return s.name() != null ? s.type() + " " + s.name() : s.type().toString();
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        return o instanceof RowKey && ((RowKey) o).hash == hash && sameValues(((RowKey) o).values, values);
    }

    /**
     * {@code a.equals(b)} for the lists of key texts, by index: List's own equals walks one list with an
     * iterator and the other by calls that do not inline, and it runs for every key a map of rows is asked for.
     */
    private static boolean sameValues(List<String> a, List<String> b) {
        int n = a.size();
        if (b.size() != n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (!Objects.equals(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < columns.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(columns.get(i)).append('=').append(values.get(i));
        }
        return b.toString();
    }
}
