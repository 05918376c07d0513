package io.chsink.connect.cdc;

import io.chsink.connect.mapping.SchemaMemo;
import io.chsink.connect.mapping.StructFill;
import io.chsink.connect.mapping.StructValues;
import io.chsink.connect.schema.TableId;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * The part of an inserted row that the task's cache of recent rows ({@link RecentRows}) keeps. Nothing but two kinds of
 * column is ever asked of a cached row: a TOAST fill asks for the columns holding Debezium's placeholder, a delete or
 * a tombstone for the sorting- and partition-key columns beyond the key, the delete of a primary-key change's old key
 * for every column that can hold a placeholder (it carries them for the new key's create). So the cache keeps those
 * keyed columns, and of the others: every column that can hold a placeholder ({@link Placeholders#canHold}: the only
 * columns placeholders are looked for in) until the table's first placeholder, and again for good from its first
 * key change; between the two, only the columns that have held one, so that the cache holds several times the rows
 * within {@code cdc.row.cache.bytes}. A column not kept (its first placeholder, or the table's first key change, came
 * after the row was cached) makes the cached row answer "unknown", and the table is read, as without a cache.
 *
 * <p>A Struct row becomes a Struct of the kept fields with their own schemas (a delete row takes a keyed column's type
 * from it); a map row becomes a map of the kept entries.
 */
final class CachedColumns {
    private final Function<TableId, TableLayout> layouts;
    private final Map<TableId, Set<String>> placeholders = new HashMap<>();
    /** Tables that had a primary-key change: their rows keep every column that can hold a placeholder. */
    private final Set<TableId> keyChanged = new java.util.HashSet<>();
    private final Map<TableId, SchemaMemo<Compact>> schemas = new HashMap<>();

    /** The kept fields' schema, and for each of its fields the row schema's field it is copied from. */
    private static final class Compact {
        final Schema schema;
        final Field[] from;

        Compact(Schema schema, Schema full) {
            this.schema = schema;
            List<Field> fields = schema.fields();
            this.from = new Field[fields.size()];
            for (int i = 0; i < from.length; i++) {
                from[i] = full.field(fields.get(i).name());
            }
        }
    }

    /** @param layouts the target table's layout (its keyed columns), or null while unknown */
    CachedColumns(Function<TableId, TableLayout> layouts) {
        this.layouts = layouts;
    }

    /** Columns of the table that held the placeholder in a change: kept from now on. */
    void placeholdersIn(TableId table, Collection<String> columns) {
        if (columns.isEmpty()) {
            return;
        }
        Set<String> kept = placeholders.computeIfAbsent(table, t -> new LinkedHashSet<>());
        if (kept.addAll(columns)) {
            schemas.remove(table); // the compact schemas lack the new column
        }
    }

    /**
     * The table had a primary-key change: the delete of an old key carries every column that can hold a placeholder,
     * so rows cached from now on keep them all.
     */
    void keyChangeIn(TableId table) {
        if (keyChanged.add(table)) {
            schemas.remove(table); // the compact schemas lack those columns
        }
    }

    /** The part of {@code row} (a Struct or a map, as the row source made it) that the cache keeps. */
    Object keep(TableId table, RowKey key, Object row) {
        Set<String> learned = keyChanged.contains(table) ? null : placeholders.get(table);
        if (row instanceof Struct) {
            Struct s = (Struct) row;
            Compact compact = schemas.computeIfAbsent(table, t -> SchemaMemo.byIdentity())
                    .computeIfAbsent(s.schema(), full -> new Compact(compactSchema(full, learned, keyed(table, key)),
                            full));
            Object[] values = new Object[compact.from.length];
            for (int i = 0; i < values.length; i++) {
                values[i] = StructValues.get(s, compact.from[i]); // the row's value under the same field schema
            }
            return StructFill.of(compact.schema, values);
        }
        if (row instanceof Map) {
            List<String> keyed = keyed(table, key);
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) row).entrySet()) {
                Object c = e.getKey();
                Object v = e.getValue();
                if (keyed.contains(c) || (learned != null ? learned.contains(c) : v == null || canHoldPlaceholder(v))) {
                    out.put((String) c, v);
                }
            }
            return out;
        }
        return row;
    }

    /** The sorting- and partition-key columns beyond the record key (read once per row schema for Struct rows). */
    private List<String> keyed(TableId table, RowKey key) {
        TableLayout layout = layouts.apply(table);
        return layout == null ? List.of() : layout.keyedBeyond(key.columns);
    }

    private static Schema compactSchema(Schema full, Set<String> learned, List<String> keyed) {
        SchemaBuilder b = SchemaBuilder.struct().optional();
        for (Field f : full.fields()) {
            String c = f.name();
            if (keyed.contains(c) || (learned != null ? learned.contains(c) : Placeholders.canHold(f.schema()))) {
                b.field(c, f.schema());
            }
        }
        return b.build();
    }

    /** A map row's value that can be a placeholder (every entry of a map image is looked at, numbers never match). */
    private static boolean canHoldPlaceholder(Object v) {
        return !(v instanceof Number || v instanceof Boolean || v instanceof java.util.Date);
    }

    /** Forgets the table's compact schemas (its columns were re-read: its keyed columns may differ). */
    void forget(TableId table) {
        schemas.remove(table);
    }
}
