package io.chsink.it.bench;

import static java.lang.invoke.MethodType.methodType;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.insert.InsertResponse;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.data.ClickHouseFormat;
import io.chsink.it.events.EventsTable;
import java.io.ByteArrayInputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Path C, the ceiling: the dataset already encoded by the connector's encoder into Native blocks (cut where the
 * task cuts them with default settings), inserted one after the other with a client built by the connector's
 * ClientFactory, as the connector's BlockInserter sends a block: LZ4-compressed by the client, the same server
 * settings, one insert in flight. Only the inserts are timed; what is left to path A on top of this is the encoding
 * and the task's bookkeeping.
 */
final class BlocksPath {
    /**
     * The server settings BlockInserter sends with every block (at_least_once, no clickhouse.settings). The connector
     * keeps them inside BlockInserter.insert, so this is a copy: keep it equal.
     */
    static final Map<String, String> CONNECTOR_SERVER_SETTINGS = Map.of("input_format_null_as_default", "1",
            "input_format_native_allow_types_conversion", "1", "async_insert", "0");

    private BlocksPath() {
    }

    /** As BlockInserter sends a block: LZ4 from the client and {@link #CONNECTOR_SERVER_SETTINGS}. */
    static void connectorSettings(InsertSettings s) {
        s.compressClientRequest(true);
        CONNECTOR_SERVER_SETTINGS.forEach(s::serverSetting);
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

    /** The client a task builds for these connection settings: the connector's ClientFactory from a SinkConfig. */
    static Client client(String url, String user, String password) {
        try {
            Object config = Factory.NEW_CONFIG.invoke(Map.of("clickhouse.url", url, "clickhouse.user", user,
                    "clickhouse.password", password));
            return (Client) Factory.CREATE_CLIENT.invoke(config);
        } catch (Throwable e) {
            throw ConnectorEncoder.unchecked(e);
        }
    }

    /** Handles on the connector's SinkConfig and ClientFactory, loaded on first use. */
    private static final class Factory {
        static final MethodHandle NEW_CONFIG;
        static final MethodHandle CREATE_CLIENT;

        static {
            try {
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                Class<?> sinkConfig = ConnectorClasses.load("io.chsink.connect.config.SinkConfig");
                Class<?> clientFactory = ConnectorClasses.load("io.chsink.connect.writer.ClientFactory");
                NEW_CONFIG = lookup.findConstructor(sinkConfig, methodType(void.class, Map.class));
                CREATE_CLIENT = lookup.findStatic(clientFactory, "create", methodType(Client.class, sinkConfig));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("the connector's ClientFactory cannot be loaded (see ConnectorClasses)", e);
            }
        }
    }
}
