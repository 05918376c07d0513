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

    private final ChangeVersion rule;
    private final String tombstones;
    private final TableRouter router;
    private final Consumer<TableId> tableCheck;
    private final Function<TableId, TableLayout> layoutLoader;
    private final Map<TableId, TableLayout> layouts = new ConcurrentHashMap<>();
    private final PendingRows pending = new PendingRows();
    private final RecentRows recent;
    private final CachedColumns cached;
    private final BlockRows blocks;
    private final ChangeColumns changeColumns;
    private final ChangeRows changes;
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
        this.tombstones = tombstones;
        this.changeColumns = new ChangeColumns(new Placeholders(placeholder));
        this.router = router;
        this.changes = new ChangeRows(new RowShapes(versionColumn, deletedColumn, rule.bits()), changeColumns,
                layouts::get, tombstones, failOnTruncate, this::describe);
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
        ChangeEvent e = record.value() == null ? null : event(record);
        return changes.row(record, table, e, currentRows);
    }

    /** The record's change event, as prepare read it or read now; a bad record when it is malformed. */
    private ChangeEvent event(SinkRecord record) {
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
        return (ChangeEvent) read;
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
        return changes.forCreate(row);
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

    private String describe(SinkRecord record) {
        return String.format("Cannot read record topic=%s partition=%d offset=%d for table %s as a Debezium change "
                        + "event (cdc.mode=debezium)", record.topic(), record.kafkaPartition(), record.kafkaOffset(),
                router.tableFor(record.topic()));
    }

    /** The row schema made for images of this schema (for tests: one instance per image schema). */
    Schema rowSchemaFor(Schema imageSchema) {
        return changes.rowSchemaFor(imageSchema);
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
        changes.forget(table);
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
