package io.chsink.connect.metrics;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** The insert counters kept both per task and per table; safe to update from the insert threads. */
class Counters {
    final LongAdder rows = new LongAdder();
    final LongAdder bytes = new LongAdder();
    final LongAdder blocks = new LongAdder();
    final LongAdder retries = new LongAdder();
    final LongAdder dlq = new LongAdder();
    private final LongAdder latencyTotalMs = new LongAdder();
    private final LongAdder latencyCount = new LongAdder();
    private final AtomicLong latencyMaxMs = new AtomicLong();

    void inserted(long rowCount, long byteCount) {
        rows.add(rowCount);
        bytes.add(byteCount);
        blocks.increment();
    }

    void latency(long ms) {
        latencyTotalMs.add(ms);
        latencyCount.increment();
        latencyMaxMs.accumulateAndGet(ms, Math::max);
    }

    double latencyAvgMs() {
        long n = latencyCount.sum();
        return n == 0 ? 0 : (double) latencyTotalMs.sum() / n;
    }

    long latencyMaxMs() {
        return latencyMaxMs.get();
    }

    // ---- the attributes shared by the task and table MBeans ----
    public long getRowsInserted() {
        return rows.sum();
    }

    public long getBytesSent() {
        return bytes.sum();
    }

    public long getBlocksInserted() {
        return blocks.sum();
    }

    public double getInsertLatencyAvgMs() {
        return latencyAvgMs();
    }

    public long getInsertLatencyMaxMs() {
        return latencyMaxMs();
    }

    public long getRetries() {
        return retries.sum();
    }

    public long getDlqRecords() {
        return dlq.sum();
    }
}
