package io.chsink.connect.block;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.mapping.TableMapping;
import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.TableColumn;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class BlockBufferTest {
    private static final TableId A = new TableId("db", "a");
    private static final TableId B = new TableId("db", "b");

    private static TableBlock block(TableId t, int rows, long createdAt) {
        TableMapping m = new TableMapping(new TableSchema(t, Collections.singletonList(
                new TableColumn("x", ClickHouseType.parse("Int64"), TableColumn.DefaultKind.NONE))));
        TableBlock b = new TableBlock(t, m, 4, createdAt);
        for (int i = 0; i < rows; i++) {
            Map<String, Object> v = new HashMap<>();
            v.put("x", (long) i);
            b.append(new SinkRecord("t", 0, null, null, null, v, i));
        }
        return b;
    }

    /**
     * buffer.max.bytes counts a block's encoded bytes and the Kafka coordinates it keeps per row (for refused rows),
     * 12 bytes for each row it has room for; flush.max.bytes the encoded bytes alone.
     */
    @Test
    void heldBytesCountEachRowsCoordinates() {
        BlockBuffer buf = new BlockBuffer(100_000, 1 << 30, 1000);
        TableBlock a = block(A, 1000, 0);
        assertEquals(8 * 1000, a.sizeInBytes(), "Int64: 8 encoded bytes a row");
        assertEquals(a.sizeInBytes() + 12 * 1024, a.heldBytes(), "room for 1,024 rows' coordinates");
        buf.putOpen(a);
        assertEquals(a.heldBytes(), buf.heldBytes());
    }

    @Test
    void fullByRowsDueByTime() {
        BlockBuffer buf = new BlockBuffer(3, 1 << 20, 1000);
        TableBlock a = block(A, 3, 0);
        TableBlock b = block(B, 1, 500);
        buf.putOpen(a);
        buf.putOpen(b);
        assertTrue(buf.isFull(a));
        assertFalse(buf.isFull(b));
        assertEquals(500, buf.millisUntilDue(500));
        buf.sealDue(1000);
        assertFalse(buf.hasSealed() && buf.open(B) == null, "b is not due yet");
        assertEquals(null, buf.open(A));
        buf.sealDue(1500);
        assertEquals(null, buf.open(B));
        assertEquals(-1, buf.millisUntilDue(1500));
    }

    @Test
    void aDueBlockOfABusyTableKeepsCollecting() {
        BlockBuffer buf = new BlockBuffer(1000, 1 << 20, 1000);
        buf.putOpen(block(A, 2, 0));
        buf.putOpen(block(B, 2, 0));
        buf.sealDue(5000, t -> !t.equals(A));
        assertTrue(buf.open(A) != null, "A's insert is still running: its block stays open");
        assertEquals(null, buf.open(B));
        assertTrue(buf.hasSealed(B));
        assertFalse(buf.hasSealed(A));
        buf.sealDue(5000, t -> true);
        assertEquals(null, buf.open(A));
    }

    @Test
    void sealedBlocksLeaveInOrderOnlyWhenTheirTableIsFree() {
        BlockBuffer buf = new BlockBuffer(1000, 1 << 20, 1000);
        TableBlock first = block(A, 2, 0);
        buf.putOpen(first);
        buf.seal(A);
        TableBlock second = block(A, 1, 1);
        buf.putOpen(second);
        buf.seal(A);
        buf.putOpen(block(B, 1, 2));
        buf.seal(B);
        List<TableBlock> none = buf.takeSealed(t -> false);
        assertTrue(none.isEmpty());
        List<TableBlock> one = buf.takeSealed(t -> t.equals(A));
        assertEquals(1, one.size());
        assertEquals(first, one.get(0));
        List<TableBlock> both = buf.takeSealed(t -> true);
        assertEquals(2, both.size());
        assertTrue(both.contains(second));
        assertFalse(buf.hasSealed());
    }

    @Test
    void emptyBlocksAreNeverSealedAndClearReturnsEverything() {
        BlockBuffer buf = new BlockBuffer(1000, 1 << 20, 1000);
        buf.putOpen(block(A, 0, 0));
        buf.seal(A);
        assertFalse(buf.hasSealed());
        buf.putOpen(block(A, 2, 0));
        buf.putOpen(block(B, 2, 0));
        buf.seal(B);
        assertEquals(2, buf.clear().size());
        assertEquals(0, buf.blocks().size());
        assertEquals(0, buf.heldBytes());
    }

    private static TableBlock partitionBlock(TableId t, int partition, long firstOffset, int rows, long createdAt) {
        TableMapping m = new TableMapping(new TableSchema(t, Collections.singletonList(
                new TableColumn("x", ClickHouseType.parse("Int64"), TableColumn.DefaultKind.NONE))));
        TableBlock b = new TableBlock(BlockKey.of(t, new org.apache.kafka.common.TopicPartition("t", partition)), m, 4,
                createdAt);
        for (int i = 0; i < rows; i++) {
            Map<String, Object> v = new HashMap<>();
            v.put("x", (long) i);
            b.append(new SinkRecord("t", partition, null, null, null, v, firstOffset + i));
        }
        return b;
    }

    @Test
    void partitionBlocksOfATableLeaveOneAtATimeTakingTurnsInOrderPerPartition() {
        BlockBuffer buf = new BlockBuffer(1000, 1 << 20, 1000);
        TableBlock p0a = partitionBlock(A, 0, 0, 2, 0);
        buf.putOpen(p0a);
        buf.seal(p0a.key());
        TableBlock p0b = partitionBlock(A, 0, 2, 2, 0);
        buf.putOpen(p0b);
        buf.seal(p0b.key());
        TableBlock p1 = partitionBlock(A, 1, 0, 2, 0);
        buf.putOpen(p1);
        buf.seal(p1.key());
        assertEquals(List.of(p0a), buf.takeSealed(t -> true), "one insert per table in flight");
        assertEquals(List.of(p1), buf.takeSealed(t -> true), "the other partition's turn");
        assertEquals(List.of(p0b), buf.takeSealed(t -> true));
        assertFalse(buf.hasSealed());
    }

    @Test
    void blocksBeingRebuiltAreSealedOnlyByTheirOwner() {
        BlockBuffer buf = new BlockBuffer(1, 1 << 20, 1000);
        TableBlock r = partitionBlock(A, 0, 10, 1, 0);
        r.replayOf(new BlockManifest(A, new org.apache.kafka.common.TopicPartition("t", 0), 10, 11, 2, 0, "tok"));
        buf.putOpen(r);
        buf.sealDue(10_000);
        buf.sealAll(t -> true);
        assertEquals(r, buf.open(r.key()), "neither time nor memory pressure seals a rebuild");
        assertEquals(-1, buf.millisUntilDue(10_000));
        buf.seal(r.key());
        assertTrue(buf.hasSealed());
    }
}
