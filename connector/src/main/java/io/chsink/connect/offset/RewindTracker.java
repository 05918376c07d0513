package io.chsink.connect.offset;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Partitions the task sought back (context.offset) to re-read the records of blocks it dropped. Connect seeks at
 * its next poll, so records of the batch being processed at or after the rewind point come again and must be
 * skipped; and until a record of the partition arrives after the seek, nothing at or after the rewind point may
 * be committed. Partitions and offsets are the consumer's ({@link Origin}): those are the ones Connect seeks.
 */
public final class RewindTracker {
    private final Map<TopicPartition, Long> pending = new HashMap<>();
    private final Set<TopicPartition> inCurrentBatch = new HashSet<>();

    /** Records rewinds asked for while a batch is being processed (or between batches). */
    public void requested(Map<TopicPartition, Long> to) {
        for (Map.Entry<TopicPartition, Long> e : to.entrySet()) {
            pending.merge(e.getKey(), e.getValue(), Math::min);
            inCurrentBatch.add(e.getKey());
        }
    }

    /** Whether a record of the current batch is one that will come again after the seek. */
    public boolean skip(SinkRecord r) {
        if (pending.isEmpty()) {
            return false;
        }
        TopicPartition tp = Origin.of(r);
        Long from = pending.get(tp);
        if (from == null) {
            return false;
        }
        if (inCurrentBatch.contains(tp)) {
            return Origin.offset(r) >= from;
        }
        pending.remove(tp); // a record of a later batch: the seek is done, the record is back in a block
        return false;
    }

    /** The current batch is done: later batches come after Connect's seek. */
    public void batchDone() {
        inCurrentBatch.clear();
    }

    public void revoked(Collection<TopicPartition> partitions) {
        pending.keySet().removeAll(partitions);
        inCurrentBatch.removeAll(partitions);
    }

    /** Per rewound partition, the first offset that is not back in a block yet. */
    public Map<TopicPartition, Long> pending() {
        return Collections.unmodifiableMap(pending);
    }
}
