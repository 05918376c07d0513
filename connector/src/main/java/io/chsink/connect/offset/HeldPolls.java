package io.chsink.connect.offset;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Polls the task holds back, not yet appended, so that one read of current rows serves several
 * ({@code cdc.read.polls}): the row source asks for it when a poll needs rows it does not have. Held records are in
 * no block, so until they are, nothing from a held record's offset on may be committed ({@link #firstOffsets}); a
 * partition revoked or sought back loses its held records (they come again, to this task or the next owner).
 * Partitions and offsets are the consumer's ({@link Origin}).
 */
public final class HeldPolls {
    /** The longest a held poll waits for the ones after it. */
    public static final long MAX_HOLD_MS = 500;

    private final int maxPolls;
    private final List<SinkRecord> records = new ArrayList<>();
    private final Map<TopicPartition, Long> first = new HashMap<>();
    private int polls;
    private long sinceMs;

    /** @param maxPolls how many polls one read may serve (1: none is held) */
    public HeldPolls(int maxPolls) {
        this.maxPolls = maxPolls;
    }

    /** Whether this poll may be held with those held already: it brought records and the bounds allow one more. */
    public boolean mayHold(Collection<SinkRecord> poll, long now) {
        return !poll.isEmpty() && polls + 1 < maxPolls && (polls == 0 || now - sinceMs < MAX_HOLD_MS);
    }

    /** The held records followed by the poll's, in the order they came (the poll itself when nothing is held). */
    public Collection<SinkRecord> with(Collection<SinkRecord> poll) {
        if (records.isEmpty()) {
            return poll;
        }
        List<SinkRecord> all = new ArrayList<>(records.size() + poll.size());
        all.addAll(records);
        all.addAll(poll);
        return all;
    }

    /** Holds the poll's records after those held already. */
    public void hold(Collection<SinkRecord> poll, long now) {
        if (polls == 0) {
            sinceMs = now;
        }
        polls++;
        records.addAll(poll);
        // A poll's records come in runs of one partition: one lookup per run, not per record.
        String topic = null;
        int partition = -1;
        for (SinkRecord r : poll) {
            if (Origin.partition(r) != partition || !Origin.topic(r).equals(topic)) {
                topic = Origin.topic(r);
                partition = Origin.partition(r);
                first.putIfAbsent(new TopicPartition(topic, partition), Origin.offset(r));
            }
        }
    }

    /** The held records were handed on with the poll after them: nothing is held. */
    public void clear() {
        records.clear();
        first.clear();
        polls = 0;
    }

    /** Forgets the held records of the partitions: revoked, or sought back, their records come again. */
    public void drop(Collection<TopicPartition> partitions) {
        if (records.isEmpty() || Collections.disjoint(first.keySet(), partitions)) {
            return;
        }
        records.removeIf(r -> partitions.contains(Origin.of(r)));
        first.keySet().removeAll(partitions);
        if (records.isEmpty()) {
            clear();
        }
    }

    /** Per partition with held records, the first held offset: nothing from it on is committable. */
    public Map<TopicPartition, Long> firstOffsets() {
        return Collections.unmodifiableMap(first);
    }

    public boolean isEmpty() {
        return records.isEmpty();
    }

    public int size() {
        return records.size();
    }
}
