package io.chsink.connect.exactlyonce;

import io.chsink.connect.block.BlockBuffer;
import io.chsink.connect.block.BlockKey;
import io.chsink.connect.block.BlockManifest;
import io.chsink.connect.block.TableBlock;
import io.chsink.connect.config.DeliveryGuarantee;
import io.chsink.connect.delivery.BlockOpener;
import io.chsink.connect.delivery.Delivery;
import io.chsink.connect.schema.TableId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * exactly_once (docs/exactly-once.md): blocks hold one partition's records; a block's composition and token are
 * recorded before its insert; a partition's recorded blocks that may not be committed are rebuilt from the
 * redelivered records, with the same rows in the same order and the same token, before any new block of that
 * partition. A rebuild is sealed only by its owner, when its offset range is complete, never by time, size or
 * memory pressure: {@link #mustComplete()} names the partitions whose consumption must go on until then.
 */
public final class ExactlyOnceDelivery implements Delivery {
    private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceDelivery.class);

    /** A rebuild in progress: the block's key, when it began and when its partition last gave it a record. */
    private static final class Rebuild {
        final BlockKey key;
        final long startedMs;
        long lastRecordMs;

        Rebuild(BlockKey key, long nowMs) {
            this.key = key;
            this.startedMs = nowMs;
            this.lastRecordMs = nowMs;
        }
    }

    private final BlockBuffer buffer;
    private final BlockOpener opener;
    private final Supplier<? extends RecordedBlocks> storeOpener;
    private final TargetTables targets;
    /** Per target table read so far: how a partial rebuild into it is judged. */
    private final Map<TableId, RebuildCheck> rebuildChecks = new HashMap<>();
    private final String connector;
    private volatile RecordedBlocks store;
    private final ReplayPlanner planner = new ReplayPlanner();
    /** Per partition, the rebuild in progress, in the order they began. */
    private final Map<TopicPartition, Rebuild> rebuilding = new LinkedHashMap<>();
    /** Per loaded partition, its epoch (offsets altered through the REST API: docs/exactly-once.md). */
    private final Map<TopicPartition, Long> epochs = new HashMap<>();
    private TopicPartition lastTp;

    /**
     * @param store opens the state table (creating it if needed) on first use, so a task starts while ClickHouse is
     *     down
     * @param targets refuses a table that cannot take exactly_once inserts (throws)
     */
    public ExactlyOnceDelivery(BlockBuffer buffer, BlockOpener opener, Supplier<? extends RecordedBlocks> store,
            TargetTables targets, String connector) {
        this.buffer = buffer;
        this.opener = opener;
        this.storeOpener = store;
        this.targets = targets;
        this.connector = connector;
    }

    private RecordedBlocks store() {
        RecordedBlocks s = store;
        if (s == null) {
            synchronized (this) {
                if (store == null) {
                    store = storeOpener.get();
                }
                s = store;
            }
        }
        return s;
    }

    /** Loads the recorded blocks of partitions whose first record since the task got them is in this batch. */
    @Override
    public void prepare(Collection<SinkRecord> records) {
        Map<TopicPartition, SinkRecord> firsts = new LinkedHashMap<>();
        for (SinkRecord r : records) {
            TopicPartition tp = partitionOf(r);
            if (!planner.isLoaded(tp) && !firsts.containsKey(tp)) {
                firsts.put(tp, r);
            }
        }
        for (Map.Entry<TopicPartition, SinkRecord> e : firsts.entrySet()) {
            SinkRecord first = e.getValue();
            List<BlockManifest> blocks;
            try {
                blocks = store().load(e.getKey(), first.kafkaOffset());
                epochs.put(e.getKey(), store().epoch(e.getKey()));
            } catch (RuntimeException ex) {
                throw new RetriableException("Could not read the recorded blocks of " + e.getKey()
                        + " from the exactly-once state table: " + ex.getMessage(), ex);
            }
            boolean stale = planner.loaded(e.getKey(), blocks, first.kafkaOffset(), timestampOf(first));
            if (stale) {
                LOG.warn("{}: the recorded blocks from offset {} belong to an earlier topic of the same name (record "
                        + "timestamps differ); ignoring them", e.getKey(), first.kafkaOffset());
            } else if (!blocks.isEmpty()) {
                LOG.info("{}: {} recorded blocks from offset {} to {} are rebuilt before new ones", e.getKey(),
                        blocks.size(), blocks.get(0).firstOffset(), blocks.get(blocks.size() - 1).lastOffset());
            }
        }
    }

    /**
     * The rebuild of the recorded block holding the record's offset, or the partition's open new block. Seals what
     * the record ends: a rebuild whose range it has passed (records are missing: compacted away or now
     * dead-lettered), or a new block that a recorded one must follow.
     */
    @Override
    public TableBlock blockFor(SinkRecord r, TableId routed, TableBlock cached) {
        TopicPartition tp = partitionOf(r);
        BlockManifest m = planner.blockOf(tp, r.kafkaOffset());
        Rebuild prev = rebuilding.get(tp);
        if (prev != null) {
            TableBlock b = buffer.open(prev.key);
            if (b == null || b.manifest() != m) {
                if (b != null && b.isReplay()) {
                    sealRebuilt(b, "offset " + r.kafkaOffset() + " is past it");
                }
                rebuilding.remove(tp);
            } else {
                prev.lastRecordMs = System.currentTimeMillis();
            }
        }
        BlockKey key = BlockKey.of(m != null ? m.table() : routed, tp);
        TableBlock b = buffer.open(key);
        if (b != null && b.manifest() != m) {
            if (b.isReplay()) {
                sealRebuilt(b, "offset " + r.kafkaOffset() + " is past it");
            } else {
                buffer.seal(key); // a new block ends where a recorded one begins
            }
            b = null;
        }
        if (b == null) {
            b = opener.open(key, r.topic());
            if (b == null) {
                return null; // the table does not exist (errors.tolerance=all): the record is reported
            }
            if (m != null) {
                b.replayOf(m);
                rebuilding.put(tp, new Rebuild(key, System.currentTimeMillis()));
                if (!m.table().equals(routed)) {
                    LOG.warn("Rebuilding {} into {} where it was recorded, though {} routes there now", m, m.table(),
                            routed);
                }
            }
        }
        return b;
    }

    /** Every record is looked up again: its partition's recorded ranges decide its block. */
    @Override
    public TableBlock appended(SinkRecord r, TableId routed, TableBlock block) {
        completed(r, routed);
        return null;
    }

    @Override
    public void skipped(SinkRecord r, TableId routed) {
        completed(r, routed);
    }

    /** After a record was appended, dead-lettered or skipped: seals a rebuild it completes, or a full new block. */
    private void completed(SinkRecord r, TableId routed) {
        TopicPartition tp = partitionOf(r);
        BlockManifest m = planner.blockOf(tp, r.kafkaOffset());
        if (m != null) {
            BlockKey key = BlockKey.of(m.table(), tp);
            TableBlock b = buffer.open(key);
            if (b != null && b.isReplay() && r.kafkaOffset() >= m.lastOffset()) {
                sealRebuilt(b, null);
                rebuilding.remove(tp);
            }
            return;
        }
        BlockKey key = BlockKey.of(routed, tp);
        TableBlock b = buffer.open(key);
        if (b != null && !b.isReplay() && buffer.isFull(b)) {
            buffer.seal(key);
        }
    }

    private void sealRebuilt(TableBlock b, String early) {
        BlockManifest m = b.manifest();
        RebuildCheck check = rebuildChecks.get(m.table());
        String problem = b.rows() < m.rows() && check != null ? check.problem(m, b.rows()) : null;
        if (problem != null) {
            throw new ConnectException(problem);
        }
        if (b.rows() != m.rows() || early != null) {
            LOG.warn("Rebuilt {} holds {} of its {} recorded rows{}: records of its range were not redelivered "
                    + "(compacted or deleted) or now went to the dead-letter queue; it is re-sent with its recorded "
                    + "token, so ClickHouse keeps the original if it was inserted", m, b.rows(), m.rows(),
                    early == null ? "" : " (" + early + ")");
        } else {
            LOG.info("Rebuilt {}; re-sending it with its recorded token", m);
        }
        buffer.seal(b.key());
    }

    /** A sealed block is about to be submitted: its composition and token are fixed now (new blocks). */
    @Override
    public void beforeSubmit(TableBlock b) {
        if (b.manifest() == null) {
            TopicPartition tp = b.key().partition();
            b.manifest(BlockManifest.of(connector, b, epochs.getOrDefault(tp, 0L)));
        }
        planner.add(b.manifest());
    }

    /** Insert thread, before each attempt: makes the block's composition durable unless it already is. */
    @Override
    public void beforeAttempt(TableBlock b) {
        BlockManifest m = b.manifest();
        if (m != null && !m.isRecorded()) {
            store().record(m);
            m.markRecorded();
        }
    }

    @Override
    public void verified(TableBlock b) {
        if (b.manifest() != null) {
            planner.verified(b.manifest());
        }
    }

    @Override
    public void revoked(Collection<TopicPartition> partitions) {
        planner.revoked(partitions);
        rebuilding.keySet().removeAll(partitions);
        epochs.keySet().removeAll(partitions);
    }

    /** One insert per table: a partition's blocks land in order (docs/exactly-once.md, I5). */
    @Override
    public int insertsPerTable() {
        return 1;
    }

    @Override
    public void checkTable(TableId table) {
        String engine;
        try {
            engine = store().engine();
        } catch (RuntimeException e) {
            throw new RetriableException("Could not open the exactly-once state table: " + e.getMessage(), e);
        }
        RebuildCheck c = targets.check(table, engine);
        if (c != null) {
            rebuildChecks.put(table, c);
        }
    }

    @Override
    public List<TopicPartition> mustComplete() {
        return rebuilding.isEmpty() ? List.of() : new ArrayList<>(rebuilding.keySet());
    }

    @Override
    public String describe(long nowMs) {
        if (rebuilding.isEmpty()) {
            return "";
        }
        StringBuilder s = new StringBuilder("rebuilding ");
        String sep = "";
        for (Map.Entry<TopicPartition, Rebuild> e : rebuilding.entrySet()) {
            TableBlock b = buffer.open(e.getValue().key);
            if (b == null) {
                continue;
            }
            BlockManifest m = b.manifest();
            s.append(sep).append(e.getKey()).append(" [").append(m.firstOffset()).append("..")
                    .append(m.lastOffset()).append("] ").append(b.rows()).append('/').append(m.rows())
                    .append(" rows, ").append(b.sizeInBytes()).append(" bytes, for ")
                    .append((nowMs - e.getValue().startedMs) / 1000).append(" s, last record ")
                    .append((nowMs - e.getValue().lastRecordMs) / 1000).append(" s ago");
            sep = "; ";
        }
        return s.toString();
    }

    @Override
    public String name() {
        return DeliveryGuarantee.EXACTLY_ONCE.configValue();
    }

    private TopicPartition partitionOf(SinkRecord r) {
        TopicPartition tp = lastTp;
        if (tp == null || tp.partition() != r.kafkaPartition() || !tp.topic().equals(r.topic())) {
            tp = new TopicPartition(r.topic(), r.kafkaPartition());
            lastTp = tp;
        }
        return tp;
    }

    private static long timestampOf(SinkRecord r) {
        return r.timestamp() == null ? 0 : r.timestamp();
    }
}
