package io.chsink.connect.cdc;

import com.clickhouse.client.api.Client;
import io.chsink.connect.block.TableBlock;
import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.config.TableRouter;
import io.chsink.connect.mapping.RecordMappingException;
import io.chsink.connect.mapping.SchemaMemo;
import io.chsink.connect.mapping.StructValues;
import io.chsink.connect.offset.Origin;
import io.chsink.connect.schema.TableId;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code cdc.mode=debezium}: a record is a Debezium change event and becomes one row of a
 * ReplacingMergeTree(version, is_deleted) table, with the version of {@link ChangeVersion}:
 * <ul>
 *   <li>creates, snapshot reads and updates write the after image with deleted = 0; a column holding Debezium's
 *       placeholder for an unchanged TOAST value takes the row's current value;
 *   <li>deletes write the key (the key fields of the before image, or the record key) with deleted = 1, plus the
 *       columns the table's sorting and partition keys read, from the row's current value (else from before), so
 *       that the delete lands where the row it deletes is; the other columns take their defaults;
 *   <li>a tombstone (tombstones.behavior=delete, the default in this mode) deletes the row its key names: its delete
 *       row has the current row's version + 1 (the delete that became the tombstone came after that change and
 *       before any later one), or, when the current row is already a delete, that delete again;
 *   <li>truncates ({@code cdc.truncate.behavior=skip}) write no row.
 * </ul>
 * The current row of a key is the latest one this task appended and has not yet seen inserted ({@link PendingRows}),
 * else the latest one it saw inserted, while it is cached ({@link RecentRows}, cdc.row.cache.bytes), else the
 * table's (one keyed query per table and batch, {@link CurrentRowReader}): all changes of a key come through one
 * partition, so nothing else can be newer (RecentRows says when its rows are dropped so that this holds).
 */
public final class DebeziumRows implements io.chsink.connect.cdc.RowSource {
    private static final Logger LOG = LoggerFactory.getLogger(DebeziumRows.class);

    private final RowShapes shapes;
    private final ChangeVersion rule;
    private final boolean failOnTruncate;
    private final String tombstones;
    private final Placeholders placeholders;
    private final TableRouter router;
    private final Consumer<TableId> tableCheck;
    private final Function<TableId, TableLayout> layoutLoader;
    private final Map<TableId, TableLayout> layouts = new ConcurrentHashMap<>();
    private final PendingRows pending = new PendingRows();
    private final RecentRows recent;
    private final CachedColumns cached;
    private final BlockRows blocks;
    private final ChangeColumns changeColumns;
    private final Set<TableId> keyChecked = new HashSet<>();
    private final CurrentRows currentRows;
    /** This batch: the change event read for each record by {@link #prepare}. */
    private final Map<SinkRecord, Object> events = new IdentityHashMap<>();
    /**
     * The records the last prepare let wait, in order, and what it found they need: the batch they come again with
     * starts with them, so only the records after them are looked at.
     */
    private final List<SinkRecord> waiting = new ArrayList<>();
    private Map<TableId, Need> waitingNeeds = new HashMap<>();
    private List<SinkRecord> waitingWhole = new ArrayList<>();
    /** The keys of waitingWhole's first waitingBroughtUpTo records, by table, each with its first index there. */
    private Map<TableId, Map<RowKey, Integer>> waitingBrought = new HashMap<>();
    private int waitingBroughtUpTo;
    /**
     * The keys the cache answered for when their records were looked at: this prepare's, and those of the records
     * let wait. Blocks inserted while polls wait put rows into the cache and push the least recently used out, so
     * before the read the waiting records' ones are looked up again: a key gone from the cache is read with the
     * others, not alone when its record becomes a row.
     */
    private List<CachedNeed> seenCached = new ArrayList<>();
    private List<CachedNeed> waitingCached = new ArrayList<>();

    /**
     * @param currentRowRead told the milliseconds of every read of current rows from a table
     * @param cacheHit told of every current row found among the recent rows (no read)
     */
    public DebeziumRows(SinkConfig config, Client client, java.util.function.LongConsumer currentRowRead,
            Runnable cacheHit) {
        this(config.cdcVersionColumn(), config.cdcDeletedColumn(), config.failOnTruncate(),
                config.tombstonesBehavior(), config.cdcUnavailablePlaceholder(), ChangeVersion.of(config),
                new TableRouter(config), t -> ReplacingTableCheck.require(client, t, config.cdcVersionColumn(),
                        config.cdcDeletedColumn(), config.cdcVersionBits()),
                t -> TableLayout.load(client, t), null, client, config.cdcRowCacheBytes(), currentRowRead, cacheHit);
        keyChangeWait(config.cdcKeyChangeWaitMs(), System::currentTimeMillis);
        warnOfNullDefaults(config);
    }

