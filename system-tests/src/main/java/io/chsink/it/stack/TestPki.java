package io.chsink.it.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away certificate authority for TLS tests, made with the JDK's {@code keytool}: a CA, server and client
 * certificates signed by it, and PKCS12 trust/key stores. Every store uses {@link #PASSWORD}.
 */
public final class TestPki {
    public static final String PASSWORD = "test-store-pass";
    private final Path dir;
    private final String name;

    private TestPki(Path dir, String name) {
        this.dir = dir;
        this.name = name;
    }

    /** Creates the CA {@code CN=<name>} in {@code dir} (its key store is {@code <name>-ca.p12}). */
    public static TestPki create(Path dir, String name) {
        TestPki pki = new TestPki(dir, name);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        pki.keytool("-genkeypair", "-keystore", pki.caStore().toString(), "-storetype", "PKCS12", "-alias", "ca",
                "-dname", "CN=" + name, "-keyalg", "RSA", "-keysize", "2048", "-validity", "3",
                "-ext", "bc:c", "-ext", "KeyUsage:critical=keyCertSign,cRLSign");
        pki.keytool("-exportcert", "-keystore", pki.caStore().toString(), "-alias", "ca", "-rfc",
                "-file", pki.caPem().toString());
        return pki;
    }

    private Path caStore() {
        return dir.resolve(name + "-ca.p12");
    }

    public Path caPem() {
        return dir.resolve(name + "-ca.pem");
    }

    /** A trust store holding only this CA. */
    public Path truststore() {
        Path p = dir.resolve(name + "-truststore.p12");
        if (!Files.exists(p)) {
            keytool("-importcert", "-keystore", p.toString(), "-storetype", "PKCS12", "-alias", "ca",
                    "-file", caPem().toString(), "-noprompt");
        }
        return p;
    }

    /**
     * A key store with a key and a certificate for {@code cn} signed by this CA, with the given subject alternative
     * names (e.g. {@code "dns:localhost,ip:127.0.0.1"}, or null for none), and the CA in the chain.
     */
    public Path issue(String file, String cn, String san) {
        Path store = dir.resolve(file + ".p12");
        Path csr = dir.resolve(file + ".csr");
        Path cert = dir.resolve(file + ".pem");
        keytool("-genkeypair", "-keystore", store.toString(), "-storetype", "PKCS12", "-alias", "key",
                "-dname", "CN=" + cn, "-keyalg", "RSA", "-keysize", "2048", "-validity", "3");
        keytool("-certreq", "-keystore", store.toString(), "-alias", "key", "-file", csr.toString());
        List<String> gencert = new ArrayList<>(List.of("-gencert", "-keystore", caStore().toString(), "-alias", "ca",
                "-infile", csr.toString(), "-outfile", cert.toString(), "-rfc", "-validity", "3"));
        if (san != null) {
            gencert.addAll(List.of("-ext", "SAN=" + san));
        }
        keytool(gencert.toArray(new String[0]));
        keytool("-importcert", "-keystore", store.toString(), "-alias", "ca", "-file", caPem().toString(), "-noprompt");
        keytool("-importcert", "-keystore", store.toString(), "-alias", "key", "-file", cert.toString(), "-noprompt");
        return store;
    }

    private void keytool(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("-storepass", PASSWORD));
        if (args[0].equals("-genkeypair")) {
            cmd.addAll(List.of("-keypass", PASSWORD));
        }
        try {
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
