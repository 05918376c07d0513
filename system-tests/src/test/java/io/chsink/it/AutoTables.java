package io.chsink.it;

import io.chsink.it.kafka.ConnectorFailure;
import java.time.Duration;

/** Waiting for the tables auto.create makes (RowWatcher counts rows of a table that exists). */
final class AutoTables {
    private AutoTables() {
    }

    /** Waits until {@code table} exists, failing early when the connector or a task fails. */
    static void awaitTable(SinkHarness h, String table, String connector) throws InterruptedException {
        ConnectorFailure failure = new ConnectorFailure(h.rest(), connector);
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (System.nanoTime() < deadline) {
            if (h.scalar("SELECT count() FROM system.tables WHERE database = '" + h.db + "' AND name = '" + table
                    + "'") > 0) {
                return;
            }
            String f = failure.get();
            if (f != null) {
                throw new AssertionError("connector " + connector + " failed before creating " + table + ": " + f);
            }
            Thread.sleep(200);
        }
        throw new AssertionError("table " + table + " was not created within 3 minutes");
    }

    /** {@link #awaitTable}, then the rows. */
    static void awaitRows(SinkHarness h, String table, long rows, String connector) throws InterruptedException {
        awaitTable(h, table, connector);
        h.awaitRows(table, rows, connector);
    }
}
