package io.chsink.connect.evolve;

import com.clickhouse.client.api.Client;
import io.chsink.connect.cluster.ClusterView;
import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.schema.TableSchemaLoader;
import io.chsink.connect.writer.RetryPolicy;

/** The one place where auto.create and auto.evolve are looked at: the task gets its {@link TableEvolution} here. */
public final class Evolutions {
    /** Keys and defaults of cdc.mode (defined by the CDC change; read by name here until then). */

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
                new ConnectTypes(ConnectTypes.StructAs.parse(config.autoCreateStructType())), runner, loader)
                .withClusters(ClusterView.of(client));
    }

    static FollowingTables.Options options(SinkConfig config) {
        boolean cdc = config.debeziumCdc();
        String version = cdc ? config.cdcVersionColumn() : null;
        String deleted = cdc ? config.cdcDeletedColumn() : null;
        return new FollowingTables.Options(config.autoCreateEngine(), config.autoCreateOrderBy(),
                config.autoCreateSettings(), config.cluster(), version, deleted).withVersionBits(
                        cdc ? config.cdcVersionBits() : 64);
    }
}
