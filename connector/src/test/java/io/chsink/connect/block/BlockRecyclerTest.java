package io.chsink.connect.block;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.chsink.connect.mapping.TableMapping;
import io.chsink.connect.schema.ClickHouseType;
import io.chsink.connect.schema.TableColumn;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class BlockRecyclerTest {
    private static final TableId T = new TableId("db", "t");

    /** Every kind of reusable column: fixed width, String, Nullable, LowCardinality and LowCardinality(Nullable). */
    private static TableMapping mapping() {
        return new TableMapping(new TableSchema(T, Arrays.asList(
                new TableColumn("n", ClickHouseType.parse("Int64"), TableColumn.DefaultKind.NONE),
                new TableColumn("s", ClickHouseType.parse("String"), TableColumn.DefaultKind.NONE),
                new TableColumn("ns", ClickHouseType.parse("Nullable(String)"), TableColumn.DefaultKind.NONE),
                new TableColumn("lc", ClickHouseType.parse("LowCardinality(String)"), TableColumn.DefaultKind.NONE),
                new TableColumn("lcn", ClickHouseType.parse("LowCardinality(Nullable(String))"),
                        TableColumn.DefaultKind.NONE))));
    }

    private static void fill(TableBlock b, int from, int rows) {
        for (int i = from; i < from + rows; i++) {
            Map<String, Object> v = new HashMap<>();
            v.put("n", (long) i);
            v.put("s", "value-" + i);
            v.put("ns", i % 3 == 0 ? null : "n" + i);
            v.put("lc", "k" + (i % 5));
            v.put("lcn", i % 4 == 0 ? null : "c" + (i % 7));
            b.append(new SinkRecord("t", 0, null, null, null, v, i));
        }
    }

    private static byte[] bytes(TableBlock b) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        b.nativeBlock().writeTo(out);
        return out.toByteArray();
    }

    @Test
    void aReusedBlockEncodesExactlyLikeAFreshOne() throws IOException {
        TableMapping m = mapping();
        BlockRecycler recycler = new BlockRecycler(1 << 30);
        TableBlock first = recycler.newBlock(T, m, 4, 0);
        fill(first, 0, 1000);
        recycler.offer(first);
        assertEquals(first.nativeBlock().capacityBytes(), recycler.capacityBytes());

        TableBlock reused = recycler.newBlock(T, m, 4, 1);
        assertSame(first.nativeBlock(), reused.nativeBlock(), "the spare's columns are reused");
        assertEquals(0, reused.rows());
        assertEquals(0, recycler.capacityBytes());
        assertEquals(0, reused.offsetRanges().size());
        fill(reused, 5000, 300);

        TableBlock fresh = new TableBlock(T, m, 4, 1);
        fill(fresh, 5000, 300);
        assertArrayEquals(bytes(fresh), bytes(reused));
        assertEquals(fresh.sizeInBytes(), reused.sizeInBytes());
    }

    @Test
    void aSpareServesOnlyItsOwnMappingAndTheBoundHolds() {
        TableMapping m = mapping();
        BlockRecycler recycler = new BlockRecycler(1 << 30);
        TableBlock done = recycler.newBlock(T, m, 4, 0);
        fill(done, 0, 10);
        recycler.offer(done);
        TableBlock other = recycler.newBlock(T, mapping(), 4, 0);
        assertNotSame(done.nativeBlock(), other.nativeBlock(), "a changed table gets new columns");
        assertEquals(0, recycler.capacityBytes(), "the stale spare is dropped");

        BlockRecycler tiny = new BlockRecycler(16);
        TableBlock big = tiny.newBlock(T, m, 4, 0);
        fill(big, 0, 100);
        tiny.offer(big);
        assertEquals(0, tiny.capacityBytes(), "a spare larger than the bound is not kept");
        assertEquals(100, big.rows(), "nor emptied");
    }
}
