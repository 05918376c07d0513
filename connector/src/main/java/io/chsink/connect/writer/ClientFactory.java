package io.chsink.connect.writer;

import com.clickhouse.client.api.Client;
import io.chsink.connect.Version;
import io.chsink.connect.config.SinkConfig;

/** Builds the client-v2 client from the connector configuration. */
public final class ClientFactory {
    private ClientFactory() {
    }

    public static Client create(SinkConfig config) {
        return new Client.Builder()
                .addEndpoint(config.url())
                .setUsername(config.user())
                .setPassword(config.password().value())
                .setDefaultDatabase(config.database())
                .compressClientRequest(true)
                .setClientName("chsink/" + Version.get())
                .setConnectTimeout(10_000)
                .setSocketTimeout(300_000)
                // InsertPipeline retries with backoff; the client's own immediate retries only add log noise.
                .setMaxRetries(0)
                .build();
    }
}
