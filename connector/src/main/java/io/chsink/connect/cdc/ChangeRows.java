package io.chsink.connect.cdc;

import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.mapping.RecordMappingException;
import io.chsink.connect.mapping.StructValues;
import io.chsink.connect.offset.Origin;
import io.chsink.connect.schema.TableId;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides the row a Debezium change event becomes (the rules are listed on {@link DebeziumRows}), against the current
 * rows it is handed ({@link CurrentRowLookup}): it holds no client and nothing of a batch, only the table layouts it
 * reads and which tables' sorting keys it checked. {@link #row} is the one place that dispatches on what the change
 * event ({@link ChangeEvent}) does.
 */
final class ChangeRows {
    /** DebeziumRows' logger: the warnings are logged as before the row source was split. */
    private static final Logger LOG = LoggerFactory.getLogger(DebeziumRows.class);

    private final RowShapes shapes;
    private final ChangeColumns changeColumns;
    private final Function<TableId, TableLayout> layouts;
    private final String tombstones;
    private final boolean failOnTruncate;
    private final Function<SinkRecord, String> describe;
    private final Set<TableId> keyChecked = new HashSet<>();
    private final RowKeys keys;

    /**
     * @param layouts the target table's layout, or null while unknown
     * @param tombstones tombstones.behavior: fail, skip or delete
     * @param failOnTruncate whether a truncate event is a bad record (cdc.truncate.behavior=fail) or skipped
     * @param describe names a record in the messages of bad records
     * @param keys the batch's record keys
     */
    ChangeRows(RowShapes shapes, ChangeColumns changeColumns, Function<TableId, TableLayout> layouts,
            String tombstones, boolean failOnTruncate, Function<SinkRecord, String> describe, RowKeys keys) {
        this.keys = keys;
        this.shapes = shapes;
        this.changeColumns = changeColumns;
        this.layouts = layouts;
        this.tombstones = tombstones;
        this.failOnTruncate = failOnTruncate;
        this.describe = describe;
    }

    /**
     * The record whose value is the row {@code record} becomes (same topic, partition and offset), or null when it
     * writes none. Throws RecordMappingException for a bad record, {@link RowSource.NotYet} for the create of a
     * primary-key change that waits for its old key's delete.
     *
     * @param e the record's change event; null for a tombstone (a record with a null value)
     */
    SinkRecord row(SinkRecord record, TableId table, ChangeEvent e, CurrentRowLookup lookup) {
        if (record.value() == null) {
            return tombstone(record, table, lookup);
        }
        if (e.kind == ChangeEvent.Kind.TRUNCATE) {
            return truncate(record, table);
        }
        checkKeyIsSorted(record, table);
        Object image = e.image.value();
        if (e.kind == ChangeEvent.Kind.UPSERT) {
            return upsert(record, table, e, image, lookup);
        }
        return delete(record, table, e, image, lookup);
    }

    private SinkRecord upsert(SinkRecord record, TableId table, ChangeEvent e, Object image,
            CurrentRowLookup lookup) {
        List<String> toast = changeColumns.placeholderFields(e);
        lookup.placeholdersIn(table, toast);
        if (image instanceof Struct) {
            Struct row = shapes.row((Struct) image, e.flattened, e.version, false);
            if (!toast.isEmpty()) {
                CurrentRow current = currentForToast(record, table, toast, e.version, lookup);
                for (String c : toast) {
                    Field f = row.schema().field(c);
                    row.put(f, fill(current, c, f.schema(), record, table));
                }
            }
            return withValue(record, row.schema(), row);
        }
        Map<String, Object> row = shapes.row((Map<?, ?>) image, e.flattened, e.version, false, null, null);
        if (!toast.isEmpty()) {
            CurrentRow current = currentForToast(record, table, toast, e.version, lookup);
            TableLayout layout = layouts.apply(table);
            for (String c : toast) {
                Object v = current.get(c);
                String type = layout == null ? null : layout.types.get(c);
                if (current.fromTable && v != null && !(v instanceof byte[])) {
                    // Without schemas there is no field type to read an array, map or other text back into.
                    throw new RecordMappingException(describe.apply(record) + ": column '" + c + "' holds Debezium's "
                            + "placeholder for an unchanged TOAST value, and without a value schema the connector "
                            + "reads back only String columns from " + table.quoted() + " (this one is " + type
                            + "). Set REPLICA IDENTITY FULL on the source table, or use a converter with schemas");
                }
                row.put(c, current.fromTable ? ClickHouseCurrentRows.text(v) : v);
            }
        }
        return withValue(record, null, row);
    }

