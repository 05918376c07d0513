package io.chsink.it.bench;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.insert.InsertResponse;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.data.ClickHouseFormat;
import io.chsink.it.events.EventsTable;
import java.io.ByteArrayInputStream;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Path C, the ceiling: the dataset already encoded by the connector's encoder into Native blocks (cut where the
 * task cuts them with default settings), inserted one after the other with client-v2 exactly as the connector's
 * BlockInserter sends a block: LZ4-compressed by the client, the same server settings, one insert in flight.
 * Only the inserts are timed; what is left to path A on top of this is the encoding and the task's bookkeeping.
 */
final class BlocksPath {
    /** The same server settings BlockInserter sends with every block. */
    static void connectorSettings(InsertSettings s) {
        s.compressClientRequest(true);
        s.serverSetting("input_format_null_as_default", "1");
        s.serverSetting("input_format_native_allow_types_conversion", "1");
        s.serverSetting("async_insert", "0");
    }

    private BlocksPath() {
    }

    /** Inserts every body into {@code db.table}; returns the rows the server reported written. */
    static long insert(Client client, String db, String table, List<byte[]> bodies) throws Exception {
        List<String> columns = List.of(EventsTable.COLUMN_NAMES.split(", ")).stream().map(EventsTable::quote).toList();
        long written = 0;
        for (byte[] body : bodies) {
            InsertSettings s = new InsertSettings();
            connectorSettings(s);
            try (InsertResponse r = client.insert(EventsTable.qualified(db, table), columns,
                    new ByteArrayInputStream(body), ClickHouseFormat.Native, s).get(10, TimeUnit.MINUTES)) {
                written += r.getWrittenRows();
            }
        }
        return written;
    }

    /** A client built like the connector's ClientFactory builds it (LZ4 requests, no client-side retries). */
    static Client client(String url, String user, String password) {
        return new Client.Builder()
                .addEndpoint(url)
                .setUsername(user)
                .setPassword(password)
                .compressClientRequest(true)
                .setClientName("chsink-bench")
                .setConnectTimeout(10_000)
                .setSocketTimeout(300_000)
                .setMaxRetries(0)
                .build();
    }
}