    /** What validate() cannot see or was told to accept: see {@link NullDefaults#warning}. */
    private static void warnOfNullDefaults(SinkConfig config) {
        String w = NullDefaults.warning(config.debeziumCdc(), config.cdcNullDefaults(), config.originalsStrings());
        if (w != null) {
            LOG.warn(w);
        }
    }

    DebeziumRows(String versionColumn, String deletedColumn, boolean failOnTruncate, TableRouter router,
            Consumer<TableId> tableCheck) {
        this(versionColumn, deletedColumn, failOnTruncate, "delete", "__debezium_unavailable_value",
                ChangeVersion.DEFAULT, router, tableCheck, t -> null, (t, k, keys, cols) -> new HashMap<>(), null, 0);
    }

    /** @param cacheBytes the bound of the recent rows (cdc.row.cache.bytes; 0: none) */
    DebeziumRows(String versionColumn, String deletedColumn, boolean failOnTruncate, String tombstones,
            String placeholder, ChangeVersion rule, TableRouter router, Consumer<TableId> tableCheck,
            Function<TableId, TableLayout> layoutLoader, CurrentRowReader reader, Client client, long cacheBytes) {
        this(versionColumn, deletedColumn, failOnTruncate, tombstones, placeholder, rule, router, tableCheck,
                layoutLoader, reader, client, cacheBytes, ms -> { }, () -> { });
    }

    private DebeziumRows(String versionColumn, String deletedColumn, boolean failOnTruncate, String tombstones,
            String placeholder, ChangeVersion rule, TableRouter router, Consumer<TableId> tableCheck,
            Function<TableId, TableLayout> layoutLoader, CurrentRowReader reader, Client client, long cacheBytes,
            java.util.function.LongConsumer currentRowRead, Runnable cacheHit) {
        this.recent = new RecentRows(cacheBytes);
        this.cached = new CachedColumns(layouts::get);
        this.blocks = new BlockRows(versionColumn, deletedColumn, rule.bits(), pending, recent, cached);
        this.rule = rule;
        this.shapes = new RowShapes(versionColumn, deletedColumn, rule.bits());
        this.failOnTruncate = failOnTruncate;
        this.tombstones = tombstones;
        this.placeholders = new Placeholders(placeholder);
        this.changeColumns = new ChangeColumns(placeholders);
        this.router = router;
        this.tableCheck = tableCheck;
        this.layoutLoader = layoutLoader;
        this.currentRows = new CurrentRows(pending, recent, cached, reader != null ? reader
                : new ClickHouseCurrentRows(client, versionColumn, deletedColumn, rule.bits(), layouts), layouts::get,
                this::describe, currentRowRead, cacheHit);
        keyChangeWait(SinkConfig.CDC_KEY_CHANGE_WAIT_MS_DEFAULT, System::currentTimeMillis);
    }

    /** How long the create of a primary-key change waits for its old key's delete (cdc.key.change.wait.ms). */
    void keyChangeWait(long waitMs, java.util.function.LongSupplier clock) {
        currentRows.keyChangeWait(waitMs, clock);
    }

    // ---------------------------------------------------------------- the batch: what needs a current row

    /** A key whose current row the cache held when its record was looked at, and what the record needs of it. */
    private static final class CachedNeed {
        final TableId table;
        final RowKey key;
        final String topic;
        final int partition;
        final List<String> columns;
        /** How many whole records of the batch came before its record. */
        final int after;

        CachedNeed(TableId table, RowKey key, String topic, int partition, List<String> columns, int after) {
            this.table = table;
            this.key = key;
            this.topic = topic;
            this.partition = partition;
            this.columns = columns;
            this.after = after;
        }
    }

    /** One table's keys whose current row this batch needs, and the columns it needs of them. */
    private static final class Need {
        List<String> keyColumns;
        final Set<RowKey> keys = new LinkedHashSet<>();
        /** Per key, how many whole records of the batch came before the first record that needs it. */
        final Map<RowKey, Integer> after = new HashMap<>();
        final Set<String> columns = new LinkedHashSet<>();
    }

    /** Reads what the batch needs (as the task does when it may not wait). */
    void prepare(Collection<SinkRecord> records) {
        prepare(records, false);
    }

