package io.chsink.connect.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.block.BlockBuffer;
import io.chsink.connect.block.BlockKey;
import io.chsink.connect.block.TableBlock;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.testing.TestTables;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class AtLeastOnceDeliveryTest {
    private static final TableId T = new TableId("db", "t");

    private final BlockBuffer buffer = new BlockBuffer(3, 1 << 20, 60_000);
    private int opened;
    private final BlockOpener opener = (key, topic) -> {
        TableBlock b = buffer.open(key);
        if (b == null) {
            opened++;
            b = new TableBlock(key, TestTables.mapping(key.table()), 4, 0);
            buffer.putOpen(b);
        }
        return b;
    };
    private final AtLeastOnceDelivery delivery = new AtLeastOnceDelivery(buffer, opener);

    private TableBlock put(SinkRecord r, TableBlock cached) {
        TableBlock b = delivery.blockFor(r, T, cached);
        b.append(r);
        return delivery.appended(r, T, b);
    }

    @Test
    void onePerTableBlockSpansPartitionsAndIsSealedWhenFull() {
        TableBlock cached = put(TestTables.record("a", 0, 10), null);
        assertSame(buffer.open(BlockKey.of(T)), cached, "the next record of the topic goes to the same block");
        cached = put(TestTables.record("a", 1, 5), cached);
        assertEquals(1, opened);
        cached = put(TestTables.record("a", 0, 11), cached);
        assertNull(cached, "the third row fills the block (flush.max.rows=3): sealed, nothing to reuse");
        assertNull(buffer.open(BlockKey.of(T)));
        List<TableBlock> sealed = buffer.takeSealed(t -> true);
        assertEquals(1, sealed.size());
        TableBlock b = sealed.get(0);
        assertEquals(3, b.rows());
        assertEquals(2, b.offsetRanges().size());
        assertEquals(10, b.offsetRanges().get(new TopicPartition("a", 0))[0]);
        assertEquals(11, b.offsetRanges().get(new TopicPartition("a", 0))[1]);
        delivery.beforeSubmit(b);
        assertNull(b.manifest(), "at_least_once blocks carry no token");
        put(TestTables.record("a", 0, 12), null);
        assertEquals(2, opened, "a new block after the full one");
    }

    @Test
    void nothingMustCompleteAndTwoInsertsPerTable() {
        put(TestTables.record("a", 0, 1), null);
        assertTrue(delivery.mustComplete().isEmpty());
        assertEquals(2, delivery.insertsPerTable());
        assertEquals("at_least_once", delivery.name());
    }
}
