package io.chsink.connect.offset;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Where Connect's consumer read a record: its topic, partition and offset before any transform ran. Connect commits,
 * seeks, pauses and closes these partitions ({@code preCommit()}'s map, {@code offset()}, {@code pause()},
 * {@code open()}/{@code close()}), so everything the task keys by partition uses them; only routing to a table uses
 * the topic as the transforms leave it ({@link SinkRecord#topic()}).
 *
 * <p>Connect 3.6 and later carry them on the record ({@link SinkRecord#originalTopic()},
 * {@link SinkRecord#originalKafkaPartition()}, {@link SinkRecord#originalKafkaOffset()}: KIP-793). On older workers
 * the record's own coordinates are all there is; {@link AssignedPartitions} then stops the task at the first record
 * a transform moved, before its offsets could be committed wrong.
 */
public final class Origin {
    /** Whether the worker's Connect API has KIP-793's accessors: decided once, so the JIT folds the branch away. */
    public static final boolean KNOWN = hasOriginals();

    private Origin() {
    }

    public static String topic(SinkRecord r) {
        return KNOWN ? r.originalTopic() : r.topic();
    }

    /** The consumer's partition (-1 for a record without one: a test's or a transform's that dropped it). */
    public static int partition(SinkRecord r) {
        Integer p = KNOWN ? r.originalKafkaPartition() : r.kafkaPartition();
        return p == null ? -1 : p;
    }

    public static long offset(SinkRecord r) {
        return KNOWN ? r.originalKafkaOffset() : r.kafkaOffset();
    }

    /** A new TopicPartition of the record's consumer coordinates; callers on the per-record path reuse the last. */
    public static TopicPartition of(SinkRecord r) {
        return new TopicPartition(topic(r), partition(r));
    }

    /** Whether {@code tp} is the record's consumer partition (no allocation). */
    public static boolean in(SinkRecord r, TopicPartition tp) {
        return tp != null && tp.partition() == partition(r) && tp.topic().equals(topic(r));
    }

    /** Whether a transform gave the record another topic, partition or offset than the consumer's. */
    public static boolean moved(SinkRecord r) {
        return KNOWN && (r.kafkaOffset() != r.originalKafkaOffset() || !r.topic().equals(r.originalTopic())
                || !java.util.Objects.equals(r.kafkaPartition(), r.originalKafkaPartition()));
    }

    /**
     * "topic 't' partition p offset o" as the consumer read the record, with the record's own coordinates after it
     * when a transform changed them: what an error about the record names, so a user finds it in Kafka.
     */
    public static String describe(SinkRecord r) {
        String at = "topic '" + topic(r) + "' partition " + partition(r) + " offset " + offset(r);
        if (!moved(r)) {
            return at;
        }
        return at + " (after transforms: topic '" + r.topic() + "' partition " + r.kafkaPartition() + " offset "
                + r.kafkaOffset() + ")";
    }

    private static boolean hasOriginals() {
        try {
            SinkRecord.class.getMethod("originalKafkaOffset");
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