    private CurrentRow currentForToast(SinkRecord record, TableId table, List<String> toast, RowVersion version,
            CurrentRowLookup lookup) {
        if (lookup.resting(record)) {
            throw new RowSource.NotYet("the create of a primary-key change waits for its old key's delete");
        }
        StringBuilder why = new StringBuilder();
        RowKey key = keys.of(record.key(), why);
        CurrentRow current = key == null ? null : lookup.find(record, table, key, toast);
        if ((current == null || current.deleted) && key != null) {
            Header h = KeyChange.oldKeyHeader(record);
            if (h != null) {
                return lookup.oldKeyRow(record, table, key, h, version, toast);
            }
        }
        if (current == null || current.deleted) {
            throw new RecordMappingException(describe.apply(record) + ": column(s) " + toast + " hold Debezium's "
                    + "placeholder for an unchanged TOAST value ('" + changeColumns.placeholderText() + "', "
                    + SinkConfig.CDC_UNAVAILABLE_PLACEHOLDER + "), and the row's current value is unknown: "
                    + (key == null ? why : "key " + key + (current == null ? " is in neither the table nor a pending "
                            + "block (never snapshotted, or the create of a primary-key change)"
                            : " is deleted there")) + ". Set REPLICA IDENTITY FULL on the source table, or "
                    + "re-snapshot it");
        }
        for (String c : toast) {
            if (!current.has(c)) {
                throw new RecordMappingException(describe.apply(record) + ": column '" + c + "' holds Debezium's "
                        + "placeholder for an unchanged TOAST value, and the current row of key " + key
                        + " has no such column");
            }
        }
        return current;
    }

    /**
     * The current value of column {@code c} as a value of field schema {@code s}: a pending row's own value; from the
     * table, text and bytes columns, and arrays of numbers, booleans and text (read as JSON). Anything else is a bad
     * record: a value the connector cannot read back is never guessed.
     */
    private Object fill(CurrentRow current, String c, Schema s, SinkRecord record, TableId table) {
        Object v = current.get(c);
        if (v == null || !current.fromTable) {
            return v;
        }
        if (s.type() == Schema.Type.STRING) {
            return ClickHouseCurrentRows.text(v);
        }
        if (s.type() == Schema.Type.BYTES) {
            return v instanceof byte[] ? v : ((String) v).getBytes(StandardCharsets.UTF_8);
        }
        if (s.type() == Schema.Type.ARRAY && v instanceof String) {
            try {
                return ClickHouseCurrentRows.array((String) v, s.valueSchema());
            } catch (IllegalArgumentException e) {
                throw new RecordMappingException(describe.apply(record) + ": column '" + c + "' holds Debezium's "
                        + "placeholder for an unchanged TOAST value, and its current value in " + table.quoted()
                        + " cannot be read back as the field's " + describe(s) + ": " + e.getMessage() + ". Set "
                        + "REPLICA IDENTITY FULL on the source table");
            }
        }
        throw new RecordMappingException(describe.apply(record) + ": column '" + c + "' holds Debezium's "
                + "placeholder for an unchanged TOAST value, and the connector cannot read its current value "
                + "back from " + table.quoted() + " as the field's " + describe(s) + " (text, bytes and arrays of "
                + "scalars it can). Set REPLICA IDENTITY FULL on the source table");
    }

    private static String describe(Schema s) {
        return s.type() + (s.name() == null ? "" : " " + s.name())
                + (s.type() == Schema.Type.ARRAY ? " of " + describe(s.valueSchema()) : "");
    }

