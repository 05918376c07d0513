package io.chsink.it.events;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.insert.InsertResponse;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.data.ClickHouseFormat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The reference load: writes generated events straight into an events table with client-v2, as TabSeparated
 * text built here (independent of the connector's Native encoder), one INSERT per batch.
 */
public final class DirectLoader {
    private static final List<String> COLUMNS = List.of(EventsTable.COLUMN_NAMES.split(", "));

    private final Client client;
    private final int batchRows;

    public DirectLoader(Client client) {
        this(client, 100_000);
    }

    public DirectLoader(Client client, int batchRows) {
        this.client = client;
        this.batchRows = batchRows;
    }

    /** Inserts the next {@code count} events of {@code generator}; returns the rows the server reports written. */
    public long load(String database, String table, EventGenerator generator, long count) {
        String target = EventsTable.qualified(database, table);
        long written = 0;
        for (long done = 0; done < count; ) {
            int rows = (int) Math.min(batchRows, count - done);
            StringBuilder tsv = new StringBuilder(rows * 120);
            for (int i = 0; i < rows; i++) {
                appendRow(tsv, generator.next());
            }
            InsertSettings settings = new InsertSettings();
            settings.serverSetting("date_time_input_format", "best_effort"); // epoch seconds, also on servers before 26.5
            settings.serverSetting("async_insert", "0"); // on by default since 26.2: one plain INSERT per batch
            try (InsertResponse response = client.insert(target, COLUMNS,
                    new ByteArrayInputStream(tsv.toString().getBytes(StandardCharsets.UTF_8)), ClickHouseFormat.TabSeparated,
                    settings).get(10, TimeUnit.MINUTES)) {
                written += response.getWrittenRows();
            } catch (ExecutionException | TimeoutException e) {
                throw new IllegalStateException("insert of " + rows + " events into " + target + " failed after "
                        + done + " rows: " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while loading " + target, e);
            }
            done += rows;
        }
        return written;
    }

    /** One TabSeparated line; event_time as epoch seconds, which ClickHouse reads as a UTC instant. */
    static void appendRow(StringBuilder out, Event e) {
        out.append(e.eventTime()).append('\t').append(e.userId()).append('\t');
        escape(out, e.eventType()).append('\t');
        escape(out, e.url()).append('\t').append(e.durationMs()).append('\t');
        escape(out, e.country()).append('\t').append(e.revenueText()).append('\n');
    }

    private static StringBuilder escape(StringBuilder out, String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                default -> out.append(c);
            }
        }
        return out;
    }
}
