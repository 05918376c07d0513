package io.chsink.connect.exactlyonce;

import io.chsink.connect.block.BlockManifest;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * Per partition, the offset below which every record is handled: each one is in a block whose insert ClickHouse
 * verified, or was dead-lettered or skipped. It is what preCommit returned, kept in the state table as the
 * partition's mark ({@link Mark}) whether or not Connect's commit of it succeeds. Three things follow
 * (docs/exactly-once.md, "Bounded state"):
 * <ul>
 *   <li>the recorded blocks that end below the mark are never needed again, and are pruned while the task runs
 *       ({@link #toPrune}), as are those below the offset Connect started the partition at;</li>
 *   <li>a record below the mark that Connect delivers again (its commit of the mark failed or had not happened when
 *       the task stopped) is dropped: it was written before, and its block's record may be gone;</li>
 *   <li>so the state a partition holds is bounded whatever happens to Connect's commits.</li>
 * </ul>
 * A mark is trusted only once the partition is known to be the log the mark was taken on: its anchor, the first
 * record of the newest verified block below the mark, must be in the partition with the same Kafka timestamp. When
 * the first record redelivered is not the anchor, the task seeks to the anchor and looks; a partition whose anchor is
 * missing or differs (the topic was deleted and re-created under the same name) has its mark ignored, and is read
 * again from where Connect started it. Until a partition's mark is settled, nothing of it is committed beyond that
 * start ({@link #unsettled}).
 *
 * <p>Pure logic, on the task thread: {@link ExactlyOnceDelivery} reads and writes the marks.
 */
public final class HandledOffsets {
    /** A partition whose blocks below its bound reach this many is pruned (with every other prunable one). */
    public static final int PRUNE_AFTER_BLOCKS = 64;

    /** A partition's mark: every record below {@code below} is handled; {@code anchorOffset} -1: no anchor. */
    public static final class Mark {
        public static final Mark NONE = new Mark(0, -1, 0);

        private final long below;
        private final long anchorOffset;
        private final long anchorTimestamp;

        public Mark(long below, long anchorOffset, long anchorTimestamp) {
            this.below = below;
            this.anchorOffset = anchorOffset;
            this.anchorTimestamp = anchorTimestamp;
        }

        /** Every record below this offset is handled. */
        public long below() {
            return below;
        }

        /** The first offset of the newest verified block below {@link #below}, or -1. */
        public long anchorOffset() {
            return anchorOffset;
        }

        /** The Kafka timestamp of the record at {@link #anchorOffset} (0 when it had none). */
        public long anchorTimestamp() {
            return anchorTimestamp;
        }

        public boolean hasAnchor() {
            return anchorOffset >= 0;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Mark && ((Mark) o).below == below && ((Mark) o).anchorOffset == anchorOffset
                    && ((Mark) o).anchorTimestamp == anchorTimestamp;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(below) * 31 + Long.hashCode(anchorOffset);
        }

        @Override
        public String toString() {
            return "handled below " + below + (hasAnchor() ? " (anchor " + anchorOffset + "@" + anchorTimestamp + ")"
                    : "");
        }
    }

    /** What to do with a record. */
    public enum Decision {
        /** Not handled before: it goes to a block. */
        KEEP,
        /** Handled before, or coming again after a seek asked for in this batch: dropped. */
        DROP
    }

    private enum State {
        /** The mark is settled (trusted, or ignored as NONE): records below it are dropped. */
        SETTLED,
        /** A seek to the anchor was asked for: the partition's next record tells whether the mark holds. */
        CHECKING,
        /** The mark was found stale: a seek back to the start was asked for; its next record is kept. */
        BACK
    }

    private static final class Partition {
        final long start;
        Mark mark;
        State state;
        /** The mark as it is in the state table (NONE when none, or when the one there is stale). */
        Mark stored;
        /** The seek was asked for in the batch being admitted: its records are dropped, they come again. */
        boolean seekInBatch;
        /** Recorded blocks below the start not yet pruned (as loaded). */
        long belowStart;
        /** The last offsets of the recorded blocks at or after the start (loaded, or recorded by this task). */
        final ArrayDeque<Long> recordedLast = new ArrayDeque<>();

        Partition(long start, Mark stored, long belowStart) {
            this.start = start;
            this.stored = stored;
            this.mark = stored;
            this.belowStart = belowStart;
        }

        /**
         * Below this offset no recorded block is needed again, once {@code mark} is stored: the larger of the mark and
         * where Connect started the partition (0 while the mark is not settled).
         */
        long pruneBound(Mark mark) {
            return state == State.SETTLED ? Math.max(start, mark.below()) : 0;
        }

        /** How many recorded blocks end below {@link #pruneBound}. */
        long prunable(Mark mark) {
            long bound = pruneBound(mark);
            long n = belowStart;
            for (long last : recordedLast) {
                if (last < bound) {
                    n++;
                }
            }
            return bound == 0 ? 0 : n;
        }

        /** Whether the blocks below the bound that {@code mark} gives are to be pruned now. */
        boolean pruneDue(Mark mark) {
            long n = prunable(mark);
            return n >= PRUNE_AFTER_BLOCKS || n > 0 && belowStart > 0;
        }
    }

    /** What {@link #first} and {@link #next} decided, and the seek (offset, or -1) they ask for. */
    public static final class Outcome {
        private static final Outcome KEEP = new Outcome(Decision.KEEP, -1, null, false, false);
        private static final Outcome DROP = new Outcome(Decision.DROP, -1, null, false, false);

        private final Decision decision;
        private final long seekTo;
        private final String log;
        private final boolean warn;
        private final boolean stale;

        Outcome(Decision decision, long seekTo, String log, boolean warn, boolean stale) {
            this.decision = decision;
            this.seekTo = seekTo;
            this.log = log;
            this.warn = warn;
            this.stale = stale;
        }

        public Decision decision() {
            return decision;
        }

        /** The offset to seek the partition to after this batch, or -1. */
        public long seekTo() {
            return seekTo;
        }

        /** A line for the log, or null. */
        public String log() {
            return log;
        }

        /** Whether {@link #log} is a warning (the mark was ignored) rather than news (it held). */
        public boolean warn() {
            return warn;
        }

        /**
         * Whether the mark was found to be of another log (its anchor is not there): the partition's recorded blocks
         * are of that log too, and must not be rebuilt from this one's records.
         */
        public boolean stale() {
            return stale;
        }
    }

    private final Map<TopicPartition, Partition> partitions = new HashMap<>();
    /** Per partition, verified blocks not below the anchor of its stored mark: the anchors of later marks. */
    private final Map<TopicPartition, NavigableMap<Long, BlockManifest>> verified = new HashMap<>();

    public boolean isLoaded(TopicPartition tp) {
        return partitions.containsKey(tp);
    }

    /**
     * The partition's first record since the task got it, with what the state table holds for it: its mark, how
     * many recorded blocks end below this offset, and the last offsets of those that do not.
     */
    public Outcome first(TopicPartition tp, Mark stored, long belowStart, Collection<BlockManifest> recorded,
            long offset, long timestamp) {
        Partition p = new Partition(offset, stored, belowStart);
        for (BlockManifest b : recorded) {
            p.recordedLast.add(b.lastOffset());
        }
        partitions.put(tp, p);
        if (stored.below() <= offset) {
            p.state = State.SETTLED; // Connect starts at or after the mark: nothing to drop
            return Outcome.KEEP;
        }
        if (!stored.hasAnchor()) {
            p.state = State.SETTLED;
            p.mark = Mark.NONE;
            p.stored = Mark.NONE;
            String warning = tp + ": Connect redelivers from offset " + offset + ", below the handled mark "
                    + stored.below() + " that has no anchor record to check it by; records from " + offset + " to "
                    + (stored.below() - 1) + " are written again (they may be in ClickHouse twice)";
            return new Outcome(Decision.KEEP, -1, warning, true, false);
        }
        if (offset == stored.anchorOffset()) {
            return settle(tp, p, offset, timestamp);
        }
        p.state = State.CHECKING;
        p.seekInBatch = true;
        return new Outcome(Decision.DROP, stored.anchorOffset(), null, false, false);
    }

    /** A later record of a loaded partition (dropped or kept, and the seek and log line a check may give). */
    public Outcome next(TopicPartition tp, long offset, long timestamp) {
        Partition p = partitions.get(tp);
        if (p.state == State.SETTLED) {
            return offset < p.mark.below() ? Outcome.DROP : Outcome.KEEP;
        }
        if (p.seekInBatch) {
            return Outcome.DROP;
        }
        if (p.state == State.BACK) {
            p.state = State.SETTLED;
            return Outcome.KEEP;
        }
        return settle(tp, p, offset, timestamp);
    }

    /** Whether every record of the partition from here on is kept without a look (the common case). */
    public boolean keepsFrom(TopicPartition tp, long offset) {
        Partition p = partitions.get(tp);
        return p != null && p.state == State.SETTLED && offset >= p.mark.below();
    }

    /** The record Connect delivered where the anchor should be: the mark holds, or it is stale. */
    private Outcome settle(TopicPartition tp, Partition p, long offset, long timestamp) {
        Mark m = p.stored;
        if (offset == m.anchorOffset() && timestamp == m.anchorTimestamp()) {
            p.state = State.SETTLED;
            p.mark = m;
            return new Outcome(offset < m.below() ? Decision.DROP : Decision.KEEP, -1, tp + ": records from offset "
                    + Math.min(p.start, offset) + " to " + (m.below() - 1) + " were written before (handled mark "
                    + m.below() + ", anchor record " + offset + " found); they are dropped", false, false);
        }
        String why = offset == m.anchorOffset()
                ? "the record at the anchor offset " + offset + " has timestamp " + timestamp + ", not "
                        + m.anchorTimestamp()
                : "the anchor record " + m.anchorOffset() + " is not in the partition (the first record there is "
                        + offset + ")";
        p.mark = Mark.NONE;
        p.stored = Mark.NONE; // the next mark written replaces the stale one, whatever its offset
        String warning = tp + ": the handled mark " + m.below() + " is ignored: " + why + " (the topic was re-created, or"
                + " the record was compacted or deleted); the partition is read again from offset " + p.start
                + ", where Connect started it";
        if (offset == p.start) {
            p.state = State.SETTLED;
            return new Outcome(Decision.KEEP, -1, warning, true, true);
        }
        p.state = State.BACK;
        p.seekInBatch = true;
        return new Outcome(Decision.DROP, p.start, warning, true, true);
    }

    /** The batch was admitted: seeks asked for during it take effect before the next one. */
    public void batchDone() {
        for (Partition p : partitions.values()) {
            p.seekInBatch = false;
        }
    }

    /** Per partition whose mark is not settled, the offset Connect started it at: nothing beyond is committable. */
    public Map<TopicPartition, Long> unsettled() {
        Map<TopicPartition, Long> out = new HashMap<>();
        partitions.forEach((tp, p) -> {
            if (p.state != State.SETTLED) {
                out.put(tp, p.start);
            }
        });
        return out;
    }

    /** A block of a loaded partition is about to be recorded in the state table. */
    public void recorded(BlockManifest b) {
        Partition p = partitions.get(b.partition());
        if (p != null) {
            p.recordedLast.add(b.lastOffset());
        }
    }

    /** A block's insert is verified: it may anchor a later mark. */
    public void verified(BlockManifest b) {
        if (partitions.containsKey(b.partition())) {
            verified.computeIfAbsent(b.partition(), k -> new TreeMap<>()).put(b.firstOffset(), b);
        }
    }

    /**
     * The marks to store for these committable offsets: none unless storing them makes a prune due (a partition
     * with {@value #PRUNE_AFTER_BLOCKS} blocks below its bound, or blocks below where Connect started it), so that
     * the state table is written only as often as it is pruned; then every mark that grows.
     */
    public Map<TopicPartition, Mark> toStore(Map<TopicPartition, Long> committable) {
        Map<TopicPartition, Mark> out = new LinkedHashMap<>();
        boolean due = false;
        for (Map.Entry<TopicPartition, Long> e : committable.entrySet()) {
            Partition p = partitions.get(e.getKey());
            if (p == null) {
                continue;
            }
            Mark m = toStore(e.getKey(), e.getValue());
            if (m != null) {
                out.put(e.getKey(), m);
            }
            due |= p.pruneDue(m != null ? m : p.mark);
        }
        return due ? out : Map.of();
    }

    /**
     * The mark to store for a settled partition whose committable offset is {@code below}, or null when the
     * stored one is as high already (marks only grow) or the partition's mark is not settled.
     */
    Mark toStore(TopicPartition tp, long below) {
        Partition p = partitions.get(tp);
        if (p == null || p.state != State.SETTLED || below <= p.stored.below()) {
            return null;
        }
        NavigableMap<Long, BlockManifest> v = verified.get(tp);
        BlockManifest anchor = null;
        if (v != null) {
            for (BlockManifest b : v.descendingMap().values()) {
                if (b.lastOffset() < below) {
                    anchor = b;
                    break;
                }
            }
        }
        if (anchor == null) {
            // No block of this task below it: the stored mark's anchor still is one (it is below), if any.
            return p.stored.hasAnchor() ? new Mark(below, p.stored.anchorOffset(), p.stored.anchorTimestamp())
                    : new Mark(below, -1, 0);
        }
        return new Mark(below, anchor.firstOffset(), anchor.firstTimestamp());
    }

    /** The mark is in the state table now. */
    public void stored(TopicPartition tp, Mark m) {
        Partition p = partitions.get(tp);
        if (p == null) {
            return;
        }
        p.stored = m;
        p.mark = m;
        NavigableMap<Long, BlockManifest> v = verified.get(tp);
        if (v != null && m.hasAnchor()) {
            v.headMap(m.anchorOffset(), false).clear(); // older than the anchor: never an anchor again
        }
    }

    /** The mark stored for a loaded partition (NONE when none). */
    public Mark stored(TopicPartition tp) {
        Partition p = partitions.get(tp);
        return p == null ? Mark.NONE : p.stored;
    }

    /**
     * Per partition, the offset below which its recorded blocks are to be deleted now, or an empty map: a prune is
     * due when a partition has {@value #PRUNE_AFTER_BLOCKS} blocks below its bound, or blocks below the offset
     * Connect started it at (once after it was assigned); it then takes every partition with one below its bound.
     */
    public Map<TopicPartition, Long> toPrune() {
        boolean due = false;
        Map<TopicPartition, Long> out = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, Partition> e : partitions.entrySet()) {
            Partition p = e.getValue();
            if (p.prunable(p.mark) > 0) {
                out.put(e.getKey(), p.pruneBound(p.mark));
                due |= p.pruneDue(p.mark);
            }
        }
        return due ? out : Map.of();
    }

    /** The blocks below these bounds are deleted from the state table. */
    public void pruned(Map<TopicPartition, Long> bounds) {
        bounds.forEach((tp, bound) -> {
            Partition p = partitions.get(tp);
            if (p != null) {
                p.belowStart = 0;
                for (Iterator<Long> i = p.recordedLast.iterator(); i.hasNext();) {
                    if (i.next() < bound) {
                        i.remove();
                    }
                }
            }
        });
    }

    /** How many recorded blocks of the partition are in the state table as far as this task knows. */
    public long recordedBlocks(TopicPartition tp) {
        Partition p = partitions.get(tp);
        return p == null ? 0 : p.belowStart + p.recordedLast.size();
    }

    public void revoked(Collection<TopicPartition> tps) {
        partitions.keySet().removeAll(tps);
        verified.keySet().removeAll(tps);
    }
}
