package io.chsink.it.kafka;

import io.chsink.it.stack.ConnectRest;
import java.time.Duration;
import java.util.function.Supplier;

/** A probe for {@code RowWatcher}: the trace of a FAILED connector or task, or null while all is well. */
public final class ConnectorFailure implements Supplier<String> {
    private final ConnectRest rest;
    private final String connector;

    public ConnectorFailure(ConnectRest rest, String connector) {
        this.rest = rest;
        this.connector = connector;
    }

    @Override
    public String get() {
        ConnectRest.ConnectorStatus status;
        try {
            status = rest.connectorStatus(connector);
        } catch (RuntimeException e) {
            return null; // the worker may be restarting or rebalancing
        }
        if (status.connector() != null && status.connector().isFailed()) {
            return "connector FAILED: " + status.connector().trace();
        }
        for (ConnectRest.TaskState t : status.tasks()) {
            if (t.isFailed()) {
                return "task " + t.id() + " FAILED: " + t.trace();
            }
        }
        return null;
    }

    /** Waits for the connector or one of its tasks to fail; returns the trace, or throws when none fails in time. */
    public static String await(ConnectRest rest, String connector, Duration timeout) throws InterruptedException {
        ConnectorFailure probe = new ConnectorFailure(rest, connector);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            String f = probe.get();
            if (f != null) {
                return f;
            }
            Thread.sleep(250);
        }
        String status;
        try {
            status = String.valueOf(rest.connectorStatus(connector));
        } catch (RuntimeException e) {
            status = e.getMessage();
        }
        throw new AssertionError("connector " + connector + " did not fail within " + timeout + ": " + status);
    }
}