    @Override
    public boolean prepare(Collection<SinkRecord> records, boolean mayWait) {
        currentRows.newBatch();
        Map<TableId, Need> needs;
        List<SinkRecord> whole;
        java.util.Iterator<SinkRecord> it = records.iterator();
        List<CachedNeed> recheck = List.of();
        if (startsWithWaiting(it)) {
            needs = waitingNeeds; // the records held: looked at already
            whole = waitingWhole;
            recheck = waitingCached;
        } else {
            events.clear();
            needs = new HashMap<>();
            whole = new ArrayList<>();
            it = records.iterator();
            forgetWaiting();
        }
        waiting.clear();
        seenCached = new ArrayList<>();
        String lastTopic = null;
        TableId table = null;
        while (it.hasNext()) {
            SinkRecord r = it.next();
            if (!r.topic().equals(lastTopic)) {
                lastTopic = r.topic();
                table = router.tableFor(lastTopic);
            }
            TableLayout layout = layouts.get(table);
            if (r.value() == null) {
                if (tombstones.equals("delete") && layout != null) {
                    need(needs, table, r, layout.keyedBeyond(changeColumns.keyFieldsOrEmpty(r.key())), whole.size());
                }
                continue;
            }
            Object read = events.get(r);
            if (read == null) {
                try {
                    read = ChangeEvent.read(r, rule);
                } catch (ChangeEvent.Malformed m) {
                    read = m;
                }
                events.put(r, read);
            }
            if (!(read instanceof ChangeEvent)) {
                continue;
            }
            ChangeEvent e = (ChangeEvent) read;
            if (e.kind == ChangeEvent.Kind.UPSERT) {
                List<String> toast = changeColumns.placeholderFields(e);
                if (!toast.isEmpty()) {
                    if (!currentRows.resting(r)) { // else it waits on without a read (toRow)
                        need(needs, table, r, toast, whole.size());
                    }
                } else {
                    whole.add(r);
                }
            } else if (e.kind == ChangeEvent.Kind.DELETE && layout != null) {
                List<String> keyFields = changeColumns.keyFieldsOrEmpty(r.key());
                List<String> beyond = layout.keyedBeyond(keyFields);
                List<String> columns = ChangeColumns.union(beyond,
                        changeColumns.carried(r, layout, e.image.value(), keyFields, beyond));
                if (!columns.isEmpty()) {
                    need(needs, table, r, columns, whole.size());
                }
                whole.add(r); // the tombstone after it (same batch, mostly) finds this delete pending
            }
        }
        Map<TableId, List<RowKey>> unknowns = needs.isEmpty() ? Map.of() : unknowns(needs, whole);
        if (mayWait && !unknowns.isEmpty()) {
            waiting.addAll(records);
            waitingNeeds = needs;
            waitingWhole = whole;
            waitingCached.addAll(seenCached); // after the held ones' (recheck is this list, or forgetWaiting's new one)
            return false;
        }
        // Going on now: a key the cache answered for when a held record was looked at may have left it since.
        boolean gone = false;
        for (CachedNeed c : recheck) {
            if (recent.find(c.table, c.key, c.topic, c.partition, c.columns) == null) {
                addNeed(needs, c.table, c.key, c.columns, c.after);
                gone = true;
            }
        }
        if (gone) {
            unknowns = unknowns(needs, whole);
        }
        if (unknowns.isEmpty()) {
            forgetWaiting();
            return true;
        }
        for (Map.Entry<TableId, Need> n : needs.entrySet()) {
            Need need = n.getValue();
            List<RowKey> unknown = unknowns.get(n.getKey());
            if (unknown != null) {
                Set<String> columns = new LinkedHashSet<>();
                TableLayout layout = layouts.get(n.getKey());
                for (String c : need.columns) {
                    if (layout == null || layout.types.containsKey(c)) {
                        columns.add(c);
                    }
                }
                currentRows.read(n.getKey(), need.keyColumns, unknown, columns);
            }
        }
        forgetWaiting();
        return true;
    }

