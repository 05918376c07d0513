package io.chsink.it.stack;

import java.time.Duration;
import java.util.function.Supplier;

/** Waits until a table holds a number of rows, reporting progress and failing early when nothing moves. */
public final class RowWatcher {
    /** Called about once a second with rows landed so far and the rate over the last interval. */
    public interface Progress {
        void update(long rows, long rowsPerSecond);
    }

    private final ClickHouseHttp http;
    private final String countSql;
    /** System.nanoTime() of the first look that saw a row, or -1. */
    private long firstRowNanos = -1;
    private long polls;

    /** @param qualifiedTable the table, already quoted */
    public RowWatcher(ClickHouseHttp http, String qualifiedTable) {
        this(http, qualifiedTable, "count()");
    }

    /** Watches {@code SELECT aggregate FROM qualifiedTable}, e.g. uniqExact(*) to count distinct rows. */
    public RowWatcher(ClickHouseHttp http, String qualifiedTable, String aggregate) {
        this.http = http;
        this.countSql = "SELECT " + aggregate + " FROM " + qualifiedTable;
    }

    /** When {@link #awaitRows} first saw a row (System.nanoTime(), to its 200 ms polling), or -1. */
    public long firstRowNanos() {
        return firstRowNanos;
    }

    /** How many times {@link #count()} asked ClickHouse. */
    public long polls() {
        return polls;
    }

    public long count() {
        polls++;
        return Long.parseLong(http.scalar(countSql).trim());
    }

    /**
     * Waits until count() reaches {@code expected}. Fails when the deadline passes, when the count has not changed
     * for {@code stall}, or when {@code failure} returns a non-null description (e.g. a FAILED task's trace).
     * Returns the count seen last.
     */
    public long awaitRows(long expected, Duration deadline, Duration stall, Supplier<String> failure, Progress progress) {
        long start = System.nanoTime();
        long lastChange = start;
        long last = -1;
        long lastTick = start;
        long lastTickRows = 0;
        while (true) {
            long rows = count();
            long now = System.nanoTime();
            if (rows > 0 && firstRowNanos < 0) {
                firstRowNanos = now;
            }
            if (rows != last) {
                last = rows;
                lastChange = now;
            }
            if (progress != null && now - lastTick >= 1_000_000_000L) {
                progress.update(rows, (rows - lastTickRows) * 1_000_000_000L / (now - lastTick));
                lastTick = now;
                lastTickRows = rows;
            }
            if (rows >= expected) {
                return rows;
            }
            String failed = failure == null ? null : failure.get();
            if (failed != null) {
                throw new AssertionError("Connector failed with " + rows + " of " + expected + " rows landed: " + failed);
            }
            if (now - start > deadline.toNanos()) {
                throw new AssertionError("Only " + rows + " of " + expected + " rows after " + deadline.toSeconds() + " s");
            }
            if (now - lastChange > stall.toNanos()) {
                throw new AssertionError("Stuck at " + rows + " of " + expected + " rows for " + stall.toSeconds() + " s");
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }
}
