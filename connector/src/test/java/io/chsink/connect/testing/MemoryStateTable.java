package io.chsink.connect.testing;

import io.chsink.connect.block.BlockManifest;
import io.chsink.connect.exactlyonce.HandledOffsets;
import io.chsink.connect.exactlyonce.RecordedBlocks;
import io.chsink.connect.exactlyonce.RecordedPartition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;

/**
 * exactly_once's state table in memory, for unit tests: the recorded blocks, the epochs and handled marks, and the
 * prunes asked of it, as the real stores keep and answer them. Safe to use from the task's insert threads (blocks are
 * recorded there).
 */
public final class MemoryStateTable implements RecordedBlocks {
    public final List<BlockManifest> recorded = new CopyOnWriteArrayList<>();
    public final Map<TopicPartition, Long> epochs = new ConcurrentHashMap<>();
    public final Map<TopicPartition, HandledOffsets.Mark> marks = new ConcurrentHashMap<>();
    public final List<Map<TopicPartition, Long>> prunes = new CopyOnWriteArrayList<>();
    private final AtomicInteger loads = new AtomicInteger();
    private final AtomicInteger markWrites = new AtomicInteger();

    @Override
    public RecordedPartition load(TopicPartition tp, long fromOffset) {
        loads.incrementAndGet();
        List<BlockManifest> out = new ArrayList<>();
        long below = 0;
        for (BlockManifest m : recorded) {
            if (m.partition().equals(tp) && m.lastOffset() >= fromOffset) {
                out.add(new BlockManifest(m.table(), tp, m.firstOffset(), m.lastOffset(), m.rows(),
                        m.firstTimestamp(), m.token()).markRecorded());
            } else if (m.partition().equals(tp)) {
                below++;
            }
        }
        out.sort(Comparator.comparingLong(BlockManifest::firstOffset));
        return new RecordedPartition(out, below, epochs.getOrDefault(tp, 0L),
                marks.getOrDefault(tp, HandledOffsets.Mark.NONE));
    }

    @Override
    public void record(BlockManifest m) {
        recorded.add(m);
    }

    @Override
    public void storeMarks(Map<TopicPartition, HandledOffsets.Mark> m) {
        if (!m.isEmpty()) {
            markWrites.incrementAndGet();
            marks.putAll(m);
        }
    }

    @Override
    public void prune(Map<TopicPartition, Long> below) {
        if (below.isEmpty()) {
            return; // as the state stores: no statement
        }
        prunes.add(new HashMap<>(below));
        recorded.removeIf(b -> below.containsKey(b.partition()) && b.lastOffset() < below.get(b.partition()));
    }

    @Override
    public String engine() {
        return "KeeperMap";
    }

    /** How many times a partition's state was loaded. */
    public int loads() {
        return loads.get();
    }

    /** How many statements stored marks. */
    public int markWrites() {
        return markWrites.get();
    }

    /** The recorded blocks of a partition. */
    public long blocks(TopicPartition tp) {
        return recorded.stream().filter(b -> b.partition().equals(tp)).count();
    }

    /** Per partition, "first-last,first-last" of its recorded blocks, in offset order. */
    public Map<TopicPartition, String> recordedRanges() {
        Map<TopicPartition, TreeMap<Long, Long>> ranges = new HashMap<>();
        for (BlockManifest m : recorded) {
            ranges.computeIfAbsent(m.partition(), k -> new TreeMap<>()).put(m.firstOffset(), m.lastOffset());
        }
        return describe(ranges);
    }

    /** "first-last,first-last" of each partition's ranges (first offset to last), in offset order. */
    public static Map<TopicPartition, String> describe(Map<TopicPartition, TreeMap<Long, Long>> ranges) {
        Map<TopicPartition, String> out = new HashMap<>();
        ranges.forEach((tp, r) -> {
            StringBuilder s = new StringBuilder();
            r.forEach((first, last) -> s.append(s.length() == 0 ? "" : ",").append(first).append('-').append(last));
            out.put(tp, s.toString());
        });
        return out;
    }
}
