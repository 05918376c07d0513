package io.chsink.connect.block;

import io.chsink.connect.encoder.NativeBlock;
import io.chsink.connect.mapping.TableMapping;
import io.chsink.connect.schema.TableId;
import java.util.HashMap;
import java.util.Map;

/**
 * Keeps the column buffers of a table's last inserted block so that the table's next block writes into them: a
 * block that starts small and grows to tens of megabytes copies its buffers a dozen times on the way (about three
 * times its size in garbage); a reused block starts at full size. At most one spare per table, and all spares
 * together take at most {@code maxBytes} of heap; a spare is only reused by a block of the very same mapping.
 * Only the task thread uses this class.
 */
public final class BlockRecycler {
    private final long maxBytes;
    private final Map<TableId, TableBlock> spares = new HashMap<>();
    private long bytes;

    public BlockRecycler(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /**
     * Offers a block whose insert is complete (nothing reads it any more): kept as its table's spare, emptied, when
     * the table has none, its columns can be reused and it fits in the bound; otherwise left to the GC.
     */
    public void offer(TableBlock done) {
        NativeBlock b = done.nativeBlock();
        if (spares.containsKey(done.table()) || bytes + b.capacityBytes() > maxBytes || !b.reset()) {
            return;
        }
        spares.put(done.table(), done);
        bytes += b.capacityBytes();
    }

    /** A new, empty block for the table: on its spare's buffers when the spare was made for {@code mapping}. */
    public TableBlock newBlock(TableId table, TableMapping mapping, int expectedRows, long nowMs) {
        return newBlock(BlockKey.of(table), mapping, expectedRows, nowMs);
    }

    /** The same for a block key (exactly_once: one table and partition); spares are shared by the table's keys. */
    public TableBlock newBlock(BlockKey key, TableMapping mapping, int expectedRows, long nowMs) {
        TableBlock spare = spares.remove(key.table());
        if (spare != null) {
            bytes -= spare.nativeBlock().capacityBytes();
            if (spare.mapping() == mapping) {
                return new TableBlock(key, mapping, spare.nativeBlock(), nowMs);
            }
        }
        return new TableBlock(key, mapping, expectedRows, nowMs);
    }

    /** Heap held by the spares. */
    public long capacityBytes() {
        return bytes;
    }
}