    private SinkRecord delete(SinkRecord record, TableId table, ChangeEvent e, Object image,
            CurrentRowLookup lookup) {
        List<String> keyFields = changeColumns.keyFields(record.key());
        if (keyFields == null) {
            // No key: the whole before image (REPLICA IDENTITY FULL is what makes such deletes possible).
            if (image instanceof Struct) {
                Struct row = shapes.row((Struct) image, e.flattened, e.version, true);
                return withValue(record, row.schema(), row);
            }
            Map<String, Object> row = shapes.row((Map<?, ?>) image, e.flattened, e.version, true, null, null);
            return withValue(record, null, row);
        }
        TableLayout layout = layouts.apply(table);
        List<String> beyond = layout == null ? List.of() : layout.keyedBeyond(keyFields);
        List<String> carried = changeColumns.carried(record, layout, image, keyFields, beyond);
        if (!carried.isEmpty()) {
            lookup.keyChangeIn(table);
        }
        RowKey key = beyond.isEmpty() && carried.isEmpty() ? null : keys.of(record.key());
        CurrentRow current = key == null ? null
                : lookup.find(record, table, key, ChangeColumns.union(beyond, carried));
        if (image instanceof Struct) {
            Struct img = (Struct) image;
            Keyed k = new Keyed(beyond, current, img);
            for (String c : carried) {
                k.carry(c, current, img.schema().field(c).schema(), v -> fill(current, c, v, record, table));
            }
            Struct row = shapes.deleteRow(img, e.flattened, e.version, keyFields, k.columns, k.schemas(), k.values(),
                    e.fullSchema);
            return withValue(record, row.schema(), row);
        }
        Map<?, ?> img = (Map<?, ?>) image;
        Map<String, Object> extra = keyed(beyond, current, img);
        for (String c : carried) {
            Object v = current == null || !current.has(c) ? null : current.get(c);
            if (v != null && (!current.fromTable || v instanceof byte[])) { // no schema to read other text back by
                extra.put(c, current.fromTable ? ClickHouseCurrentRows.text(v) : v);
            }
        }
        Map<String, Object> row = shapes.row(img, e.flattened, e.version, true, keyFields, extra);
        return withValue(record, null, row);
    }

    /**
     * The sorting- and partition-key columns a delete row carries, for a Struct row: each from the current row
     * (typed as its pending row's field, or the table's text), else from {@code before} when it has a value there
     * (the row never landed, so where its delete goes matters little; under REPLICA IDENTITY FULL it is right).
     */
    private static final class Keyed {
        final List<String> columns = new ArrayList<>();
        private final List<Schema> schemas = new ArrayList<>();
        private final List<Object> values = new ArrayList<>();

        Keyed(List<String> beyond, CurrentRow current, Struct before) {
            for (String c : beyond) {
                if (current != null && current.has(c)) {
                    columns.add(c);
                    schemas.add(current.fromTable ? Schema.OPTIONAL_STRING_SCHEMA : current.schemaOf(c));
                    values.add(currentValue(current, c));
                } else if (before != null && before.schema().field(c) != null && StructValues.get(before, c) != null) {
                    columns.add(c);
                    schemas.add(before.schema().field(c).schema());
                    values.add(StructValues.get(before, c));
                }
            }
        }

        /**
         * Adds column {@code c} of the current row, typed as the image's field {@code s} by {@code typed}; left out
         * when there is no current value or it cannot be read back as the field.
         */
        void carry(String c, CurrentRow current, Schema s, Function<Schema, Object> typed) {
            if (current == null || !current.has(c) || current.get(c) == null) {
                return;
            }
            Object v;
            try {
                v = typed.apply(s);
            } catch (RecordMappingException e) {
                return; // the create that needs it says so
            }
            if (v != null) {
                columns.add(c);
                schemas.add(s);
                values.add(v);
            }
        }

        Schema[] schemas() {
            return schemas.toArray(new Schema[0]);
        }

        Object[] values() {
            return values.toArray();
        }
    }

