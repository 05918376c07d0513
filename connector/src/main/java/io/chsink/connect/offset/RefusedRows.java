package io.chsink.connect.offset;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rows ClickHouse refused (the rest of their blocks inserted), to be reported to the error reporter by their records.
 * A block keeps no records, so the task reads them again: each partition is sought back to its first refused offset
 * ({@link #seekBack}); when Connect delivers the partition again, the refused records are reported and the others,
 * up to where the task had got before the seek, are dropped (their rows are in blocks already: {@link #filter}). A
 * refused record that comes in any other way (a rewind re-reading it) is reported too, never appended again. Until a
 * partition's refused records are reported, nothing from the first of them is committable ({@link #pending}).
 * Partitions and offsets are the consumer's ({@link Origin}).
 */
public final class RefusedRows {
    private static final Logger LOG = LoggerFactory.getLogger(RefusedRows.class);

    private final Consumption context;
    /** Per partition, its refused offsets not yet reported, with why ClickHouse refused each. */
    private final Map<TopicPartition, TreeMap<Long, String>> waiting = new HashMap<>();
    /** Per partition with refused offsets waiting, the offset from which nothing is committable until reported. */
    private final Map<TopicPartition, Long> holdFrom = new HashMap<>();
    /** Partitions sought back since the last batch: Connect seeks them before the next one. */
    private final Set<TopicPartition> sought = new HashSet<>();
    /** Per partition being read again, the last offset the task had before the seek: records up to it are replays. */
    private final Map<TopicPartition, Long> replayUntil = new HashMap<>();

    public RefusedRows(Consumption context) {
        this.context = context;
    }

    /**
     * A row of the record at {@code offset} of {@code tp} was refused, for {@code why}: it waits to be reported. Until
     * it is, nothing from {@code holdFrom} on is committable (the delivery's choice: the row itself, or the first
     * offset of the partition in the row's block, so that exactly_once rebuilds and narrows the same block after a
     * crash).
     */
    public void refused(TopicPartition tp, long offset, long holdFrom, String why) {
        waiting.computeIfAbsent(tp, k -> new TreeMap<>()).put(offset, why);
        this.holdFrom.merge(tp, holdFrom, Math::min);
    }

    /**
     * Seeks the partitions with refused records back to the first of them (or to an earlier rewind's offset, which
     * the seek must not pass: {@code rewinds}, see {@link Rewinds#pending}).
     */
    public void seekBack(Map<TopicPartition, Long> rewinds) {
        Map<TopicPartition, Long> seek = new HashMap<>();
        waiting.forEach((tp, offsets) -> {
            if (!offsets.isEmpty()) {
                seek.put(tp, Math.min(offsets.firstKey(), rewinds.getOrDefault(tp, Long.MAX_VALUE)));
            }
        });
        if (!seek.isEmpty()) {
            LOG.info("Reading {} again to report the records of rows ClickHouse refused", seek);
            context.seek(seek);
            sought.addAll(seek.keySet());
        }
    }

    /**
     * A new batch comes: the seeks asked for before it are done. Records of a sought partition up to where the task
     * had got ({@code lastOffsets}) are replays, but never at or past a rewind's offset ({@code rewinds}), whose
     * records must go to blocks again.
     */
    public void batchStarts(Map<TopicPartition, Long> lastOffsets, Map<TopicPartition, Long> rewinds) {
        for (TopicPartition tp : sought) {
            Long last = lastOffsets.get(tp);
            if (last == null) {
                continue;
            }
            Long rewind = rewinds.get(tp);
            replayUntil.merge(tp, rewind == null ? last : Math.min(last, rewind - 1), Math::max);
        }
        sought.clear();
    }

    /** The task rewinds partitions (their records come again into blocks): those are no replays from there on. */
    public void rewound(Map<TopicPartition, Long> seek) {
        seek.forEach((tp, from) -> replayUntil.computeIfPresent(tp, (k, until) -> Math.min(until, from - 1)));
    }

    /**
     * The batch without the replays of sought partitions and without refused records, which go to {@code report}
     * (with why ClickHouse refused their rows). Returns the batch itself when nothing is taken out.
     */
    public Collection<SinkRecord> filter(Collection<SinkRecord> batch, BiConsumer<SinkRecord, String> report) {
        if (waiting.isEmpty() && replayUntil.isEmpty()) {
            return batch;
        }
        List<SinkRecord> kept = new ArrayList<>(batch.size());
        TopicPartition tp = null;
        TreeMap<Long, String> refused = null;
        Long until = null;
        for (SinkRecord r : batch) {
            if (!Origin.in(r, tp)) {
                tp = Origin.of(r);
                refused = waiting.get(tp);
                until = replayUntil.get(tp);
            }
            long offset = Origin.offset(r);
            String why = refused == null ? null : refused.remove(offset);
            if (why != null) {
                report.accept(r, why);
                if (refused.isEmpty()) {
                    waiting.remove(tp);
                    holdFrom.remove(tp);
                    refused = null;
                }
            } else if (until == null || offset > until) {
                if (until != null) {
                    replayDone(tp, until);
                    until = null;
                }
                kept.add(r);
            }
        }
        return kept;
    }

    /**
     * The partition's replay is over: a refused record not read again by then is gone from the topic. Unless a seek
     * of the partition is still to come: rows refused while the replay passed their records (their block was in
     * flight then, and the replay dropped them as rows already in blocks) are read again by that seek.
     */
    private void replayDone(TopicPartition tp, long until) {
        replayUntil.remove(tp);
        TreeMap<Long, String> left = waiting.get(tp);
        if (left == null || sought.contains(tp)) {
            return;
        }
        Map<Long, String> gone = left.headMap(until, true);
        if (!gone.isEmpty()) {
            LOG.warn("{}: the records at offsets {} were not delivered again (deleted or compacted away) and cannot be "
                    + "reported; ClickHouse refused their rows: {}", tp, gone.keySet(), gone.values().iterator().next());
            gone.clear();
            if (left.isEmpty()) {
                waiting.remove(tp);
                holdFrom.remove(tp);
            }
        }
    }

    /**
     * Per partition with refused records not yet reported, the offset from which nothing is committable.
     */
    public Map<TopicPartition, Long> pending() {
        return holdFrom.isEmpty() ? Map.of() : new HashMap<>(holdFrom);
    }

    /** Per partition with refused records not yet reported, the first of them: a seek must not pass it. */
    public Map<TopicPartition, Long> firstRefused() {
        if (waiting.isEmpty()) {
            return Map.of();
        }
        Map<TopicPartition, Long> out = new HashMap<>();
        waiting.forEach((tp, offsets) -> out.put(tp, offsets.firstKey()));
        return out;
    }

    /** Revoked partitions: their next owner reads them from the last commit, which is before their refused records. */
    public void revoked(Collection<TopicPartition> partitions) {
        waiting.keySet().removeAll(partitions);
        holdFrom.keySet().removeAll(partitions);
        sought.removeAll(partitions);
        replayUntil.keySet().removeAll(partitions);
    }
}
