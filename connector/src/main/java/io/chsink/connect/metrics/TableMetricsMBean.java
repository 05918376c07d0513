package io.chsink.connect.metrics;

/**
 * JMX view of one target table of one task:
 * {@code io.chsink.connect:type=sink-table-metrics,connector="<name>",task="<n>",table="<db>.<table>"}. The task's
 * view ({@link SinkTaskMetricsMBean}) has these attributes too, summed over its tables.
 */
public interface TableMetricsMBean {
    /** Rows verified inserted into ClickHouse. */
    long getRowsInserted();

    /** Encoded Native bytes of the inserted blocks (before LZ4 compression). */
    long getBytesSent();

    /** Blocks (inserts) verified. */
    long getBlocksInserted();

    /** Mean duration of a successful insert attempt, in milliseconds. */
    double getInsertLatencyAvgMs();

    /** Longest successful insert attempt, in milliseconds. */
    long getInsertLatencyMaxMs();

    /** Failed insert attempts that were retried. */
    long getRetries();

    /** Bad records sent to the error reporter (dead-letter queue) with errors.tolerance=all. */
    long getDlqRecords();
}