    /** {@link Keyed} for a map row. */
    private static Map<String, Object> keyed(List<String> beyond, CurrentRow current, Map<?, ?> before) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (String c : beyond) {
            if (current != null && current.has(c)) {
                out.put(c, currentValue(current, c));
            } else if (before != null && before.get(c) != null) {
                out.put(c, before.get(c));
            }
        }
        return out;
    }

    /** A column of the current row as a row value: a pending row's own value, or the table's text of it. */
    private static Object currentValue(CurrentRow current, String c) {
        Object v = current.get(c);
        return current.fromTable && v != null ? ClickHouseCurrentRows.text(v) : v;
    }

    /** A record with a null value: skipped, a bad record, or the delete of the row its key names. */
    private SinkRecord tombstone(SinkRecord record, TableId table, CurrentRowLookup lookup) {
        switch (tombstones) {
            case "fail":
                throw RecordMappingException.tombstone(record, table);
            case "skip":
                return null;
            default:
                break;
        }
        if (record.key() == null) {
            return null; // names no row (a table without a primary key): nothing to delete
        }
        StringBuilder why = new StringBuilder();
        RowKey key = keys.of(record.key(), why);
        if (key == null) {
            throw new RecordMappingException(describe.apply(record) + ": a tombstone (null value) with "
                    + SinkConfig.TOMBSTONES_BEHAVIOR + "=delete deletes the row its key names, but " + why);
        }
        TableLayout layout = layouts.apply(table);
        List<String> beyond = layout == null ? List.of() : layout.keyedBeyond(key.columns);
        CurrentRow current = layout == null ? null : lookup.find(record, table, key, beyond);
        if (current == null || current.deleted) {
            // No such row here, or its delete is written already (the tombstone Debezium sends after each delete):
            // nothing to delete. Writing that delete again would change nothing but the rows ClickHouse merges, and
            // for a primary-key change's old key it would replace the values the delete carries for the new key.
            return null;
        }
        RowVersion version = current.version.next();
        if (record.key() instanceof Struct) {
            Struct k = (Struct) record.key();
            Keyed keyed = new Keyed(beyond, current, null);
            Struct row = shapes.deleteRow(k, false, version, key.columns, keyed.columns, keyed.schemas(),
                    keyed.values(), null);
            return withValue(record, row.schema(), row);
        }
        Map<String, Object> row = shapes.row((Map<?, ?>) record.key(), false, version, true, key.columns,
                keyed(beyond, current, null));
        return withValue(record, null, row);
    }

    private SinkRecord withValue(SinkRecord record, Schema schema, Object value) {
        return record.newRecord(record.topic(), record.kafkaPartition(), record.keySchema(), record.key(), schema,
                value, record.timestamp(), record.headers());
    }

    /**
     * A cdc.mode=debezium table must be sorted by the record key (the source's primary key): a key field outside the
     * sorting key lets rows of different keys replace each other. Checked on the first keyed record of each table.
     */
    private void checkKeyIsSorted(SinkRecord record, TableId table) {
        if (keyChecked.contains(table)) {
            return;
        }
        TableLayout layout = layouts.apply(table);
        List<String> keys = changeColumns.keyFields(record.key());
        if (layout == null || keys == null) {
            return;
        }
        keyChecked.add(table);
        List<String> missing = new ArrayList<>();
        for (String k : keys) {
            if (!layout.sorting.contains(k)) {
                missing.add(k);
            }
        }
        if (!missing.isEmpty()) {
            throw new ConnectException("Table " + table.quoted() + " is sorted by " + layout.sorting + ", which lacks "
                    + "the record key's field(s) " + missing + " (the source's primary key): ReplacingMergeTree keeps "
                    + "one row per sorting key, so rows of different keys would replace each other. Make its ORDER "
                    + "BY contain every key field (e.g. ORDER BY (" + String.join(", ", quoteAll(keys)) + ")) by "
                    + "creating it anew; columns before them are fine if they never change for a row.");
        }
    }

    private static List<String> quoteAll(List<String> names) {
        List<String> out = new ArrayList<>();
        for (String n : names) {
            out.add(TableId.quote(n));
        }
        return out;
    }

    /** A truncate event: a bad record, or skipped with a warning (cdc.truncate.behavior). */
    private SinkRecord truncate(SinkRecord record, TableId table) {
        if (failOnTruncate) {
            throw new RecordMappingException(describe.apply(record) + ": a truncate event (op 't') and "
                    + SinkConfig.CDC_TRUNCATE_BEHAVIOR + "=fail");
        }
        LOG.warn("Skipping a truncate event (op 't') at topic={} partition={} offset={} ({}=skip): the rows of {} "
                        + "stay in ClickHouse; run TRUNCATE TABLE {} there if they should go too", Origin.topic(record),
                Origin.partition(record), Origin.offset(record), SinkConfig.CDC_TRUNCATE_BEHAVIOR, table.quoted(),
                table.quoted());
        return null;
    }

    /** The record auto.create makes the table from, for a row of the table (a delete row: the full row's shape). */
    SinkRecord forCreate(SinkRecord row) {
        if (row.value() instanceof Struct) {
            Schema full = shapes.fullRowSchema(((Struct) row.value()).schema());
            if (full != null) {
                return withValue(row, full, new Struct(full));
            }
        }
        return row;
    }

    /** The table's columns were read (again): its sorting key is checked anew on its next keyed record. */
    void forget(TableId table) {
        keyChecked.remove(table);
    }

    /** The row schema made for images of this schema (for tests: one instance per image schema). */
    Schema rowSchemaFor(Schema imageSchema) {
        return shapes.schemaFor(imageSchema, false);
    }
}
