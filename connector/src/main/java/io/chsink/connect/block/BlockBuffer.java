package io.chsink.connect.block;

import io.chsink.connect.schema.TableId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The task's blocks that are not yet handed to ClickHouse: one open block per table that records are appended
 * to, and sealed blocks queued behind their table's in-flight insert. Decides when an open block is full
 * ({@code flush.max.rows}, {@code flush.max.bytes}) or due ({@code flush.interval.ms}).
 */
public final class BlockBuffer {
    private final int maxRows;
    private final long maxBytes;
    private final long intervalMs;
    private final Map<BlockKey, TableBlock> open = new LinkedHashMap<>();
    private final Map<BlockKey, Deque<TableBlock>> sealed = new LinkedHashMap<>();

    public BlockBuffer(int maxRows, long maxBytes, long intervalMs) {
        this.maxRows = maxRows;
        this.maxBytes = maxBytes;
        this.intervalMs = intervalMs;
    }

    /** The open block of a table's every-partition key (at_least_once). */
    public TableBlock open(TableId table) {
        return open(BlockKey.of(table));
    }

    public void seal(TableId table) {
        seal(BlockKey.of(table));
    }

    public TableBlock open(BlockKey key) {
        return open.get(key);
    }

    public void putOpen(TableBlock block) {
        open.put(block.key(), block);
    }

    public boolean isFull(TableBlock b) {
        return b.rows() >= maxRows || b.sizeInBytes() >= maxBytes;
    }

    /** Moves the key's open block to the end of its sealed queue (an empty block is dropped). */
    public void seal(BlockKey key) {
        TableBlock b = open.remove(key);
        if (b != null && b.rows() > 0) {
            sealed.computeIfAbsent(key, t -> new ArrayDeque<>()).addLast(b);
        }
    }

    /**
     * Seals every open block whose first row is at least flush.interval.ms old. A block being rebuilt from its
     * recorded composition is sealed only by its owner, when its offset range is complete.
     */
    public void sealDue(long nowMs) {
        sealDue(nowMs, t -> true);
    }

    /**
     * Like {@link #sealDue(long)}, for the blocks whose table {@code canSend} allows: a due block of a table whose
     * previous insert is still running keeps collecting rows instead of queueing behind it, so a slow server gets
     * fewer, larger inserts.
     */
    public void sealDue(long nowMs, java.util.function.Predicate<TableId> canSend) {
        for (BlockKey k : new ArrayList<>(open.keySet())) {
            TableBlock b = open.get(k);
            if (!b.isReplay() && nowMs - b.createdAtMs() >= intervalMs && canSend.test(k.table())) {
                seal(k);
            }
        }
    }

    /**
     * Seals every open block but those being rebuilt from a recorded composition, of the tables {@code idle} allows
     * (a table with blocks queued or in flight gains nothing from one more, smaller block behind them).
     */
    public void sealAll(java.util.function.Predicate<TableId> idle) {
        for (BlockKey k : new ArrayList<>(open.keySet())) {
            if (!open.get(k).isReplay() && idle.test(k.table())) {
                seal(k);
            }
        }
    }

    /**
     * For when the task's partitions went quiet (a poll brought nothing): seals every open block (blocks being
     * rebuilt aside) when together they hold at least a tenth of {@code flush.max.rows} or {@code flush.max.bytes}.
     * The end of a burst lands without waiting for {@code flush.interval.ms}, whether it went to one table or to
     * two hundred (each of whose blocks is small), while a trickle still collects into one block per interval.
     */
    public void sealBurstEnd() {
        if (!burstOpen()) {
            return;
        }
        for (BlockKey k : new ArrayList<>(open.keySet())) {
            if (!open.get(k).isReplay()) {
                seal(k);
            }
        }
    }

    /** Whether {@link #sealBurstEnd()} would seal: the open blocks (rebuilds aside) hold a tenth of a full block. */
    public boolean burstOpen() {
        long rows = 0;
        long bytes = 0;
        for (TableBlock b : open.values()) {
            if (!b.isReplay()) {
                rows += b.rows();
                bytes += b.sizeInBytes();
            }
        }
        return rows > 0 && (rows >= Math.max(1, maxRows / 10) || bytes >= maxBytes / 10);
    }

