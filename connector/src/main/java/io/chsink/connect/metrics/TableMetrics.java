package io.chsink.connect.metrics;

/** The counters of one target table. */
final class TableMetrics extends Counters implements TableMetricsMBean {
    @Override
    public long getRowsInserted() {
        return rows.sum();
    }

    @Override
    public long getBytesSent() {
        return bytes.sum();
    }

    @Override
    public long getBlocksInserted() {
        return blocks.sum();
    }

    @Override
    public double getInsertLatencyAvgMs() {
        return latencyAvgMs();
    }

    @Override
    public long getInsertLatencyMaxMs() {
        return latencyMaxMs();
    }

    @Override
    public long getRetries() {
        return retries.sum();
    }

    @Override
    public long getDlqRecords() {
        return dlq.sum();
    }
}