    /**
     * The needed keys that are neither pending nor brought by a whole row or delete of the batch before the first
     * change that needs them (mostly just before): those are pending by the time that change becomes a row. One
     * brought only after it is read with the others, not alone then. (Should the record bringing a key turn out a bad
     * record, toRow reads the key alone.) The keys of the records let wait are kept for the batch they come again with.
     */
    private Map<TableId, List<RowKey>> unknowns(Map<TableId, Need> needs, List<SinkRecord> whole) {
        Map<TableId, Map<RowKey, Integer>> brought = waitingBrought;
        for (int i = waitingBroughtUpTo; i < whole.size(); i++) {
            SinkRecord r = whole.get(i);
            RowKey k = RowKey.of(r.key(), null);
            if (k != null) {
                brought.computeIfAbsent(router.tableFor(r.topic()), x -> new HashMap<>()).putIfAbsent(k, i);
            }
        }
        waitingBroughtUpTo = whole.size();
        Map<TableId, List<RowKey>> unknowns = new HashMap<>();
        for (Map.Entry<TableId, Need> n : needs.entrySet()) {
            Map<RowKey, Integer> b = brought.getOrDefault(n.getKey(), Map.of());
            Need need = n.getValue();
            for (RowKey k : need.keys) {
                Integer at = b.get(k);
                if (!pending.has(n.getKey(), k) && (at == null || at >= need.after.get(k))) {
                    unknowns.computeIfAbsent(n.getKey(), t -> new ArrayList<>()).add(k);
                }
            }
        }
        return unknowns;
    }

    private void forgetWaiting() {
        waitingNeeds = new HashMap<>();
        waitingWhole = new ArrayList<>();
        waitingBrought = new HashMap<>();
        waitingBroughtUpTo = 0;
        waitingCached = new ArrayList<>();
    }

    /**
     * Whether the batch starts with the records the last prepare let wait (the same objects, in order), leaving the
     * iterator after them; the held records of a partition revoked or rewound meanwhile are gone from it, and then
     * the whole batch is looked at again.
     */
    private boolean startsWithWaiting(java.util.Iterator<SinkRecord> it) {
        if (waiting.isEmpty()) {
            return false;
        }
        for (SinkRecord w : waiting) {
            if (!it.hasNext() || it.next() != w) {
                return false;
            }
        }
        return true;
    }

    /** @param after how many whole records of the batch came before {@code r} */
    private void need(Map<TableId, Need> needs, TableId table, SinkRecord r, List<String> columns, int after) {
        RowKey k = RowKey.of(r.key(), null);
        TableLayout layout = layouts.get(table);
        if (k == null || layout != null && !layout.types.keySet().containsAll(k.columns)) {
            return; // toRow reports why, where the current row is needed
        }
        if (recent.find(table, k, Origin.topic(r), Origin.partition(r), columns) != null) {
            // Cached: rows enter the cache between batches; a held record's key is looked up again before the read
            // (should it have left even so, toRow reads the key).
            seenCached.add(new CachedNeed(table, k, Origin.topic(r), Origin.partition(r), columns, after));
            return;
        }
        addNeed(needs, table, k, columns, after);
    }

    private static void addNeed(Map<TableId, Need> needs, TableId table, RowKey k, List<String> columns, int after) {
        Need n = needs.computeIfAbsent(table, t -> new Need());
        if (n.keyColumns == null) {
            n.keyColumns = k.columns;
        } else if (!n.keyColumns.equals(k.columns)) {
            return; // a key of another shape (the table's key changed): toRow reports it if it matters
        }
        n.keys.add(k);
        n.after.merge(k, after, Math::min);
        n.columns.addAll(columns);
    }

    // ---------------------------------------------------------------- one record

    @Override
    public SinkRecord toRow(SinkRecord record) {
        TableId table = router.tableFor(record.topic());
        if (record.value() == null) {
            return tombstone(record, table);
        }
        Object read = events.get(record); // the map is emptied by the next batch's prepare
        if (read == null) {
            try {
                read = ChangeEvent.read(record, rule);
            } catch (ChangeEvent.Malformed m) {
                read = m;
            }
        }
        if (read instanceof ChangeEvent.Malformed) {
            throw new RecordMappingException(describe(record) + ": malformed Debezium change event: "
                    + ((ChangeEvent.Malformed) read).getMessage());
        }
        ChangeEvent e = (ChangeEvent) read;
        if (e.kind == ChangeEvent.Kind.TRUNCATE) {
            return truncate(record);
        }
        checkKeyIsSorted(record, table);
        Object image = e.image.value();
        if (e.kind == ChangeEvent.Kind.UPSERT) {
            return upsert(record, table, e, image);
        }
        return delete(record, table, e, image);
    }

