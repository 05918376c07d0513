package io.chsink.connect.cdc;

import io.chsink.connect.block.TableBlock;
import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.offset.Origin;
import io.chsink.connect.schema.TableId;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the current rows in step with the task's blocks: a row appended to a block is pending under it
 * ({@link PendingRows}) until the block is inserted (its rows become recent rows, {@link RecentRows}) or dropped
 * (its records come again). Counts and warns of a change whose version went below its key's previous one.
 */
final class BlockRows {
    /** DebeziumRows' logger: the warning is logged as before the row source was split. */
    private static final Logger LOG = LoggerFactory.getLogger(DebeziumRows.class);

    private final String versionColumn;
    private final String deletedColumn;
    private final int versionBits;
    private final PendingRows pending;
    private final RecentRows recent;
    private final CachedColumns cached;
    private final RowKeys keys;
    private final Map<TableId, Long> backWarned = new HashMap<>();
    private long versionsBack;

    BlockRows(String versionColumn, String deletedColumn, int versionBits, PendingRows pending, RecentRows recent,
            CachedColumns cached, RowKeys keys) {
        this.keys = keys;
        this.versionColumn = versionColumn;
        this.deletedColumn = deletedColumn;
        this.versionBits = versionBits;
        this.pending = pending;
        this.recent = recent;
        this.cached = cached;
    }

    /** The row (a row of {@link ChangeRows}) was appended to {@code block} of {@code table}: it is pending now. */
    void appended(SinkRecord row, TableBlock block, TableId table) {
        RowKey key = keys.of(row.key());
        if (key == null) {
            return;
        }
        Object v = row.value();
        RowVersion version;
        boolean deleted;
        if (v instanceof Struct) {
            Struct s = (Struct) v;
            version = RowVersion.of(s.get(versionColumn), versionBits);
            deleted = ((Number) s.get(deletedColumn)).intValue() != 0;
        } else if (v instanceof Map) {
            Map<?, ?> m = (Map<?, ?>) v;
            version = RowVersion.of(m.get(versionColumn), versionBits);
            deleted = ((Number) m.get(deletedColumn)).intValue() != 0;
        } else {
            return;
        }
        RowVersion before = pending.appended(table, key, version, deleted, v, block, Origin.topic(row),
                Origin.partition(row));
        if (before != null && before.compareTo(version) > 0) {
            versionWentBack(row, table, key, before, version);
        }
    }

    /**
     * A change of a key came after one with a higher version, in the order of its partition: the source's log
     * restarted at lower positions (a failover, a new cluster, a re-created topic). The change loses to the older
     * row in ClickHouse, and so will every later one until the epoch is raised. Logged once per table per 10 min.
     */
    private void versionWentBack(SinkRecord row, TableId table, RowKey key, RowVersion before, RowVersion now) {
        versionsBack++;
        long t = System.currentTimeMillis();
        Long last = backWarned.get(table);
        if (last != null && t - last < 600_000) {
            return;
        }
        backWarned.put(table, t);
        LOG.warn("Table {}: the change of key {} at topic={} partition={} offset={} has version {}, below version {} of "
                        + "an earlier change of that key in the same partition, so ClickHouse keeps the older row. "
                        + "The source's log restarted at lower positions (a failover to another server, a new "
                        + "cluster, a re-created topic): once every record of the old log is consumed, raise {} (or "
                        + "{} for its topics) by one. (Logged at most every 10 minutes per table.)", table.quoted(),
                key, Origin.topic(row), Origin.partition(row), Origin.offset(row), now, before,
                SinkConfig.CDC_VERSION_EPOCH, SinkConfig.CDC_VERSION_EPOCH_MAP);
    }

    /** The block was inserted and verified: its rows are the table's now, and recent rows. */
    void inserted(TableBlock block) {
        pending.inserted(block, recent, cached);
    }

    /** The block was dropped: its rows never landed. */
    void dropped(TableBlock block) {
        pending.dropped(block);
    }

    /** Partitions were revoked: another task may write their keys meanwhile, so no recent row answers for them. */
    void revoked() {
        pending.revoked();
        recent.clear();
    }

    /** Bytes the pending rows keep alive (they count against buffer.max.bytes). */
    long heldBytes() {
        return pending.heldBytes();
    }

    /** How many changes came with a version below their key's previous change (see {@link #versionWentBack}). */
    long versionsBack() {
        return versionsBack;
    }
}
