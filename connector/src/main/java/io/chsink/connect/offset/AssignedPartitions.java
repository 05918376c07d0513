package io.chsink.connect.offset;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The partitions Connect gave the task ({@code open()} and {@code close()}), and the check a worker without KIP-793
 * needs: there a record carries only the coordinates the transforms left it ({@link Origin}), so a record whose topic
 * or partition is not one the task consumes was moved by a transform, and the task cannot know which offset of its
 * own partitions the record stands for. Committing anyway would commit offsets of records not yet in ClickHouse (or
 * none at all), so the task stops with an error that says so. On Connect 3.6 and later nothing is checked.
 */
public final class AssignedPartitions {
    private final Set<TopicPartition> assigned = new HashSet<>();
    private final boolean check;

    /** @param check whether records are checked (false where the worker tells the consumer's coordinates) */
    public AssignedPartitions(boolean check) {
        this.check = check;
    }

    /** For the running worker: checks only when its records lack the consumer's coordinates. */
    public static AssignedPartitions forWorker() {
        return new AssignedPartitions(!Origin.KNOWN);
    }

    public void opened(Collection<TopicPartition> partitions) {
        assigned.addAll(partitions);
    }

    public void closed(Collection<TopicPartition> partitions) {
        assigned.removeAll(partitions);
    }

    /** Throws when a record's topic and partition are not the task's (only where the worker cannot tell). */
    public void check(Collection<SinkRecord> records) {
        if (!check || assigned.isEmpty()) {
            return; // no assignment known: a task driven without open() (tests)
        }
        String topic = null;
        int partition = -1;
        for (SinkRecord r : records) {
            int p = r.kafkaPartition() == null ? -1 : r.kafkaPartition();
            if (p == partition && r.topic().equals(topic)) {
                continue;
            }
            topic = r.topic();
            partition = p;
            if (!assigned.contains(new TopicPartition(topic, partition))) {
                throw new ConnectException(String.format("The record at topic '%s' partition %d offset %d is not "
                        + "from a partition this task consumes (%s): a transform changed its topic or partition "
                        + "(RegexRouter, TimestampRouter, ByLogicalTableRouter and the like). This worker's Connect "
                        + "does not tell a sink task where such a record was read (KIP-793, Connect 3.6 and later), "
                        + "so its offset cannot be committed truthfully. Run the connector on Connect 3.6 or later, "
                        + "or route with topic.to.table.map instead of a transform", topic, partition,
                        r.kafkaOffset(), assigned.size() <= 8 ? assigned : assigned.size() + " partitions"));
            }
        }
    }
}
