package io.chsink.connect.offset;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.chsink.connect.block.TableBlock;
import io.chsink.connect.mapping.TableMapping;
import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.TableColumn;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class OffsetTrackerTest {
    private static final TopicPartition P0 = new TopicPartition("t", 0);
    private static final TopicPartition P1 = new TopicPartition("t", 1);
    private static final TableId TABLE = new TableId("db", "t");
    private static final TableMapping MAPPING = new TableMapping(new TableSchema(TABLE,
            Collections.singletonList(new TableColumn("a", ClickHouseType.parse("Int64"), TableColumn.DefaultKind.NONE))));

    private static TableBlock block(long[][] partitionOffsets) {
        TableBlock b = new TableBlock(TABLE, MAPPING, 4, 0);
        for (long[] po : partitionOffsets) {
            Map<String, Object> v = new HashMap<>();
            v.put("a", po[1]);
            b.append(new SinkRecord("t", (int) po[0], null, null, null, v, po[1]));
        }
        return b;
    }

    @Test
    void commitsUpToTheFirstUnverifiedRowOfEachPartition() {
        Map<TopicPartition, OffsetAndMetadata> consumed = new HashMap<>();
        consumed.put(P0, new OffsetAndMetadata(100));
        consumed.put(P1, new OffsetAndMetadata(50));
        TableBlock pending = block(new long[][] {{0, 90}, {0, 91}, {0, 95}});
        Map<TopicPartition, OffsetAndMetadata> out = OffsetTracker.committable(consumed, Arrays.asList(pending), Collections.emptyMap());
        assertEquals(90, out.get(P0).offset());
        assertEquals(50, out.get(P1).offset(), "nothing pending: everything consumed is done");
    }

    @Test
    void takesTheEarliestAcrossSeveralPendingBlocks() {
        Map<TopicPartition, OffsetAndMetadata> consumed = new HashMap<>();
        consumed.put(P0, new OffsetAndMetadata(300));
        consumed.put(P1, new OffsetAndMetadata(300));
        TableBlock inFlight = block(new long[][] {{0, 120}, {1, 7}});
        TableBlock open = block(new long[][] {{0, 200}, {1, 3}});
        Map<TopicPartition, OffsetAndMetadata> out = OffsetTracker.committable(consumed, Arrays.asList(open, inFlight), Collections.emptyMap());
        assertEquals(120, out.get(P0).offset());
        assertEquals(3, out.get(P1).offset());
    }
}
