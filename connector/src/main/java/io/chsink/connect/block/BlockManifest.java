package io.chsink.connect.block;

import io.chsink.connect.schema.TableId;
import java.util.Objects;
import org.apache.kafka.common.TopicPartition;

/**
 * exactly_once: the composition of one block, recorded in ClickHouse before the block is inserted: its table, its
 * partition's offset range (first and last offset of its rows), how many rows it had and the Kafka timestamp of
 * its first row's record. The deduplication token is derived from these, so a block rebuilt from the same
 * records carries the same token.
 */
public final class BlockManifest {
    private final TableId table;
    private final TopicPartition partition;
    private final long firstOffset;
    private final long lastOffset;
    private final int rows;
    private final long firstTimestamp;
    private final String token;
    private volatile boolean recorded;

    public BlockManifest(TableId table, TopicPartition partition, long firstOffset, long lastOffset, int rows,
            long firstTimestamp, String token) {
        this.table = Objects.requireNonNull(table, "table");
        this.partition = Objects.requireNonNull(partition, "partition");
        this.firstOffset = firstOffset;
        this.lastOffset = lastOffset;
        this.rows = rows;
        this.firstTimestamp = firstTimestamp;
        this.token = Objects.requireNonNull(token, "token");
    }

    /** The composition of a sealed exactly_once block (one partition), with a token derived from it (epoch 0). */
    public static BlockManifest of(String connector, TableBlock b) {
        return of(connector, b, 0);
    }

    /**
     * The composition of a sealed exactly_once block (one partition), with a token derived from it and from its
     * partition's epoch ({@code StateStore.epoch}): 0 until the partition's offsets are first altered or reset
     * through Connect's REST API, a larger number after each such change, so that records consumed again after it
     * are not taken for duplicates of their earlier insert.
     */
    public static BlockManifest of(String connector, TableBlock b, long epoch) {
        if (b.offsetRanges().size() != 1) {
            throw new IllegalStateException("an exactly_once block holds one partition, not " + b.offsetRanges().keySet());
        }
        TopicPartition tp = b.offsetRanges().keySet().iterator().next();
        long[] r = b.offsetRanges().get(tp);
        return new BlockManifest(b.table(), tp, r[0], r[1], b.rows(), b.firstTimestamp(),
                token(connector, tp, r[0], r[1], b.firstTimestamp(), epoch));
    }

    /**
     * {@code connector/topic/partition/first-last/timestamp}: the same records give the same token, and a topic
     * re-created under the same name (offsets from 0 again) gives other tokens through its records' timestamps.
     */
    public static String token(String connector, TopicPartition tp, long first, long last, long firstTimestamp) {
        return "chsink/" + connector + "/" + tp.topic() + "/" + tp.partition() + "/" + first + "-" + last + "/"
                + firstTimestamp;
    }

    /**
     * The token of epoch 0 as above (what every block had before epochs existed, so recorded blocks keep
     * matching); from epoch 1 on, {@code /e<epoch>} is appended. The last segment of an epoch-0 token is a number,
     * never {@code e...}, so no token of one epoch equals a token of another.
     */
    public static String token(String connector, TopicPartition tp, long first, long last, long firstTimestamp,
            long epoch) {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch " + epoch + " < 0");
        }
        String t = token(connector, tp, first, last, firstTimestamp);
        return epoch == 0 ? t : t + "/e" + epoch;
    }

    public TableId table() {
        return table;
    }

    public TopicPartition partition() {
        return partition;
    }

    public long firstOffset() {
        return firstOffset;
    }

    public long lastOffset() {
        return lastOffset;
    }

    public int rows() {
        return rows;
    }

    public long firstTimestamp() {
        return firstTimestamp;
    }

    public String token() {
        return token;
    }

    public boolean contains(long offset) {
        return offset >= firstOffset && offset <= lastOffset;
    }

    /** Whether the manifest is durably in the state table (set by the insert thread, read by the task). */
    public boolean isRecorded() {
        return recorded;
    }

    public BlockManifest markRecorded() {
        recorded = true;
        return this;
    }

    @Override
    public String toString() {
        return table + " <- " + partition + " [" + firstOffset + ".." + lastOffset + "] " + rows + " rows";
    }
}
