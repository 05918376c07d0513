package io.chsink.connect.mapping;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.connect.data.Schema;

/**
 * What the task works out once per Connect schema (a record plan, a row shape, a list of fields), bounded. Looked up
 * by identity, it costs no deep hash of the schema: converters cache their schemas, so the records of a topic share
 * one instance. But a schema can be made anew for every record (a transform such as SetSchemaMetadata, or one whose
 * cache of 16 schemas thrashes over many topics), and a map of instances would then grow with the records, keeping
 * every schema alive. Past {@link #LIMIT} schemas the memo starts over: the work is done again, memory stays flat.
 */
public final class SchemaMemo<V> {
    /** Schemas kept at most: far more than a task's tables have versions. */
    public static final int LIMIT = 1_000;

    private final Map<Schema, V> map;

    private SchemaMemo(Map<Schema, V> map) {
        this.map = map;
    }

    /** Schemas compared by identity (the hot path). */
    public static <V> SchemaMemo<V> byIdentity() {
        return new SchemaMemo<>(new IdentityHashMap<>());
    }

    /** Schemas compared by equality (behind an identity memo: one entry per distinct schema). */
    public static <V> SchemaMemo<V> byEquality() {
        return new SchemaMemo<>(new HashMap<>());
    }

    public V get(Schema schema) {
        return map.get(schema);
    }

    public void put(Schema schema, V value) {
        if (map.size() >= LIMIT && !map.containsKey(schema)) {
            map.clear();
        }
        map.put(schema, value);
    }

    /** The schema's value, worked out by {@code compute} when not kept (a null result is not kept). */
    public V computeIfAbsent(Schema schema, Function<Schema, V> compute) {
        V v = map.get(schema);
        if (v == null) {
            v = compute.apply(schema);
            if (v != null) {
                put(schema, v);
            }
        }
        return v;
    }

    public void clear() {
        map.clear();
    }

    public int size() {
        return map.size();
    }
}