    /** Milliseconds until the next open block falls due, or -1 when nothing is open. */
    public long millisUntilDue(long nowMs) {
        long next = -1;
        for (TableBlock b : open.values()) {
            if (b.isReplay()) {
                continue;
            }
            long left = Math.max(0, b.createdAtMs() + intervalMs - nowMs);
            next = next < 0 ? left : Math.min(next, left);
        }
        return next;
    }

    /**
     * Takes the oldest sealed block of each table that {@code isFree} allows, at most one per table; keys that
     * gave a block go to the back of the line, so the partitions of a table take turns.
     */
    public List<TableBlock> takeSealed(java.util.function.Predicate<TableId> isFree) {
        List<TableBlock> out = new ArrayList<>();
        Set<TableId> taken = new HashSet<>();
        Map<BlockKey, Deque<TableBlock>> requeue = new LinkedHashMap<>();
        for (Iterator<Map.Entry<BlockKey, Deque<TableBlock>>> it = sealed.entrySet().iterator(); it.hasNext();) {
            Map.Entry<BlockKey, Deque<TableBlock>> e = it.next();
            TableId t = e.getKey().table();
            if (!taken.contains(t) && isFree.test(t)) {
                taken.add(t);
                out.add(e.getValue().pollFirst());
                it.remove();
                if (!e.getValue().isEmpty()) {
                    requeue.put(e.getKey(), e.getValue());
                }
            }
        }
        sealed.putAll(requeue);
        return out;
    }

    public boolean hasSealed() {
        return !sealed.isEmpty();
    }

    /** Whether the table has sealed blocks waiting for their insert. */
    public boolean hasSealed(TableId table) {
        for (BlockKey k : sealed.keySet()) {
            if (k.table().equals(table)) {
                return true;
            }
        }
        return false;
    }

    /** Open and sealed blocks. */
    public Collection<TableBlock> blocks() {
        List<TableBlock> all = new ArrayList<>(open.values());
        for (Deque<TableBlock> q : sealed.values()) {
            all.addAll(q);
        }
        return all;
    }

    /** What the open and sealed blocks hold in memory ({@link TableBlock#heldBytes}). */
    public long heldBytes() {
        long total = 0;
        for (TableBlock b : blocks()) {
            total += b.heldBytes();
        }
        return total;
    }

    /** Forgets the open and sealed blocks of one table (their records will be redelivered) and returns them. */
    public Collection<TableBlock> clear(TableId table) {
        List<TableBlock> out = new ArrayList<>();
        for (Iterator<Map.Entry<BlockKey, TableBlock>> it = open.entrySet().iterator(); it.hasNext();) {
            Map.Entry<BlockKey, TableBlock> e = it.next();
            if (e.getKey().table().equals(table)) {
                out.add(e.getValue());
                it.remove();
            }
        }
        for (Iterator<Map.Entry<BlockKey, Deque<TableBlock>>> it = sealed.entrySet().iterator(); it.hasNext();) {
            Map.Entry<BlockKey, Deque<TableBlock>> e = it.next();
            if (e.getKey().table().equals(table)) {
                out.addAll(e.getValue());
                it.remove();
            }
        }
        return out;
    }

    /**
     * Forgets the open and sealed blocks whose key {@code drop} names (their records will be redelivered) and returns
     * them.
     */
    public Collection<TableBlock> clear(java.util.function.Predicate<BlockKey> drop) {
        List<TableBlock> out = new ArrayList<>();
        for (Iterator<Map.Entry<BlockKey, TableBlock>> it = open.entrySet().iterator(); it.hasNext();) {
            Map.Entry<BlockKey, TableBlock> e = it.next();
            if (drop.test(e.getKey())) {
                out.add(e.getValue());
                it.remove();
            }
        }
        for (Iterator<Map.Entry<BlockKey, Deque<TableBlock>>> it = sealed.entrySet().iterator(); it.hasNext();) {
            Map.Entry<BlockKey, Deque<TableBlock>> e = it.next();
            if (drop.test(e.getKey())) {
                out.addAll(e.getValue());
                it.remove();
            }
        }
        return out;
    }

    /** Forgets every open and sealed block (their records will be redelivered) and returns them. */
    public Collection<TableBlock> clear() {
        Collection<TableBlock> all = blocks();
        open.clear();
        sealed.clear();
        return all;
    }
}
