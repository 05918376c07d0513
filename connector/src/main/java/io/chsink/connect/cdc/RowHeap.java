package io.chsink.connect.cdc;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * The heap a pending or cached row keeps alive, as {@code buffer.max.bytes} and {@code cdc.row.cache.bytes} count it:
 * object by object, for a 64-bit JVM with compressed references and class pointers (12-byte headers, 4-byte
 * references, 8-byte alignment: any heap under 32 GB). RowMemoryTest measures it against the heap after full
 * collections: the count must not be below it. Text counts one byte per character when every character is Latin-1,
 * else two (the JVM's compact strings).
 */
final class RowHeap {
    private RowHeap() {
    }

    /** An object's size from its header and fields' bytes, rounded up to 8. */
    static long align(long bytes) {
        return (bytes + 7) & ~7L;
    }

    /** An array of {@code n} references. */
    static long refArray(int n) {
        return align(16 + 4L * n);
    }

    /** A String: its object (24) and its byte array. */
    static long text(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            if (s.charAt(i) > 0xFF) {
                return 24 + align(16 + 2L * n);
            }
        }
        return 24 + align(16 + n);
    }

    /** An immutable list of {@code n} elements as {@code List.copyOf} makes it (the elements not counted). */
    static long list(int n) {
        return n <= 2 ? 24 : 16 + refArray(n);
    }

    /** A key: the RowKey (32), its column and value lists, the value texts and its quoting flags. */
    static long key(RowKey k) {
        long n = 32 + list(k.columns.size()) + list(k.values.size());
        for (String v : k.values) {
            n += text(v);
        }
        return n + (k.values.size() == 1 ? 0 : align(16 + k.values.size()));
    }

    /** A row as the row sources make it: a Struct (24 and its value array) or a map (a LinkedHashMap). */
    static long row(Object row) {
        if (row instanceof Struct) {
            Struct s = (Struct) row;
            List<Field> fields = s.schema().fields();
            long n = 24 + refArray(fields.size());
            for (Field f : fields) {
                n += value(s.get(f));
            }
            return n;
        }
        if (row instanceof Map) {
            return map((Map<?, ?>) row);
        }
        return value(row);
    }

    /** A LinkedHashMap: the map (56), its table, an entry (40) per key, keys and values. */
    private static long map(Map<?, ?> m) {
        int capacity = 16;
        while (capacity * 3 / 4 < m.size()) {
            capacity *= 2;
        }
        long n = 56 + refArray(capacity);
        for (Map.Entry<?, ?> e : m.entrySet()) {
            n += 40 + value(e.getKey()) + value(e.getValue());
        }
        return n;
    }

    private static long value(Object v) {
        if (v == null || v instanceof Boolean) {
            return 0; // Boolean.TRUE and FALSE are shared
        }
        if (v instanceof String) {
            return text((String) v);
        }
        if (v instanceof byte[]) {
            return align(16 + ((byte[]) v).length);
        }
        if (v instanceof ByteBuffer) {
            return 48 + align(16 + ((ByteBuffer) v).capacity());
        }
        if (v instanceof BigDecimal) {
            BigInteger u = ((BigDecimal) v).unscaledValue();
            return 40 + 40 + align(16 + 4L * (u.bitLength() / 32 + 1));
        }
        if (v instanceof Struct || v instanceof Map) {
            return row(v);
        }
        if (v instanceof Collection) {
            Collection<?> c = (Collection<?>) v;
            long n = 24 + refArray(c.size());
            for (Object o : c) {
                n += value(o);
            }
            return n;
        }
        return 24; // a boxed number, a Date: 16 or 24
    }
}
