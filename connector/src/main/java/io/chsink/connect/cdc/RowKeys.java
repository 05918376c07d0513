package io.chsink.connect.cdc;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The row keys of a batch's records, each made once: a record's key is asked for when its batch's reads are planned,
 * when it becomes a row and when that row is appended, and the row keeps its record's key object. Keyed by that
 * object's identity; forgotten at the next batch.
 */
final class RowKeys {
    private final Map<Object, RowKey> made = new IdentityHashMap<>();

    /** The key of a record key object ({@link RowKey#of}), or null when it has none. */
    RowKey of(Object key) {
        if (key == null) {
            return null;
        }
        RowKey k = made.get(key);
        if (k == null && !made.containsKey(key)) {
            k = RowKey.of(key, null);
            made.put(key, k);
        }
        return k;
    }

    /** The key, or null with the reason in {@code why}. */
    RowKey of(Object key, StringBuilder why) {
        RowKey k = of(key);
        return k != null ? k : RowKey.of(key, why);
    }

    /** A new batch: the last one's keys go. */
    void newBatch() {
        made.clear();
    }
}