    private SinkRecord upsert(SinkRecord record, TableId table, ChangeEvent e, Object image) {
        List<String> toast = changeColumns.placeholderFields(e);
        currentRows.placeholdersIn(table, toast);
        if (image instanceof Struct) {
            Struct row = shapes.row((Struct) image, e.flattened, e.version, false);
            if (!toast.isEmpty()) {
                CurrentRow current = currentForToast(record, table, toast, e.version);
                for (String c : toast) {
                    Field f = row.schema().field(c);
                    row.put(f, fill(current, c, f.schema(), record, table));
                }
            }
            return withValue(record, row.schema(), row);
        }
        Map<String, Object> row = shapes.row((Map<?, ?>) image, e.flattened, e.version, false, null, null);
        if (!toast.isEmpty()) {
            CurrentRow current = currentForToast(record, table, toast, e.version);
            TableLayout layout = layouts.get(table);
            for (String c : toast) {
                Object v = current.get(c);
                String type = layout == null ? null : layout.types.get(c);
                if (current.fromTable && v != null && !(v instanceof byte[])) {
                    // Without schemas there is no field type to read an array, map or other text back into.
                    throw new RecordMappingException(describe(record) + ": column '" + c + "' holds Debezium's "
                            + "placeholder for an unchanged TOAST value, and without a value schema the connector "
                            + "reads back only String columns from " + table.quoted() + " (this one is " + type
                            + "). Set REPLICA IDENTITY FULL on the source table, or use a converter with schemas");
                }
                row.put(c, current.fromTable ? ClickHouseCurrentRows.text(v) : v);
            }
        }
        return withValue(record, null, row);
    }

