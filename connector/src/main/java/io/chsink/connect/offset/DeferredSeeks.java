package io.chsink.connect.offset;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * The seeks the task asks for, handed to Connect only where every partition sought is still the task's when Connect
 * makes them. Connect seeks at the start of its next poll and after it opens newly assigned partitions, without
 * checking the assignment: a seek asked for during the commit Connect makes before it revokes partitions (the task
 * reads completions there, and a refused row seeks its partition back) would reach the consumer after the partition
 * has gone, and the consumer stops the task ("No current assignment for partition"). So seeks wait here until the
 * end of {@code put()}, of an ordinary {@code preCommit()}, or of {@code close()}, which first forgets the revoked
 * partitions' ({@link #revoked}). Pausing and resuming go through at once.
 */
public final class DeferredSeeks implements Consumption {
    private final Consumption connect;
    private final Map<TopicPartition, Long> pending = new HashMap<>();

    public DeferredSeeks(Consumption connect) {
        this.connect = connect;
    }

    @Override
    public void pause(TopicPartition... partitions) {
        connect.pause(partitions);
    }

    @Override
    public void resume(TopicPartition... partitions) {
        connect.resume(partitions);
    }

    /** As Connect's own: a later seek of a partition replaces an earlier one. */
    @Override
    public void seek(Map<TopicPartition, Long> offsets) {
        pending.putAll(offsets);
    }

    /** Partitions revoked: their seeks are dropped (their next owner reads them from the last commit). */
    public void revoked(Collection<TopicPartition> partitions) {
        pending.keySet().removeAll(partitions);
    }

    /** Hands the seeks asked for to Connect. */
    public void flush() {
        if (!pending.isEmpty()) {
            connect.seek(new HashMap<>(pending));
            pending.clear();
        }
    }
}
