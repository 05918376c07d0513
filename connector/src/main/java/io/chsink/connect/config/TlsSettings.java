package io.chsink.connect.config;

import java.util.Locale;
import org.apache.kafka.common.config.types.Password;

/** The TLS part of the configuration: trust store, optional client key store, host name verification. */
public final class TlsSettings {
    private final String truststore;
    private final Password truststorePassword;
    private final String truststoreType;
    private final String keystore;
    private final Password keystorePassword;
    private final String keystoreType;
    private final Password keyPassword;
    private final boolean verifyHostname;

    TlsSettings(String truststore, Password truststorePassword, String truststoreType, String keystore,
            Password keystorePassword, String keystoreType, Password keyPassword, boolean verifyHostname) {
        this.truststore = truststore == null ? "" : truststore.trim();
        this.truststorePassword = truststorePassword;
        this.truststoreType = truststoreType.toUpperCase(Locale.ROOT);
        this.keystore = keystore == null ? "" : keystore.trim();
        this.keystorePassword = keystorePassword;
        this.keystoreType = keystoreType.toUpperCase(Locale.ROOT);
        this.keyPassword = keyPassword;
        this.verifyHostname = verifyHostname;
    }

    public boolean hasTruststore() {
        return !truststore.isEmpty();
    }

    public String truststore() {
        return truststore;
    }

    public Password truststorePassword() {
        return truststorePassword;
    }

    public String truststoreType() {
        return truststoreType;
    }

    public boolean hasKeystore() {
        return !keystore.isEmpty();
    }

    public String keystore() {
        return keystore;
    }

    public Password keystorePassword() {
        return keystorePassword;
    }

    public String keystoreType() {
        return keystoreType;
    }

    public Password keyPassword() {
        return keyPassword;
    }

    public boolean verifyHostname() {
        return verifyHostname;
    }
}
