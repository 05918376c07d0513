package io.chsink.connect.writer;

import io.chsink.connect.config.KeyStoreFiles;
import io.chsink.connect.config.TlsSettings;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.Collections;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The TLS material of {@code clickhouse.ssl.*}, read from JKS/PKCS12 stores and handed to client-v2 as PEM text:
 * it takes client certificates only as PEM, and refuses a trust store together with them, so the trust store's
 * certificates go as PEM root certificates too. The material stays in memory; error messages name the file and
 * the key, never a password.
 */
final class TlsMaterial {
    final String certificatePem;
    final String keyPem;

    private TlsMaterial(String certificatePem, String keyPem) {
        this.certificatePem = certificatePem;
        this.keyPem = keyPem;
    }

    private static KeyStore open(String file, String type, String password, String key) {
        return KeyStoreFiles.open(file, type, password, key, ConnectException::new);
    }

    /** Every certificate of the trust store, as concatenated PEM blocks. */
    static String trustedCertificatesPem(TlsSettings tls) {
        KeyStore store = open(tls.truststore(), tls.truststoreType(), tls.truststorePassword().value(),
                "clickhouse.ssl.truststore.location");
        StringBuilder out = new StringBuilder();
        try {
            for (String alias : Collections.list(store.aliases())) {
                Certificate c = store.getCertificate(alias);
                if (c != null) {
                    out.append(pem("CERTIFICATE", c.getEncoded()));
                }
            }
        } catch (GeneralSecurityException e) {
            throw new ConnectException("Cannot read the certificates of " + tls.truststore()
                    + " (clickhouse.ssl.truststore.location): " + e.getClass().getSimpleName());
        }
        if (out.length() == 0) {
            throw new ConnectException("The trust store " + tls.truststore()
                    + " (clickhouse.ssl.truststore.location) holds no certificate");
        }
        return out.toString();
    }

    /** The first key entry of the key store: its certificate chain and its private key. */
    static TlsMaterial clientCertificate(TlsSettings tls) {
        KeyStore store = open(tls.keystore(), tls.keystoreType(), tls.keystorePassword().value(),
                "clickhouse.ssl.keystore.location");
        try {
            for (String alias : Collections.list(store.aliases())) {
                if (!store.isKeyEntry(alias)) {
                    continue;
                }
                Key key = store.getKey(alias, tls.keyPassword().value().toCharArray());
                if (!(key instanceof PrivateKey)) {
                    continue;
                }
                StringBuilder chain = new StringBuilder();
                for (Certificate c : store.getCertificateChain(alias)) {
                    chain.append(pem("CERTIFICATE", c.getEncoded()));
                }
                // client-v2 reads the key algorithm from the PEM header and the body as PKCS#8.
                return new TlsMaterial(chain.toString(), pem(key.getAlgorithm() + " PRIVATE KEY", key.getEncoded()));
            }
        } catch (GeneralSecurityException e) {
            throw new ConnectException("Cannot read the private key in " + tls.keystore()
                    + " (clickhouse.ssl.key.password or clickhouse.ssl.keystore.password): " + e.getClass().getSimpleName());
        }
        throw new ConnectException("The key store " + tls.keystore() + " (clickhouse.ssl.keystore.location) holds no "
                + "private key entry");
    }

    private static String pem(String type, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
    }
}
