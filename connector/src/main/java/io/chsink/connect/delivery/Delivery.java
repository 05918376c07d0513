package io.chsink.connect.delivery;

import io.chsink.connect.block.TableBlock;
import io.chsink.connect.schema.TableId;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The delivery guarantee, chosen once when the task starts ({@link Deliveries#create}): which block a record goes
 * to, what happens when blocks are sealed, submitted, attempted, verified and revoked, and which blocks the task
 * may not drop. The task calls every method unconditionally, in this order for a batch: {@link #admit}, then per
 * record {@link #blockFor} and {@link #appended} (or {@link #skipped}); for each block taken from the buffer
 * {@link #beforeSubmit}; on the insert thread {@link #beforeAttempt}; once inserted {@link #verified}; in preCommit
 * {@link #uncommittable} and {@link #committing}.
 *
 * <p>Implementations: {@link AtLeastOnceDelivery} (blocks span the partitions of a table) and
 * {@link io.chsink.connect.exactlyonce.ExactlyOnceDelivery} (one-partition blocks, recorded before insert,
 * rebuilt after a restart). Everything but {@link #beforeAttempt} runs on the task thread.
 */
public interface Delivery {
    /**
     * A batch as Connect delivered it, before anything else looks at it: returns the records to go on with (the
     * batch itself, or a copy without those written before). exactly_once: loads what the state table holds for
     * partitions new to the task, and drops records below a partition's handled mark.
     */
    Collection<SinkRecord> admit(Collection<SinkRecord> records);

    /**
     * The block a record goes to. {@code cached} is the block the previous record of the same topic went to, as
     * {@link #appended} returned it, or null. Null when the table does not exist (the record is reported).
     */
    TableBlock blockFor(SinkRecord r, TableId routed, TableBlock cached);

    /**
     * The record was appended to {@code block}: seals what it completes. Returns the block the next record of the
     * same topic may go to without a lookup, or null.
     */
    TableBlock appended(SinkRecord r, TableId routed, TableBlock block);

    /** The record was not appended (a tombstone, or dead-lettered): seals what it completes. */
    void skipped(SinkRecord r, TableId routed);

    /** A sealed block leaves the buffer for its insert. */
    void beforeSubmit(TableBlock b);

    /** Insert thread, before each attempt of the block's insert (exactly_once: its composition is made durable). */
    void beforeAttempt(TableBlock b) throws Exception;

    /** The block's insert is verified. */
    void verified(TableBlock b);

    /**
     * ClickHouse refused the row of {@code tp} at {@code offset} in the verified block {@code b}: the offset of
     * {@code tp} from which nothing may be committed until the row's record is reported. at_least_once: the row's own
     * offset (the block's rows before it are in, and a task that takes the partition over reads again from the row);
     * exactly_once: the partition's first offset in the block, which a restart rebuilds and narrows the same way.
     */
    long refusedHoldFrom(TableBlock b, TopicPartition tp, long offset);

    /**
     * The highest offset of {@code tp} a commit may take when everything below {@code offset} is handled:
     * at_least_once {@code offset}; exactly_once never inside a block recorded in the state table, whether still
     * unverified or verified but not yet committed past (a restart would rebuild it from there, a shorter block whose
     * parts its recorded tokens do not cover), so the block's first offset then. Connect's own offset lands inside
     * one when a seek moved it back (refused rows read again).
     */
    long commitBound(TopicPartition tp, long offset);

    /** The partitions are revoked; their blocks have been dropped from the buffer. */
    void revoked(Collection<TopicPartition> partitions);

    /** Per partition, an offset beyond which nothing may be committed yet (exactly_once: marks being checked). */
    Map<TopicPartition, Long> uncommittable();

    /**
     * preCommit is about to return these offsets (every record below them is handled); not called while an insert
     * is failing. exactly_once: stores them as the partitions' handled marks and prunes the blocks below.
     */
    void committing(Map<TopicPartition, OffsetAndMetadata> offsets);

    /** How many inserts into one table may be in flight together. */
    int insertsPerTable();

    /** Checks a table the first time the task reads its columns; throws when it cannot take this delivery. */
    void checkTable(TableId table);

    /**
     * The partitions whose records are being collected into a block that must be completed before anything else of
     * theirs (exactly_once rebuilds), oldest first: consumption of these may not stop, or the block never completes.
     */
    List<TopicPartition> mustComplete();

    /** What the task holds that only this delivery knows about, for a log line (empty when nothing). */
    String describe(long nowMs);

    /** The delivery's name in delivery.guarantee. */
    String name();
}
