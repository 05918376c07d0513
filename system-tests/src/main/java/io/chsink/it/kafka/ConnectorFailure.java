package io.chsink.it.kafka;

import io.chsink.it.stack.ConnectRest;
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
}
