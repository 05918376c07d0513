package io.chsink.connect.block;

import io.chsink.connect.encoder.NativeBlock;
import io.chsink.connect.mapping.TableMapping;
import io.chsink.connect.offset.Origin;
import io.chsink.connect.schema.TableId;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The rows collected for one table since its last insert, from any number of partitions, with the offset range
 * each partition contributed (the consumer's partitions and offsets: {@link Origin}). The unit of insert, of verification and of offset advance.
 */
public final class TableBlock {
    private final BlockKey key;
    private final TableId table;
    private final TableMapping mapping;
    private final NativeBlock block;
    private final Map<TopicPartition, long[]> ranges = new HashMap<>();
    private final long createdAtMs;
    private String lastTopic;
    private int lastPartition = -1;
    private long[] lastRange;
    private TopicPartition lastTp;
    /** What a row's coordinates take: a reference in {@link #rowPartitions} and a long in {@link #rowOffsets}. */
    private static final long ROW_COORDINATE_BYTES = 12;
    /**
     * Per row, where its record was read (12 bytes a row): a block ClickHouse refuses for some of its rows is narrowed
     * down to them, and each refused row is reported by its record's coordinates.
     */
    private TopicPartition[] rowPartitions;
    private long[] rowOffsets;
    private long firstTimestamp = -1;
    /** exactly_once: the recorded composition and token, once known; set before the block is inserted. */
    private volatile BlockManifest manifest;
    private boolean replay;

    public TableBlock(TableId table, TableMapping mapping, int expectedRows, long nowMs) {
        this(BlockKey.of(table), mapping, expectedRows, nowMs);
    }

    public TableBlock(BlockKey key, TableMapping mapping, int expectedRows, long nowMs) {
        this(key, mapping, mapping.newBlock(expectedRows), nowMs);
    }

    /** A block on columns already made (and emptied) for {@code mapping}: see {@link BlockRecycler}. */
    TableBlock(BlockKey key, TableMapping mapping, NativeBlock empty, long nowMs) {
        if (empty.rows() != 0) {
            throw new IllegalArgumentException("a new block must start empty");
        }
        this.key = key;
        this.table = key.table();
        this.mapping = mapping;
        this.block = empty;
        this.createdAtMs = nowMs;
        this.rowPartitions = new TopicPartition[256];
        this.rowOffsets = new long[256];
    }

    /** Appends the record's row; on a mapping error nothing is added and the exception propagates. */
    public void append(SinkRecord record) {
        mapping.append(record, block);
        if (firstTimestamp < 0 && block.rows() == 1) {
            firstTimestamp = record.timestamp() == null ? 0 : record.timestamp();
        }
        // Offsets are the consumer's (Origin): Connect commits those, whatever the transforms did to the record.
        long offset = Origin.offset(record);
        int partition = Origin.partition(record);
        String topic = Origin.topic(record);
        long[] r = lastRange;
        // Consecutive records mostly share a partition: skip the map lookup (and the TopicPartition) then.
        if (r == null || partition != lastPartition || !topic.equals(lastTopic)) {
            TopicPartition tp = new TopicPartition(topic, partition);
            r = ranges.get(tp);
            if (r == null) {
                r = new long[] {offset, offset};
                ranges.put(tp, r);
            }
            lastTopic = topic;
            lastPartition = partition;
            lastRange = r;
            lastTp = tp;
        }
        r[0] = Math.min(r[0], offset);
        r[1] = Math.max(r[1], offset);
        int row = block.rows() - 1;
        if (row == rowOffsets.length) {
            int n = rowOffsets.length * 2;
            rowOffsets = java.util.Arrays.copyOf(rowOffsets, n);
            rowPartitions = java.util.Arrays.copyOf(rowPartitions, n);
        }
        rowOffsets[row] = offset;
        rowPartitions[row] = lastTp;
    }

    /** The consumer partition of row {@code row}'s record (rows from 0, in insert order). */
    public TopicPartition rowPartition(int row) {
        checkRow(row);
        return rowPartitions[row];
    }

    /** The consumer offset of row {@code row}'s record. */
    public long rowOffset(int row) {
        checkRow(row);
        return rowOffsets[row];
    }

    private void checkRow(int row) {
        if (row < 0 || row >= block.rows()) {
            throw new IndexOutOfBoundsException("row " + row + " of a block of " + block.rows());
        }
    }

    public BlockKey key() {
        return key;
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

    /** The encoded bytes of its rows: what flush.max.bytes seals at, and what an insert sends. */
    public long sizeInBytes() {
        return block.sizeInBytes();
    }

    /**
     * What the block holds in memory, as buffer.max.bytes counts it: its encoded bytes and the Kafka coordinates
     * kept for each row it has room for (12 bytes a row).
     */
    public long heldBytes() {
        return block.sizeInBytes() + ROW_COORDINATE_BYTES * rowOffsets.length;
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

    /** Kafka timestamp of the first row's record (0 when it had none), or -1 while the block is empty. */
    public long firstTimestamp() {
        return firstTimestamp;
    }

    /** exactly_once: the block's recorded composition and token, or null (at_least_once, or not yet sealed). */
    public BlockManifest manifest() {
        return manifest;
    }

    public void manifest(BlockManifest m) {
        this.manifest = m;
    }

    /** Marks the block as the rebuild of a recorded one: only its owner seals it, when its range is complete. */
    public void replayOf(BlockManifest m) {
        this.manifest = m;
        this.replay = true;
    }

    public boolean isReplay() {
        return replay;
    }
}
