package io.chsink.connect.cdc;

import com.clickhouse.client.api.Client;
import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.schema.TableId;

/** The one place where cdc.mode is looked at: the task gets its {@link RowSource} here, at start. */
public final class RowSources {
    private RowSources() {
    }

    public static RowSource create(SinkConfig config, Client client) {
        return config.debeziumCdc() ? new DebeziumRows(config, client) : new AppendedRecords();
    }

    /**
     * For validate(): why rows of the configured cdc.mode cannot go into the table (with the statement that fixes
     * it), or null when they can or the table does not exist.
     */
    public static String tableProblem(SinkConfig config, Client client, TableId table) {
        return config.debeziumCdc()
                ? ReplacingTableCheck.problem(client, table, config.cdcVersionColumn(), config.cdcDeletedColumn(),
                        config.cdcVersionBits())
                : null;
    }
}
