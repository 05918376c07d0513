package io.chsink.connect.offset;

import io.chsink.connect.block.TableBlock;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Decides which offsets are safe to commit. A partition's offset may advance to the first offset of its
 * earliest row that is not yet verified in ClickHouse; a partition with no such row may advance to everything
 * consumed (records that were skipped or sent to the dead-letter queue included).
 */
public final class OffsetTracker {
    private OffsetTracker() {
    }

    /**
     * @param consumed the offsets Connect has handed to the task (preCommit's argument)
     * @param pending every block not yet verified: open, in flight or failed
     * @param rewinds partitions sought back to re-read the records of dropped blocks, with the first offset to
     *     re-read: until those records are back in a block, nothing at or after it is committable
     */
    public static Map<TopicPartition, OffsetAndMetadata> committable(
            Map<TopicPartition, OffsetAndMetadata> consumed, Collection<TableBlock> pending,
            Map<TopicPartition, Long> rewinds) {
        Map<TopicPartition, Long> firstPending = new HashMap<>(rewinds);
        for (TableBlock b : pending) {
            for (Map.Entry<TopicPartition, long[]> e : b.offsetRanges().entrySet()) {
                firstPending.merge(e.getKey(), e.getValue()[0], Math::min);
            }
        }
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : consumed.entrySet()) {
            Long first = firstPending.get(e.getKey());
            long safe = first == null ? e.getValue().offset() : Math.min(first, e.getValue().offset());
            out.put(e.getKey(), new OffsetAndMetadata(safe));
        }
        return out;
    }
}
