package io.chsink.connect.evolve;

import com.clickhouse.client.api.Client;
import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.schema.TableSchemaLoader;
import io.chsink.connect.writer.RetryPolicy;
import java.util.Map;

/** The one place where auto.create and auto.evolve are looked at: the task gets its {@link TableEvolution} here. */
public final class Evolutions {
    /** Keys and defaults of cdc.mode (defined by the CDC change; read by name here until then). */
    static final String CDC_MODE = "cdc.mode";
    static final String CDC_VERSION_COLUMN = "cdc.version.column";
    static final String CDC_DELETED_COLUMN = "cdc.deleted.column";

    private Evolutions() {
    }

    public static TableEvolution create(SinkConfig config, Client client) {
        if (!config.autoCreate() && !config.autoEvolve()) {
            return new FixedTables();
        }
        TableSchemaLoader loader = new TableSchemaLoader(client);
        DdlRunner runner = new DdlRunner(DdlRunner.of(client), loader,
                new RetryPolicy(config.retryBackoffMs(), config.retryTimeoutMs()));
        return new FollowingTables(config.autoCreate(), config.autoEvolve(), options(config),
                new ConnectTypes(ConnectTypes.StructAs.parse(config.autoCreateStructType())), runner, loader);
    }

    static FollowingTables.Options options(SinkConfig config) {
        // TODO(cdc merge): use config.debeziumCdc(), cdcVersionColumn() and cdcDeletedColumn() once SinkConfig has them.
        Map<String, String> raw = config.originalsStrings();
        boolean cdc = "debezium".equals(raw.getOrDefault(CDC_MODE, "none").trim());
        String version = cdc ? raw.getOrDefault(CDC_VERSION_COLUMN, "_version").trim() : null;
        String deleted = cdc ? raw.getOrDefault(CDC_DELETED_COLUMN, "_is_deleted").trim() : null;
        return new FollowingTables.Options(config.autoCreateEngine(), config.autoCreateOrderBy(),
                config.autoCreateSettings(), config.cluster(), version, deleted);
    }
}
