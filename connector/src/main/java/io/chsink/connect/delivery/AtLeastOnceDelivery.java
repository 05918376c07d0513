package io.chsink.connect.delivery;

import io.chsink.connect.block.BlockBuffer;
import io.chsink.connect.block.BlockKey;
import io.chsink.connect.block.TableBlock;
import io.chsink.connect.config.DeliveryGuarantee;
import io.chsink.connect.schema.TableId;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * at_least_once: one open block per table collects the records of every partition routed to it; a full block is
 * sealed at once. Offsets advance only past verified blocks; a crash may insert a block twice.
 */
public final class AtLeastOnceDelivery implements Delivery {
    /**
     * Inserts of one table in flight together, so that the server parses one block while it receives the next
     * (offsets still advance only past verified blocks, in any completion order).
     */
    static final int INSERTS_PER_TABLE = 2;

    private final BlockBuffer buffer;
    private final BlockOpener opener;

    public AtLeastOnceDelivery(BlockBuffer buffer, BlockOpener opener) {
        this.buffer = buffer;
        this.opener = opener;
    }

    @Override
    public Collection<SinkRecord> admit(Collection<SinkRecord> records) {
        return records;
    }

    @Override
    public Map<TopicPartition, Long> uncommittable() {
        return Map.of();
    }

    @Override
    public void committing(Map<TopicPartition, OffsetAndMetadata> offsets) {
    }

    @Override
    public TableBlock blockFor(SinkRecord r, TableId routed, TableBlock cached) {
        return cached != null ? cached : opener.open(BlockKey.of(routed), r.topic());
    }

    @Override
    public TableBlock appended(SinkRecord r, TableId routed, TableBlock block) {
        if (buffer.isFull(block)) {
            buffer.seal(block.key());
            return null;
        }
        return block;
    }

    @Override
    public void skipped(SinkRecord r, TableId routed) {
    }

    @Override
    public void beforeSubmit(TableBlock b) {
    }

    @Override
    public void beforeAttempt(TableBlock b) {
    }

    @Override
    public void verified(TableBlock b) {
    }

    @Override
    public long commitBound(TopicPartition tp, long offset) {
        return offset;
    }

    @Override
    public long refusedHoldFrom(TableBlock b, TopicPartition tp, long offset) {
        return offset;
    }

    @Override
    public void revoked(Collection<TopicPartition> partitions) {
    }

    @Override
    public int insertsPerTable() {
        return INSERTS_PER_TABLE;
    }

    @Override
    public void checkTable(TableId table) {
    }

    @Override
    public List<TopicPartition> mustComplete() {
        return List.of();
    }

    @Override
    public String describe(long nowMs) {
        return "";
    }

    @Override
    public String name() {
        return DeliveryGuarantee.AT_LEAST_ONCE.configValue();
    }
}
