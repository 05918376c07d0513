package io.chsink.connect.offset;

import io.chsink.connect.block.TableBlock;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seeks partitions back when the task drops blocks (a table changed under them, or partitions revoked while the
 * task keeps others), so that Connect redelivers their records; and skips, until then, the records of the batch
 * being processed that will come again ({@link RewindTracker}).
 */
public final class Rewinds {
    private static final Logger LOG = LoggerFactory.getLogger(Rewinds.class);

    private final Consumption context;
    private final RewindTracker tracker = new RewindTracker();
    private final HeldPolls held;
    private final RefusedRows refused;

    /** @param held the polls held back: a partition sought back loses its held records (they come again) */
    public Rewinds(Consumption context, HeldPolls held) {
        this(context, held, new RefusedRows(context));
    }

    /**
     * @param refused refused rows waiting to be reported: a seek never passes the first of a partition's, and the
     *     records from the rewind's offset on are no replays of theirs
     */
    public Rewinds(Consumption context, HeldPolls held, RefusedRows refused) {
        this.context = context;
        this.held = held;
        this.refused = refused;
    }

    /** Whether a record of the current batch will come again after a seek asked for: skip it. */
    public boolean skip(SinkRecord r) {
        return tracker.skip(r);
    }

    /**
     * Seeks the partitions of the dropped blocks that {@code keep} allows back to the first offset of their records.
     * Never seeks past an earlier rewind whose records have not come back yet (two blocks of a table in flight can
     * fail one after the other: the second must not skip the first one's records).
     */
    public void rewind(Collection<TableBlock> dropped, Predicate<TopicPartition> keep, String why) {
        Map<TopicPartition, Long> seek = new HashMap<>();
        for (TableBlock b : dropped) {
            for (Map.Entry<TopicPartition, long[]> e : b.offsetRanges().entrySet()) {
                if (keep.test(e.getKey())) {
                    seek.merge(e.getKey(), e.getValue()[0], Math::min);
                }
            }
        }
        if (seek.isEmpty()) {
            return;
        }
        seek(seek, why, true);
    }

    /**
     * Seeks the record's partition back to it: the record cannot be handled yet and comes again with the records
     * after it (logged at DEBUG: it may happen at every poll while the record waits).
     */
    public void rewindTo(SinkRecord r, String why) {
        Map<TopicPartition, Long> seek = new HashMap<>();
        seek.put(Origin.of(r), Origin.offset(r));
        seek(seek, why, false);
    }

    private void seek(Map<TopicPartition, Long> seek, String why, boolean info) {
        tracker.pending().forEach((tp, from) -> seek.computeIfPresent(tp, (k, v) -> Math.min(v, from)));
        refused.rewound(seek);
        Map<TopicPartition, Long> to = new HashMap<>(seek);
        refused.firstRefused().forEach((tp, first) -> to.computeIfPresent(tp, (k, v) -> Math.min(v, first)));
        if (info) {
            LOG.info("Rewinding {} to re-read records: {}", to, why);
        } else {
            LOG.debug("Rewinding {} to re-read records: {}", to, why);
        }
        context.seek(to);
        tracker.requested(seek);
        held.drop(seek.keySet());
    }

    /** The current batch is done: later batches come after Connect's seek. */
    public void batchDone() {
        tracker.batchDone();
    }

    public void revoked(Collection<TopicPartition> partitions) {
        tracker.revoked(partitions);
    }

    /** Per rewound partition, the first offset that is not back in a block yet: nothing from it is committable. */
    public Map<TopicPartition, Long> pending() {
        return tracker.pending();
    }
}
