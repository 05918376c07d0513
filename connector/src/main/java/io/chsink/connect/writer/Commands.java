package io.chsink.connect.writer;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.command.CommandResponse;
import com.clickhouse.client.api.command.CommandSettings;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Runs one statement through client-v2 and waits for it: the state table's writes and the connector's DDL. */
public final class Commands {
    private Commands() {
    }

    /**
     * Runs {@code sql} (with query {@code params}, or none when null) and waits up to {@code timeoutSeconds}; the
     * server's or client's exception is rethrown as it is when unchecked ({@code ServerException} keeps its code).
     */
    public static void run(Client client, String sql, Map<String, Object> params, CommandSettings settings,
            long timeoutSeconds) {
        try (CommandResponse r = (params == null ? client.execute(sql, settings) : client.execute(sql, params, settings))
                .get(timeoutSeconds, TimeUnit.SECONDS)) {
            // acknowledged
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (Exception e) {
            Throwable c = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            throw c instanceof RuntimeException ? (RuntimeException) c : new IllegalStateException(c.getMessage(), c);
        }
    }
}
