package io.chsink.connect.exactlyonce;

import io.chsink.connect.block.BlockBuffer;
import io.chsink.connect.block.BlockKey;
import io.chsink.connect.block.BlockManifest;
import io.chsink.connect.block.TableBlock;
import io.chsink.connect.schema.TableId;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task's side of the exactly_once protocol (docs/exactly-once.md): blocks hold one partition's records; a
 * block's composition and token are recorded before its insert; a partition's recorded blocks that may not be
 * committed are rebuilt from the redelivered records, with the same rows in the same order and the same token,
 * before any new block of that partition.
 *
 * <p>The task thread calls everything but {@link #record}, which the insert thread calls before each attempt.
 */
public final class ExactlyOnceBlocks {
    private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceBlocks.class);

    /**
     * Opens (and puts in the buffer) a new block for a key: the task's job, it owns the table mappings. Null when
     * the table does not exist and errors are tolerated.
     */
    public interface BlockOpener {
        TableBlock open(BlockKey key, String topic);
    }

    private final java.util.function.Supplier<StateStore> opener;
    private StateStore store;
    private final String connector;
    private final ReplayPlanner planner = new ReplayPlanner();
    /** Per partition, the key of the block being rebuilt, if any. */
    private final Map<TopicPartition, BlockKey> rebuilding = new HashMap<>();
    /** TEMP wiring for epoch: per partition, its epoch (StateStore.epoch), read when its blocks are loaded. */
    private final Map<TopicPartition, Long> epochs = new HashMap<>();
    private TopicPartition lastTp;

    /** @param store opens the state table (creating it if needed) on first use, so a task starts while ClickHouse is down */
    public ExactlyOnceBlocks(java.util.function.Supplier<StateStore> store, String connector) {
        this.opener = store;
        this.connector = connector;
    }

    private synchronized StateStore store() {
        if (store == null) {
            store = opener.get();
        }
        return store;
    }

    /** Loads the recorded blocks of partitions whose first record since the task got them is in this batch. */
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
     * The block a record goes to: the rebuild of the recorded block holding its offset, or the partition's open
     * new block. Seals what the record ends: a rebuild whose range it has passed (records are missing: compacted
     * away or now dead-lettered), or a new block that a recorded one must follow.
     */
    public TableBlock blockFor(SinkRecord r, TableId routed, BlockBuffer buffer, BlockOpener opener) {
        TopicPartition tp = partitionOf(r);
        BlockManifest m = planner.blockOf(tp, r.kafkaOffset());
        BlockKey prevKey = rebuilding.get(tp);
        if (prevKey != null) {
            TableBlock prev = buffer.open(prevKey);
            if (prev == null || prev.manifest() != m) {
                if (prev != null && prev.isReplay()) {
                    sealRebuilt(buffer, prev, "offset " + r.kafkaOffset() + " is past it");
                }
                rebuilding.remove(tp);
            }
        }
        BlockKey key = BlockKey.of(m != null ? m.table() : routed, tp);
        TableBlock b = buffer.open(key);
        if (b != null && b.manifest() != m) {
            if (b.isReplay()) {
                sealRebuilt(buffer, b, "offset " + r.kafkaOffset() + " is past it");
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
                rebuilding.put(tp, key);
                if (!m.table().equals(routed)) {
                    LOG.warn("Rebuilding {} into {} where it was recorded, though {} routes there now", m, m.table(),
                            routed);
                }
            }
        }
        return b;
    }

    /** After a record was appended, dead-lettered or skipped: seals a rebuild it completes, or a full new block. */
    public void after(SinkRecord r, TableId routed, BlockBuffer buffer) {
        TopicPartition tp = partitionOf(r);
        BlockManifest m = planner.blockOf(tp, r.kafkaOffset());
        if (m != null) {
            BlockKey key = BlockKey.of(m.table(), tp);
            TableBlock b = buffer.open(key);
            if (b != null && b.isReplay() && r.kafkaOffset() >= m.lastOffset()) {
                sealRebuilt(buffer, b, null);
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

    private static void sealRebuilt(BlockBuffer buffer, TableBlock b, String early) {
        BlockManifest m = b.manifest();
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
    public void beforeSubmit(TableBlock b) {
        if (b.manifest() == null) {
            TopicPartition tp = b.offsetRanges().keySet().iterator().next();
            b.manifest(BlockManifest.of(connector, b, epochs.getOrDefault(tp, 0L)));
        }
        planner.add(b.manifest());
    }

    /** Insert thread, before each attempt: makes the block's composition durable unless it already is. */
    public void record(TableBlock b) {
        BlockManifest m = b.manifest();
        if (m != null && !m.isRecorded()) {
            store().record(m);
            m.markRecorded();
        }
    }

    public void verified(TableBlock b) {
        if (b.manifest() != null) {
            planner.verified(b.manifest());
        }
    }

    public void revoked(Collection<TopicPartition> partitions) {
        planner.revoked(partitions);
        rebuilding.keySet().removeAll(partitions);
        epochs.keySet().removeAll(partitions);
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
