package io.chsink.connect.metrics;

/**
 * JMX view of one sink task: {@code io.chsink.connect:type=sink-task-metrics,connector="<name>",task="<n>"}.
 * Counters are totals since the task started.
 */
public interface SinkTaskMetricsMBean extends TableMetricsMBean {
    /** Records handed to the task by Connect (tombstones and bad records included). */
    long getRecordsReceived();

    /** Records with a null value, skipped. */
    long getTombstonesSkipped();

    /** Records that write no row in the configured cdc.mode (Debezium tombstones after deletes, truncates). */
    long getRecordsWithoutRow();

    /**
     * Encoded bytes held in open, queued and in-flight blocks (bounded by buffer.max.bytes); cdc.mode=debezium adds
     * the heap of the rows of blocks not yet inserted.
     */
    long getBufferedBytes();

    /** Records taken by the task whose rows are not verified in ClickHouse yet (open, queued, in-flight blocks). */
    long getRecordsBehind();

    /** How long the longest-failing insert has been failing (retriably), in milliseconds; 0 when none is. */
    long getFailingForMs();

    /** Batches refused with a RetriableException because inserts kept failing past retry.timeout.ms. */
    long getRetriableExceptions();

    /**
     * cdc.mode=debezium: reads of current rows from target tables (one per table and batch that had unchanged TOAST
     * values, deletes of tables keyed beyond the primary key, or tombstones whose rows were neither pending nor in
     * the task's cache of recent rows).
     */
    long getCurrentRowReads();

    /** The time those reads took, in milliseconds. */
    long getCurrentRowReadMs();

    /**
     * cdc.mode=debezium: current rows found in the task's cache of the rows it wrote and saw inserted
     * (cdc.row.cache.bytes), one per change that needed one: each a key no read of the table had to ask for.
     */
    long getCurrentRowCacheHits();

    /**
     * cdc.mode=debezium: polls held back, not yet appended, so that one read of current rows serves them together
     * with the polls after them (cdc.read.polls).
     */
    long getPollsHeldForReads();

    /**
     * cdc.mode=debezium: times the create of a primary-key change was read again because its old key's delete, which
     * carries its TOAST values, had not reached the table yet (cdc.key.change.wait.ms).
     */
    long getKeyChangeWaits();
}
