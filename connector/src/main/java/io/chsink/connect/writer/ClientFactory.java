package io.chsink.connect.writer;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.enums.ProxyType;
import com.clickhouse.client.api.enums.SSLMode;
import io.chsink.connect.Version;
import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.config.TlsSettings;

/** Builds the client-v2 client from the connector configuration: endpoint, credentials, TLS and proxy. */
public final class ClientFactory {
    private ClientFactory() {
    }

    /** @throws org.apache.kafka.connect.errors.ConnectException when the TLS stores cannot be read or the settings conflict */
    public static Client create(SinkConfig config) {
        Lz4Native.ensureLoaded(); // before build(): the client picks its LZ4 factory when it is built
        Client.Builder b = new Client.Builder()
                .addEndpoint(config.url())
                .setUsername(config.user())
                .setPassword(config.password().value())
                .setDefaultDatabase(config.database())
                .compressClientRequest(true)
                .setClientName("chsink/" + Version.get())
                .setConnectTimeout(10_000)
                .setSocketTimeout(300_000)
                // InsertPipeline retries with backoff; the client's own immediate retries only add log noise.
                .setMaxRetries(0);
        TlsSettings tls = config.tls();
        // STRICT: the certificate chain against the trust store and the host name against the certificate;
        // VERIFY_CA: the chain only.
        b.setSSLMode(tls.verifyHostname() ? SSLMode.STRICT : SSLMode.VERIFY_CA);
        if (tls.hasTruststore()) {
            // As PEM root certificates: client-v2 refuses a trust store together with a client certificate.
            b.setRootCertificate(TlsMaterial.trustedCertificatesPem(tls));
        }
        if (tls.hasKeystore()) {
            TlsMaterial cert = TlsMaterial.clientCertificate(tls);
            b.setClientCertificate(cert.certificatePem).setClientKey(cert.keyPem);
        }
        if (!config.proxyHost().isEmpty()) {
            b.addProxy(ProxyType.HTTP, config.proxyHost(), config.proxyPort());
            if (!config.proxyUser().isEmpty()) {
                b.setProxyCredentials(config.proxyUser(), config.proxyPassword().value());
            }
        }
        try {
            return b.build();
        } catch (RuntimeException e) {
            throw new org.apache.kafka.connect.errors.ConnectException("Invalid ClickHouse client settings: "
                    + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }
}
