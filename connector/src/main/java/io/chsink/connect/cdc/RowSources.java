package io.chsink.connect.cdc;

import com.clickhouse.client.api.Client;
import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.schema.TableId;

/** The one place where cdc.mode is looked at: the task gets its {@link RowSource} here, at start. */
public final class RowSources {
    private RowSources() {
    }

    /**
     * @param currentRowRead told the milliseconds of every read of current rows from a table (cdc.mode=debezium)
     * @param cacheHit told of every current row the task's cache of recent rows had (cdc.mode=debezium)
     */
    public static RowSource create(SinkConfig config, Client client, java.util.function.LongConsumer currentRowRead,
            Runnable cacheHit) {
        return config.debeziumCdc() ? new DebeziumRows(config, client, currentRowRead, cacheHit)
                : new AppendedRecords();
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
