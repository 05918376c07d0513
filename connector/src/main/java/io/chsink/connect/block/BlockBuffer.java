package io.chsink.connect.block;

import io.chsink.connect.schema.TableId;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The task's blocks that are not yet handed to ClickHouse: one open block per table that records are appended
 * to, and sealed blocks queued behind their table's in-flight insert. Decides when an open block is full
 * ({@code flush.max.rows}, {@code flush.max.bytes}) or due ({@code flush.interval.ms}).
 */
public final class BlockBuffer {
    private final int maxRows;
    private final long maxBytes;
    private final long intervalMs;
    private final Map<TableId, TableBlock> open = new LinkedHashMap<>();
    private final Map<TableId, Deque<TableBlock>> sealed = new LinkedHashMap<>();

    public BlockBuffer(int maxRows, long maxBytes, long intervalMs) {
        this.maxRows = maxRows;
        this.maxBytes = maxBytes;
        this.intervalMs = intervalMs;
    }

    public TableBlock open(TableId table) {
        return open.get(table);
    }

    public void putOpen(TableBlock block) {
        open.put(block.table(), block);
    }

    public boolean isFull(TableBlock b) {
        return b.rows() >= maxRows || b.sizeInBytes() >= maxBytes;
    }

    /** Moves the table's open block to the end of its sealed queue. */
    public void seal(TableId table) {
        TableBlock b = open.remove(table);
        if (b != null && b.rows() > 0) {
            sealed.computeIfAbsent(table, t -> new ArrayDeque<>()).addLast(b);
        }
    }

    /** Seals every open block whose first row is at least flush.interval.ms old. */
    public void sealDue(long nowMs) {
        sealDue(nowMs, t -> true);
    }

    /**
     * Seals every open block whose first row is at least flush.interval.ms old and whose table {@code canSend}
     * allows: a due block of a table whose previous insert is still running keeps collecting rows instead of
     * queueing behind it, so a slow server gets fewer, larger inserts.
     */
    public void sealDue(long nowMs, java.util.function.Predicate<TableId> canSend) {
        for (TableId t : new ArrayList<>(open.keySet())) {
            if (nowMs - open.get(t).createdAtMs() >= intervalMs && canSend.test(t)) {
                seal(t);
            }
        }
    }

    public void sealAll() {
        for (TableId t : new ArrayList<>(open.keySet())) {
            seal(t);
        }
    }

    /** Milliseconds until the next open block falls due, or -1 when nothing is open. */
    public long millisUntilDue(long nowMs) {
        long next = -1;
        for (TableBlock b : open.values()) {
            long left = Math.max(0, b.createdAtMs() + intervalMs - nowMs);
            next = next < 0 ? left : Math.min(next, left);
        }
        return next;
    }

    /** Takes the oldest sealed block of each table that {@code isFree} allows. */
    public List<TableBlock> takeSealed(java.util.function.Predicate<TableId> isFree) {
        List<TableBlock> out = new ArrayList<>();
        for (Iterator<Map.Entry<TableId, Deque<TableBlock>>> it = sealed.entrySet().iterator(); it.hasNext();) {
            Map.Entry<TableId, Deque<TableBlock>> e = it.next();
            if (isFree.test(e.getKey())) {
                out.add(e.getValue().pollFirst());
                if (e.getValue().isEmpty()) {
                    it.remove();
                }
            }
        }
        return out;
    }

    public boolean hasSealed() {
        return !sealed.isEmpty();
    }

    /** Whether the table has sealed blocks waiting for their insert. */
    public boolean hasSealed(TableId table) {
        return sealed.containsKey(table);
    }

    /** Open and sealed blocks. */
    public Collection<TableBlock> blocks() {
        List<TableBlock> all = new ArrayList<>(open.values());
        for (Deque<TableBlock> q : sealed.values()) {
            all.addAll(q);
        }
        return all;
    }

    public long sizeInBytes() {
        long total = 0;
        for (TableBlock b : blocks()) {
            total += b.sizeInBytes();
        }
        return total;
    }

    /** Forgets the open and sealed blocks of one table (their records will be redelivered) and returns them. */
    public Collection<TableBlock> clear(TableId table) {
        List<TableBlock> out = new ArrayList<>();
        TableBlock b = open.remove(table);
        if (b != null) {
            out.add(b);
        }
        Deque<TableBlock> q = sealed.remove(table);
        if (q != null) {
            out.addAll(q);
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
