package io.chsink.connect.metrics;

/**
 * JMX view of one target table of one task:
 * {@code io.chsink.connect:type=sink-table-metrics,connector="<name>",task="<n>",table="<db>.<table>"}.
 */
public interface TableMetricsMBean {
    long getRowsInserted();

    long getBytesSent();

    long getBlocksInserted();

    double getInsertLatencyAvgMs();

    long getInsertLatencyMaxMs();

    long getRetries();

    long getDlqRecords();
}
