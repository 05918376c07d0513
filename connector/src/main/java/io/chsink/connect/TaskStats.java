package io.chsink.connect;

import org.slf4j.Logger;

/** Counters of one task, logged as a summary line at a fixed interval. */
final class TaskStats {
    private static final long INTERVAL_MS = 60_000;

    long received;
    long tombstones;
    long badRecords;
    long rowsInserted;
    long blocks;
    long insertMillis;
    private long lastLogMs = System.currentTimeMillis();
    private long rowsAtLastLog;

    void inserted(int rows, long elapsedMs) {
        rowsInserted += rows;
        blocks++;
        insertMillis += elapsedMs;
    }

    void maybeLog(Logger log, long nowMs) {
        if (nowMs - lastLogMs < INTERVAL_MS) {
            return;
        }
        long rate = (rowsInserted - rowsAtLastLog) * 1000 / Math.max(1, nowMs - lastLogMs);
        log.info("{}; {} rows/s over the last {} s", this, rate, (nowMs - lastLogMs) / 1000);
        lastLogMs = nowMs;
        rowsAtLastLog = rowsInserted;
    }

    @Override
    public String toString() {
        return String.format("records received=%d, rows inserted=%d in %d blocks (%d ms inserting), "
                + "tombstones skipped=%d, bad records reported=%d", received, rowsInserted, blocks, insertMillis,
                tombstones, badRecords);
    }
}
