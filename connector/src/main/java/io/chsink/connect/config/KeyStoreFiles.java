package io.chsink.connect.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.function.Function;

/** Opens the JKS/PKCS12 stores named by TLS settings (ClickHouse's and the schema registry's). */
public final class KeyStoreFiles {
    private KeyStoreFiles() {
    }

    /**
     * The store in {@code file}; a failure becomes {@code error} of a message naming the file, the setting
     * {@code key} that named it and the store type, never the password.
     */
    public static KeyStore open(String file, String type, String password, String key,
            Function<String, ? extends RuntimeException> error) {
        try (InputStream in = Files.newInputStream(Paths.get(file))) {
            KeyStore store = KeyStore.getInstance(type);
            store.load(in, password.toCharArray());
            return store;
        } catch (IOException | GeneralSecurityException e) {
            throw error.apply("Cannot read " + file + " (" + key + ", " + type + "): " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
    }
}
