package io.chsink.connect.cdc;

import com.clickhouse.client.api.Client;
import io.chsink.connect.block.TableBlock;
import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.config.TableRouter;
import io.chsink.connect.mapping.RecordMappingException;
import io.chsink.connect.offset.Origin;
import io.chsink.connect.schema.TableId;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.RetriableException;
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
 *       before any later one); when the current row is already a delete (the tombstone Debezium sends after each
 *       delete), or there is none, it writes no row;
 *   <li>truncates ({@code cdc.truncate.behavior=skip}) write no row.
 * </ul>
 * The current row of a key is the latest one this task appended and has not yet seen inserted ({@link PendingRows}),
 * else the latest one it saw inserted, while it is cached ({@link RecentRows}, cdc.row.cache.bytes), else the
 * table's (one keyed query per table and batch, {@link CurrentRowReader}): all changes of a key come through one
 * partition, so nothing else can be newer (RecentRows says when its rows are dropped so that this holds).
 *
 * <p>This class wires the parts and keeps the tables' layouts: {@link ChangeEvent} classifies a record,
 * {@link ReadPlanner} plans the current-row reads of a batch, {@link ChangeRows} decides the row a change event
 * becomes against the current rows ({@link CurrentRows}), and {@link BlockRows} keeps those in step with the task's
 * blocks.
 */
public final class DebeziumRows implements RowSource {
    private static final Logger LOG = LoggerFactory.getLogger(DebeziumRows.class);

    private final TableRouter router;
    private final Consumer<TableId> tableCheck;
    private final Function<TableId, TableLayout> layoutLoader;
    private final Map<TableId, TableLayout> layouts = new ConcurrentHashMap<>();
    private final PendingRows pending = new PendingRows();
    private final RecentRows recent;
    private final CachedColumns cached;
    private final CurrentRows currentRows;
    private final ReadPlanner planner;
    private final ChangeRows changes;
    private final BlockRows blocks;

    /**
     * @param currentRowRead told the milliseconds of every read of current rows from a table
     * @param cacheHit told of every current row found among the recent rows (no read)
     */
    public DebeziumRows(SinkConfig config, Client client, LongConsumer currentRowRead, Runnable cacheHit) {
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
            LongConsumer currentRowRead, Runnable cacheHit) {
        this.router = router;
        this.tableCheck = tableCheck;
        this.layoutLoader = layoutLoader;
        this.recent = new RecentRows(cacheBytes);
        this.cached = new CachedColumns(layouts::get);
        ChangeColumns columns = new ChangeColumns(new Placeholders(placeholder));
        RowKeys keys = new RowKeys();
        this.currentRows = new CurrentRows(pending, recent, cached, reader != null ? reader
                : new ClickHouseCurrentRows(client, versionColumn, deletedColumn, rule.bits(), layouts), layouts::get,
                this::describe, currentRowRead, cacheHit);
        this.planner = new ReadPlanner(router, layouts::get, rule, tombstones.equals("delete"), columns, pending,
                recent, currentRows, keys);
        this.changes = new ChangeRows(new RowShapes(versionColumn, deletedColumn, rule.bits()), columns,
                layouts::get, tombstones, failOnTruncate, this::describe, keys);
        this.blocks = new BlockRows(versionColumn, deletedColumn, rule.bits(), pending, recent, cached, keys);
        keyChangeWait(SinkConfig.CDC_KEY_CHANGE_WAIT_MS_DEFAULT, System::currentTimeMillis);
    }

    /** How long the create of a primary-key change waits for its old key's delete (cdc.key.change.wait.ms). */
    void keyChangeWait(long waitMs, LongSupplier clock) {
        currentRows.keyChangeWait(waitMs, clock);
    }

    // ---------------------------------------------------------------- the batch: its current-row reads

    /** Reads what the batch needs (as the task does when it may not wait). */
    void prepare(Collection<SinkRecord> records) {
        prepare(records, false);
    }

    @Override
    public boolean prepare(Collection<SinkRecord> records, boolean mayWait) {
        return planner.prepare(records, mayWait);
    }

    // ---------------------------------------------------------------- one record

    @Override
    public SinkRecord toRow(SinkRecord record) {
        TableId table = router.tableFor(record.topic());
        ChangeEvent e = record.value() == null ? null : event(record);
        return changes.row(record, table, e, currentRows);
    }

    /** The record's change event ({@link ReadPlanner#event}); a bad record when it is malformed. */
    private ChangeEvent event(SinkRecord record) {
        try {
            return planner.event(record);
        } catch (ChangeEvent.Malformed m) {
            throw new RecordMappingException(describe(record) + ": malformed Debezium change event: "
                    + m.getMessage());
        }
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
                        + "event (cdc.mode=debezium)", Origin.topic(record), Origin.partition(record), Origin.offset(record),
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
            throw new RetriableException("Could not read the columns of " + table
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
