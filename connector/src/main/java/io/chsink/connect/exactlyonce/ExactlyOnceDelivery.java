package io.chsink.connect.exactlyonce;

import io.chsink.connect.block.BlockBuffer;
import io.chsink.connect.block.BlockKey;
import io.chsink.connect.block.BlockManifest;
import io.chsink.connect.block.TableBlock;
import io.chsink.connect.config.DeliveryGuarantee;
import io.chsink.connect.delivery.BlockOpener;
import io.chsink.connect.delivery.Delivery;
import io.chsink.connect.offset.Consumption;
import io.chsink.connect.offset.Origin;
import io.chsink.connect.schema.TableId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
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
 * memory pressure: {@link #mustComplete()} names the partitions whose consumption must go on until then. What
 * preCommit returns is stored as each partition's handled mark ({@link HandledOffsets}): blocks below it are pruned
 * while the task runs, and records below it that Connect delivers again are dropped ({@link #admit}). Partitions and
 * offsets, in blocks, in the state table and in the handled marks, are the consumer's ({@link Origin}): a transform
 * that renames topics changes the table a record goes to, never the partition its block is recorded under.
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
    /** Per partition, the key of the last new block a record of it went to (its table may change: transforms). */
    private final Map<TopicPartition, BlockKey> lastNewBlock = new HashMap<>();
    /** Per loaded partition, its handled mark and what is prunable below it. */
    private final HandledOffsets handled = new HandledOffsets();
    private final CommittedPast committedPast = new CommittedPast();
    private final Consumption consumption;
    /** Consecutive commits whose marks could not be stored (the first one is logged). */
    private int markFailures;

    /**
     * @param store opens the state table (creating it if needed) on first use, so a task starts while ClickHouse is
     *     down
     * @param targets refuses a table that cannot take exactly_once inserts (throws)
     * @param consumption seeks a partition to check its handled mark against the record there
     */
    public ExactlyOnceDelivery(BlockBuffer buffer, BlockOpener opener, Supplier<? extends RecordedBlocks> store,
            TargetTables targets, String connector, Consumption consumption) {
        this.buffer = buffer;
        this.consumption = consumption;
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

    /**
     * Loads what the state table holds for partitions whose first record since the task got it is in this batch,
     * and drops the records below a partition's handled mark ({@link HandledOffsets}): written before, redelivered
     * because Connect's commit of the mark failed or had not happened. Returns the records to go on with (the batch
     * itself when none is dropped).
     */
    @Override
    public Collection<SinkRecord> admit(Collection<SinkRecord> records) {
        List<SinkRecord> kept = null; // a copy, once a record is dropped
        Map<TopicPartition, Long> seeks = null;
        int seen = 0;
        for (SinkRecord r : records) {
            TopicPartition tp = partitionOf(r);
            HandledOffsets.Decision d = HandledOffsets.Decision.KEEP;
            if (!handled.keepsFrom(tp, Origin.offset(r))) {
                HandledOffsets.Outcome o = handled.isLoaded(tp) ? handled.next(tp, Origin.offset(r), timestampOf(r))
                        : load(tp, r);
                d = o.decision();
                if (o.log() != null) {
                    if (o.warn()) {
                        LOG.warn("{}", o.log());
                    } else {
                        LOG.info("{}", o.log());
                    }
                }
                if (o.stale()) {
                    forget(tp, "the handled mark");
                }
                if (o.seekTo() >= 0) {
                    if (seeks == null) {
                        seeks = new HashMap<>();
                    }
                    seeks.put(tp, o.seekTo());
                }
            }
            if (d == HandledOffsets.Decision.DROP && kept == null) {
                kept = new ArrayList<>(records.size());
                Iterator<SinkRecord> before = records.iterator();
                for (int i = 0; i < seen; i++) {
                    kept.add(before.next());
                }
            }
            if (kept != null && d == HandledOffsets.Decision.KEEP) {
                kept.add(r);
            }
            seen++;
        }
        handled.batchDone();
        if (seeks != null) {
            LOG.info("Seeking {} to check the handled marks against the records there", seeks);
            consumption.seek(seeks);
        }
        return kept == null ? records : kept;
    }

    /** The partition's first record since the task got it: what the state table holds for it, and its mark's verdict. */
    private HandledOffsets.Outcome load(TopicPartition tp, SinkRecord first) {
        RecordedPartition state;
        try {
            state = store().load(tp, Origin.offset(first));
        } catch (RuntimeException ex) {
            throw new RetriableException("Could not read the recorded blocks of " + tp
                    + " from the exactly-once state table: " + ex.getMessage(), ex);
        }
        epochs.put(tp, state.epoch());
        List<BlockManifest> blocks = state.blocks();
        boolean stale = planner.loaded(tp, blocks, Origin.offset(first), timestampOf(first));
        if (stale) {
            LOG.warn("{}: the recorded blocks from offset {} belong to an earlier topic of the same name (record "
                    + "timestamps differ); ignoring them", tp, Origin.offset(first));
            blocks = List.of();
        }
        HandledOffsets.Outcome o = handled.first(tp, state.mark(), state.blocksBelow(), blocks, Origin.offset(first),
                timestampOf(first));
        if (stale) {
            forget(tp, "the recorded blocks");
        }
        List<BlockManifest> rebuilt = new ArrayList<>();
        for (BlockManifest b : blocks) {
            if (b.lastOffset() >= state.mark().below()) { // below a mark that holds: never redelivered to a block
                rebuilt.add(b);
            }
        }
        if (!rebuilt.isEmpty() && !o.stale()) {
            LOG.info("{}: {} recorded blocks from offset {} to {} are rebuilt before new ones", tp, rebuilt.size(),
                    rebuilt.get(0).firstOffset(), rebuilt.get(rebuilt.size() - 1).lastOffset());
        }
        return o;
    }

    /**
     * The partition's recorded blocks are of an earlier log of the same name (the topic was re-created): none is
     * rebuilt, and they are deleted from the state table now, before this log's first block is recorded, so that no
     * later owner takes them for blocks of this log. A failed delete is logged; this task ignores them all the same.
     */
    private void forget(TopicPartition tp, String what) {
        planner.forget(tp);
        Map<TopicPartition, Long> all = Map.of(tp, Long.MAX_VALUE);
        try {
            store().prune(all);
            handled.pruned(all);
        } catch (RuntimeException e) {
            LOG.warn("{}: could not delete the recorded blocks of the earlier topic of the same name ({} did not hold)"
                    + " from the exactly-once state table: {}", tp, what, e.getMessage());
        }
    }

    /**
     * preCommit is about to return these offsets: every record below them is handled. When that makes a prune due
     * ({@link HandledOffsets#toStore}), stores them as the partitions' handled marks, before Connect is given them,
     * then deletes the blocks below. A failure leaves the old marks (pruning waits) and is logged: the offsets are
     * committed all the same.
     */
    @Override
    public void committing(Map<TopicPartition, OffsetAndMetadata> offsets) {
        Map<TopicPartition, Long> committable = new HashMap<>();
        offsets.forEach((tp, o) -> {
            committable.put(tp, o.offset());
            committedPast.committing(tp, o.offset());
        });
        Map<TopicPartition, HandledOffsets.Mark> marks = handled.toStore(committable);
        Map<TopicPartition, Long> prune = Map.of();
        try {
            store().storeMarks(marks);
            marks.forEach(handled::stored);
            prune = handled.toPrune();
            store().prune(prune);
            handled.pruned(prune);
            markFailures = 0;
        } catch (RuntimeException e) {
            if (markFailures++ == 0) {
                LOG.warn("Could not store the handled marks of {} in the exactly-once state table (recorded blocks "
                        + "are pruned once it can): {}", marks.isEmpty() ? prune.keySet() : marks.keySet(),
                        e.getMessage());
            }
        }
    }

    /** Partitions whose handled mark is being checked: nothing beyond where Connect started them is committable. */
    @Override
    public Map<TopicPartition, Long> uncommittable() {
        return handled.unsettled();
    }

    /**
     * The rebuild of the recorded block holding the record's offset, or the partition's open new block. Seals what
     * the record ends: a rebuild whose range it has passed (records are missing: compacted away or now
     * dead-lettered), or a new block that a recorded one must follow.
     */
    @Override
    public TableBlock blockFor(SinkRecord r, TableId routed, TableBlock cached) {
        TopicPartition tp = partitionOf(r);
        BlockManifest m = planner.blockOf(tp, Origin.offset(r));
        Rebuild prev = rebuilding.get(tp);
        if (prev != null) {
            TableBlock b = buffer.open(prev.key);
            if (b == null || b.manifest() != m) {
                if (b != null && b.isReplay()) {
                    sealRebuilt(b, "offset " + Origin.offset(r) + " is past it");
                }
                rebuilding.remove(tp);
            } else {
                prev.lastRecordMs = System.currentTimeMillis();
            }
        }
        BlockKey key = BlockKey.of(m != null ? m.table() : routed, tp);
        if (m == null) {
            endOtherTablesBlock(tp, key);
        }
        TableBlock b = buffer.open(key);
        if (b != null && b.manifest() != m) {
            if (b.isReplay()) {
                sealRebuilt(b, "offset " + Origin.offset(r) + " is past it");
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

    /**
     * A partition's blocks must cover consecutive ranges of its offsets, so that a rebuild finds each record's block by
     * its offset alone. A transform can route one partition's records to several tables (TimestampRouter at a day's
     * end, a router reading the value): a record for another table than the partition's open new block ends that
     * block first.
     */
    private void endOtherTablesBlock(TopicPartition tp, BlockKey key) {
        BlockKey last = lastNewBlock.put(tp, key);
        if (last != null && !last.equals(key)) {
            TableBlock open = buffer.open(last);
            if (open != null && !open.isReplay()) {
                buffer.seal(last);
            }
        }
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
        BlockManifest m = planner.blockOf(tp, Origin.offset(r));
        if (m != null) {
            BlockKey key = BlockKey.of(m.table(), tp);
            TableBlock b = buffer.open(key);
            if (b != null && b.isReplay() && Origin.offset(r) >= m.lastOffset()) {
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
            handled.recorded(b.manifest());
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
            handled.verified(b.manifest());
            committedPast.verified(b.manifest());
        }
    }

    @Override
    public long commitBound(TopicPartition tp, long offset) {
        BlockManifest m = planner.blockOf(tp, offset);
        return m != null && m.firstOffset() < offset ? m.firstOffset() : committedPast.bound(tp, offset);
    }

    @Override
    public long refusedHoldFrom(TableBlock b, TopicPartition tp, long offset) {
        return b.offsetRanges().get(tp)[0];
    }

    @Override
    public void revoked(Collection<TopicPartition> partitions) {
        planner.revoked(partitions);
        handled.revoked(partitions);
        committedPast.revoked(partitions);
        rebuilding.keySet().removeAll(partitions);
        epochs.keySet().removeAll(partitions);
        lastNewBlock.keySet().removeAll(partitions);
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
        if (!Origin.in(r, tp)) {
            tp = Origin.of(r);
            lastTp = tp;
        }
        return tp;
    }

    private static long timestampOf(SinkRecord r) {
        return r.timestamp() == null ? 0 : r.timestamp();
    }
}
