package io.chsink.connect.convert;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;

/**
 * Connect schemas by the raw bytes of an envelope's "schema" value: the last schema seen on each topic is compared
 * first (one Arrays.equals in the common case of one schema per topic), then a bounded map keyed by a hash of the
 * bytes, each entry verified byte for byte. The same bytes give the same Schema instance for as long as they stay
 * cached, so plans cached per schema by identity stay hit.
 */
final class SchemaBytesCache {
    /**
     * One cached schema: a copy of its bytes, their hash, the schema JsonConverter made of them, and whether that is
     * a Debezium change event's ({@link ChangeEventSchemas}) and its structs' field names ({@link FieldNames}), both
     * worked out once here.
     */
    static final class Cached {
        final byte[] bytes;
        final int hash;
        final Schema schema;
        final boolean changeEvent;
        final FieldNames names;
        Cached next;

        Cached(byte[] bytes, int hash, Schema schema) {
            this.bytes = bytes;
            this.hash = hash;
            this.schema = schema;
            this.changeEvent = ChangeEventSchemas.isEnvelope(schema);
            this.names = FieldNames.of(schema);
        }

        boolean matches(byte[] src, int from, int to) {
            return Arrays.equals(bytes, 0, bytes.length, src, from, to);
        }
    }

    private final Map<String, Cached> lastByTopic = new HashMap<>();
    private final LinkedHashMap<Integer, Cached> byHash;
    private int entries;

    SchemaBytesCache(int maxEntries) {
        int bound = Math.max(1, maxEntries);
        byHash = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Integer, Cached> eldest) {
                if (entries <= bound) {
                    return false;
                }
                for (Cached e = eldest.getValue(); e != null; e = e.next) {
                    entries--;
                }
                return true;
            }
        };
    }

    /** The topic instance {@link #last} was last asked for, and its answer. */
    private String lastTopic;
    private Cached lastOfTopic;

    /**
     * The schema last seen on this topic (with its bytes), or null. Consecutive records of one fetch share their
     * topic's String instance: it is compared by identity first, so its hash is not computed again per record (a
     * consumer of many partitions gets a new instance per fetched partition).
     */
    synchronized Cached last(String topic) {
        if (topic != lastTopic) {
            lastTopic = topic;
            lastOfTopic = lastByTopic.get(topic);
        }
        return lastOfTopic;
    }

    /** The cached schema for src[from, to) on this topic, or null. */
    synchronized Cached get(String topic, byte[] src, int from, int to) {
        Cached last = lastByTopic.get(topic);
        if (last != null && last.matches(src, from, to)) {
            return last;
        }
        int hash = hash(src, from, to);
        for (Cached e = byHash.get(hash); e != null; e = e.next) {
            if (e.hash == hash && e.matches(src, from, to)) {
                remember(topic, e);
                return e;
            }
        }
        return null;
    }

    /** Caches the schema made of src[from, to) and returns the entry to use (an earlier one for the same bytes). */
    synchronized Cached put(String topic, byte[] src, int from, int to, Schema schema) {
        int hash = hash(src, from, to);
        Cached head = byHash.get(hash);
        for (Cached e = head; e != null; e = e.next) {
            if (e.matches(src, from, to)) {
                remember(topic, e);
                return e;
            }
        }
        Cached added = new Cached(Arrays.copyOfRange(src, from, to), hash, schema);
        added.next = head;
        entries++;
        byHash.put(hash, added);
        remember(topic, added);
        return added;
    }

    private void remember(String topic, Cached c) {
        lastByTopic.put(topic, c);
        lastTopic = topic;
        lastOfTopic = c;
    }

    synchronized int size() {
        return entries;
    }

    private static int hash(byte[] src, int from, int to) {
        int h = 1;
        for (int i = from; i < to; i++) {
            h = 31 * h + src[i];
        }
        return h;
    }
}