    private CurrentRow currentForToast(SinkRecord record, TableId table, List<String> toast, RowVersion version) {
        if (currentRows.resting(record)) {
            throw new RowSource.NotYet("the create of a primary-key change waits for its old key's delete");
        }
        StringBuilder why = new StringBuilder();
        RowKey key = RowKey.of(record.key(), why);
        CurrentRow current = key == null ? null : currentRows.find(record, table, key, toast);
        if ((current == null || current.deleted) && key != null) {
            org.apache.kafka.connect.header.Header h = KeyChange.oldKeyHeader(record);
            if (h != null) {
                return currentRows.oldKeyRow(record, table, key, h, version, toast);
            }
        }
        if (current == null || current.deleted) {
            throw new RecordMappingException(describe(record) + ": column(s) " + toast + " hold Debezium's "
                    + "placeholder for an unchanged TOAST value ('" + placeholders.text() + "', "
                    + SinkConfig.CDC_UNAVAILABLE_PLACEHOLDER + "), and the row's current value is unknown: "
                    + (key == null ? why : "key " + key + (current == null ? " is in neither the table nor a pending "
                            + "block (never snapshotted, or the create of a primary-key change)"
                            : " is deleted there")) + ". Set REPLICA IDENTITY FULL on the source table, or "
                    + "re-snapshot it");
        }
        for (String c : toast) {
            if (!current.has(c)) {
                throw new RecordMappingException(describe(record) + ": column '" + c + "' holds Debezium's "
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
                throw new RecordMappingException(describe(record) + ": column '" + c + "' holds Debezium's "
                        + "placeholder for an unchanged TOAST value, and its current value in " + table.quoted()
                        + " cannot be read back as the field's " + describe(s) + ": " + e.getMessage() + ". Set "
                        + "REPLICA IDENTITY FULL on the source table");
            }
        }
        throw new RecordMappingException(describe(record) + ": column '" + c + "' holds Debezium's placeholder for "
                + "an unchanged TOAST value, and the connector cannot read its current value back from "
                + table.quoted() + " as the field's " + describe(s) + " (text, bytes and arrays of scalars it can). "
                + "Set REPLICA IDENTITY FULL on the source table");
    }

    private static String describe(Schema s) {
        return s.type() + (s.name() == null ? "" : " " + s.name())
                + (s.type() == Schema.Type.ARRAY ? " of " + describe(s.valueSchema()) : "");
    }

    private SinkRecord delete(SinkRecord record, TableId table, ChangeEvent e, Object image) {
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
        TableLayout layout = layouts.get(table);
        List<String> beyond = layout == null ? List.of() : layout.keyedBeyond(keyFields);
        List<String> carried = changeColumns.carried(record, layout, image, keyFields, beyond);
        RowKey key = beyond.isEmpty() && carried.isEmpty() ? null : RowKey.of(record.key(), null);
        CurrentRow current = key == null ? null
                : currentRows.find(record, table, key, ChangeColumns.union(beyond, carried));
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
    private SinkRecord tombstone(SinkRecord record, TableId table) {
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
        RowKey key = RowKey.of(record.key(), why);
        if (key == null) {
            throw new RecordMappingException(describe(record) + ": a tombstone (null value) with "
                    + SinkConfig.TOMBSTONES_BEHAVIOR + "=delete deletes the row its key names, but " + why);
        }
        TableLayout layout = layouts.get(table);
        List<String> beyond = layout == null ? List.of() : layout.keyedBeyond(key.columns);
        CurrentRow current = layout == null ? null : currentRows.find(record, table, key, beyond);
        if (current == null) {
            return null; // no such row here: nothing to delete (the envelope's after-delete tombstone, mostly)
        }
        if (current.deleted && KeyChange.isOldKeyDelete(record)) {
            // The tombstone of a primary-key change's delete (it has the delete's headers): the delete carries the
            // values the new key's create takes; writing it again from the key alone would replace them.
            return null;
        }
        RowVersion version = current.deleted ? current.version : current.version.next();
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
        TableLayout layout = layouts.get(table);
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

    // ---------------------------------------------------------------- blocks

    @Override
    public void appended(SinkRecord row, TableBlock block, TableId table) {
        blocks.appended(row, block, table);
    }

    /** Partitions were revoked: another task may write their keys meanwhile, so no recent row answers for them. */
    @Override
    public void revoked() {
        blocks.revoked();
        currentRows.revoked();
    }

    @Override
    public void blockInserted(TableBlock block) {
        blocks.inserted(block);
    }

    @Override
    public void blockDropped(TableBlock block) {
        blocks.dropped(block);
    }

    @Override
    public long heldBytes() {
        return blocks.heldBytes();
    }

    @Override
    public SinkRecord forCreate(SinkRecord row) {
        if (row.value() instanceof Struct) {
            Schema full = shapes.fullRowSchema(((Struct) row.value()).schema());
            if (full != null) {
                return withValue(row, full, new Struct(full));
            }
        }
        return row;
    }

    /** How many changes came with a version below their key's previous change (see {@link BlockRows}). */
    long versionsBack() {
        return blocks.versionsBack();
    }

    int pendingRows() {
        return pending.size();
    }

    /** How many current rows came from the recent rows. */
    long cacheHits() {
        return currentRows.hits();
    }

    int recentRows() {
        return recent.size();
    }

    long recentBytes() {
        return recent.bytes();
    }

    // ---------------------------------------------------------------- the rest

    private SinkRecord truncate(SinkRecord record) {
        TableId table = router.tableFor(record.topic());
        if (failOnTruncate) {
            throw new RecordMappingException(describe(record) + ": a truncate event (op 't') and "
                    + SinkConfig.CDC_TRUNCATE_BEHAVIOR + "=fail");
        }
        LOG.warn("Skipping a truncate event (op 't') at topic={} partition={} offset={} ({}=skip): the rows of {} "
                        + "stay in ClickHouse; run TRUNCATE TABLE {} there if they should go too", record.topic(),
                record.kafkaPartition(), record.kafkaOffset(), SinkConfig.CDC_TRUNCATE_BEHAVIOR, table.quoted(),
                table.quoted());
        return null;
    }

    private String describe(SinkRecord record) {
        return String.format("Cannot read record topic=%s partition=%d offset=%d for table %s as a Debezium change "
                        + "event (cdc.mode=debezium)", record.topic(), record.kafkaPartition(), record.kafkaOffset(),
                router.tableFor(record.topic()));
    }

    /** The row schema made for images of this schema (for tests: one instance per image schema). */
    Schema rowSchemaFor(Schema imageSchema) {
        return shapes.schemaFor(imageSchema, false);
    }

    @Override
    public void checkTable(TableId table) {
        tableCheck.accept(table);
        TableLayout layout;
        try {
            layout = layoutLoader.apply(table);
        } catch (RuntimeException e) {
            throw new org.apache.kafka.connect.errors.RetriableException("Could not read the columns of " + table
                    + ": " + e.getMessage(), e);
        }
        if (layout != null) {
            layouts.put(table, layout);
        }
        keyChecked.remove(table);
        // Read first, or again after it changed under a block: its cached rows go (the cache answers as it would).
        recent.forget(table);
        cached.forget(table);
    }

    /** Delete rows carry the key only: the table's other columns take their defaults (FINAL hides the row anyway). */
    @Override
    public boolean nullsTakeDefaults() {
        return true;
    }

    @Override
    public String name() {
        return "debezium";
    }
}
