package io.chsink.connect.offset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.block.TableBlock;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.testing.RecordedSeeks;
import io.chsink.connect.testing.TestTables;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * Records renamed by a transform (RegexRouter: {@code pg.public.orders} into {@code orders}) are kept under the
 * partition and offset Connect's consumer read them at, everywhere the task keys by partition.
 */
class OriginTest {
    private static final TableId T = new TableId("db", "orders");
    private static final TopicPartition SRC0 = new TopicPartition("pg.public.orders", 0);
    private static final TopicPartition SRC1 = new TopicPartition("pg.public.orders", 1);

    private static SinkRecord renamed(int partition, long offset) {
        return TestTables.renamed("orders", partition, "pg.public.orders", partition, offset);
    }

    @Test
    void theWorkerTellsTheOriginalCoordinates() {
        assertTrue(Origin.KNOWN, "Connect 4.1's SinkRecord has KIP-793's accessors");
        SinkRecord r = renamed(1, 7);
        assertEquals("pg.public.orders", Origin.topic(r));
        assertEquals(1, Origin.partition(r));
        assertEquals(7, Origin.offset(r));
        assertEquals(SRC1, Origin.of(r));
        assertTrue(Origin.in(r, SRC1));
        assertFalse(Origin.in(r, new TopicPartition("orders", 1)));
    }

    @Test
    void aBlockKeepsTheConsumersOffsetRanges() {
        TableBlock b = new TableBlock(T, TestTables.mapping(T), 4, 0);
        b.append(renamed(0, 5));
        b.append(renamed(0, 6));
        b.append(renamed(1, 2));
        assertEquals(Set.of(SRC0, SRC1), b.offsetRanges().keySet());
        assertEquals(5, b.offsetRanges().get(SRC0)[0]);
        assertEquals(6, b.offsetRanges().get(SRC0)[1]);
        // preCommit gets the consumer's partitions: the open block holds back exactly those
        Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> consumed = Map.of(
                SRC0, new org.apache.kafka.clients.consumer.OffsetAndMetadata(7),
                SRC1, new org.apache.kafka.clients.consumer.OffsetAndMetadata(3));
        var committable = OffsetTracker.committable(consumed, List.of(b), Map.of());
        assertEquals(5, committable.get(SRC0).offset());
        assertEquals(2, committable.get(SRC1).offset());
    }

    @Test
    void heldPollsAndRewindsUseTheConsumersPartitions() {
        HeldPolls held = new HeldPolls(4);
        held.hold(List.of(renamed(0, 10), renamed(0, 11), renamed(1, 4)), 0);
        assertEquals(Map.of(SRC0, 10L, SRC1, 4L), held.firstOffsets());
        held.drop(Set.of(SRC0));
        assertEquals(1, held.size(), "a sought-back consumer partition loses its held records");

        RecordedSeeks consumer = new RecordedSeeks();
        List<Map<TopicPartition, Long>> seeks = consumer.seeks;
        Rewinds rewinds = new Rewinds(consumer, held);
        TableBlock dropped = new TableBlock(T, TestTables.mapping(T), 4, 0);
        dropped.append(renamed(1, 4));
        dropped.append(renamed(1, 5));
        rewinds.rewind(List.of(dropped), tp -> true, "test");
        assertEquals(List.of(Map.of(SRC1, 4L)), seeks, "Connect seeks the consumer's partition");
        assertTrue(rewinds.skip(renamed(1, 6)), "a record of the batch that comes again is skipped");
        assertFalse(rewinds.skip(renamed(0, 6)));
        assertEquals(Map.of(SRC1, 4L), rewinds.pending());
    }

    @Test
    void withoutKip793ARecordFromAnotherTopicStopsTheTask() {
        AssignedPartitions assigned = new AssignedPartitions(true); // as on Connect 3.5
        assigned.opened(List.of(SRC0));
        assigned.received(List.of(TestTables.record("pg.public.orders", 0, 1)));
        ConnectException e = assertThrows(ConnectException.class,
                () -> assigned.received(List.of(TestTables.record("orders", 0, 2))));
        assertTrue(e.getMessage().contains("topic=orders partition=0 offset=2"), e.getMessage());
        assertTrue(e.getMessage().contains("Connect 3.6 or later"), e.getMessage());
        assertTrue(e.getMessage().contains("RegexRouter"), e.getMessage());
        AssignedPartitions modern = new AssignedPartitions(false);
        modern.opened(List.of(SRC0));
        modern.received(List.of(renamed(0, 2))); // KIP-793: nothing to check
    }
}
