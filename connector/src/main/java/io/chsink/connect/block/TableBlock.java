package io.chsink.connect.block;

import io.chsink.connect.encoder.NativeBlock;
import io.chsink.connect.mapping.TableMapping;
import io.chsink.connect.schema.TableId;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The rows collected for one table since its last insert, from any number of partitions, with the offset range
 * each partition contributed. The unit of insert, of verification and of offset advance.
 */
public final class TableBlock {
    private final TableId table;
    private final TableMapping mapping;
    private final NativeBlock block;
    private final Map<TopicPartition, long[]> ranges = new HashMap<>();
    private final long createdAtMs;
    private String lastTopic;
    private int lastPartition = -1;
    private long[] lastRange;

    public TableBlock(TableId table, TableMapping mapping, int expectedRows, long nowMs) {
        this(table, mapping, mapping.newBlock(expectedRows), nowMs);
    }

    /** A block on columns already made (and emptied) for {@code mapping}: see {@link BlockRecycler}. */
    TableBlock(TableId table, TableMapping mapping, NativeBlock empty, long nowMs) {
        if (empty.rows() != 0) {
            throw new IllegalArgumentException("a new block must start empty");
        }
        this.table = table;
        this.mapping = mapping;
        this.block = empty;
        this.createdAtMs = nowMs;
    }

    /** Appends the record's row; on a mapping error nothing is added and the exception propagates. */
    public void append(SinkRecord record) {
        mapping.append(record, block);
        long offset = record.kafkaOffset();
        long[] r = lastRange;
        // Consecutive records mostly share a partition: skip the map lookup (and the TopicPartition) then.
        if (r == null || record.kafkaPartition() != lastPartition || !record.topic().equals(lastTopic)) {
            TopicPartition tp = new TopicPartition(record.topic(), record.kafkaPartition());
            r = ranges.get(tp);
            if (r == null) {
                r = new long[] {offset, offset};
                ranges.put(tp, r);
            }
            lastTopic = record.topic();
            lastPartition = record.kafkaPartition();
            lastRange = r;
        }
        r[0] = Math.min(r[0], offset);
        r[1] = Math.max(r[1], offset);
    }

    public TableId table() {
        return table;
    }

    public TableMapping mapping() {
        return mapping;
    }

    public NativeBlock nativeBlock() {
        return block;
    }

    public int rows() {
        return block.rows();
    }

    public long sizeInBytes() {
        return block.sizeInBytes();
    }

    public long createdAtMs() {
        return createdAtMs;
    }

    /** Per partition: {first offset, last offset} of the rows in this block. */
    public Map<TopicPartition, long[]> offsetRanges() {
        return Collections.unmodifiableMap(ranges);
    }

    public boolean contains(TopicPartition tp) {
        return ranges.containsKey(tp);
    }
}
