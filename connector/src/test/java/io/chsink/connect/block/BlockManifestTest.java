package io.chsink.connect.block;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.chsink.connect.mapping.TableMapping;
import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.TableColumn;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import java.util.Collections;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class BlockManifestTest {
    private static final TopicPartition TP = new TopicPartition("events", 3);

    /** A block of partition events-3 with offsets 10..12, its first record stamped 1700000000000. */
    private static TableBlock block() {
        TableId t = new TableId("db", "events");
        TableMapping m = new TableMapping(new TableSchema(t, Collections.singletonList(
                new TableColumn("x", ClickHouseType.parse("Int64"), TableColumn.DefaultKind.NONE))));
        TableBlock b = new TableBlock(BlockKey.of(t, TP), m, 4, 0);
        for (long o = 10; o <= 12; o++) {
            b.append(new SinkRecord("events", 3, null, null, null, Collections.singletonMap("x", o), o,
                    1_700_000_000_000L + o - 10, TimestampType.CREATE_TIME));
        }
        return b;
    }

    @Test
    void epochZeroTokenIsTheTokenOfBeforeEpochs() {
        String before = "chsink/sink/events/3/10-12/1700000000000"; // the format recorded blocks already carry
        assertEquals(before, BlockManifest.token("sink", TP, 10, 12, 1_700_000_000_000L));
        assertEquals(before, BlockManifest.token("sink", TP, 10, 12, 1_700_000_000_000L, 0));
        assertEquals(before, BlockManifest.of("sink", block()).token());
        assertEquals(before, BlockManifest.of("sink", block(), 0).token());
    }

    @Test
    void laterEpochsGiveOtherTokensForTheSameRecords() {
        BlockManifest e0 = BlockManifest.of("sink", block(), 0);
        BlockManifest e1 = BlockManifest.of("sink", block(), 1);
        BlockManifest big = BlockManifest.of("sink", block(), 1_767_225_600_123L);
        assertEquals("chsink/sink/events/3/10-12/1700000000000/e1", e1.token());
        assertEquals("chsink/sink/events/3/10-12/1700000000000/e1767225600123", big.token());
        assertNotEquals(e0.token(), e1.token());
        assertNotEquals(e1.token(), big.token());
        // the composition itself does not depend on the epoch
        assertEquals(e0.toString(), e1.toString());
        assertEquals(3, e1.rows());
        assertEquals(10, e1.firstOffset());
        assertEquals(12, e1.lastOffset());
        assertEquals(1_700_000_000_000L, e1.firstTimestamp());
    }

    @Test
    void negativeEpochIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> BlockManifest.token("sink", TP, 10, 12, 5, -1));
    }
}
