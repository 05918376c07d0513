package io.chsink.connect.block;

import io.chsink.connect.schema.TableId;
import java.util.Objects;
import org.apache.kafka.common.TopicPartition;

/**
 * What an open block collects: the records of one table (at_least_once: from every partition routed to it), or
 * of one table and one Kafka partition (exactly_once: a block must be rebuildable by whichever task owns the
 * partition next).
 */
public final class BlockKey {
    private final TableId table;
    private final TopicPartition partition;

    private BlockKey(TableId table, TopicPartition partition) {
        this.table = Objects.requireNonNull(table, "table");
        this.partition = partition;
    }

    public static BlockKey of(TableId table) {
        return new BlockKey(table, null);
    }

    public static BlockKey of(TableId table, TopicPartition partition) {
        return new BlockKey(table, Objects.requireNonNull(partition, "partition"));
    }

    public TableId table() {
        return table;
    }

    /** The one partition the block collects, or null for a block of every partition. */
    public TopicPartition partition() {
        return partition;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof BlockKey)) {
            return false;
        }
        BlockKey k = (BlockKey) o;
        return table.equals(k.table) && Objects.equals(partition, k.partition);
    }

    @Override
    public int hashCode() {
        return table.hashCode() * 31 + Objects.hashCode(partition);
    }

    @Override
    public String toString() {
        return partition == null ? table.toString() : table + " <- " + partition;
    }
}
