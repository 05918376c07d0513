package io.chsink.it.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A TLS-terminating TCP proxy on loopback: accepts TLS connections (server key store given; client certificates
 * required when a client trust store is given) and forwards the plain bytes to a local port, e.g. ClickHouse's
 * HTTP port. Counts the connections whose handshake completed and those that failed.
 */
public final class TlsProxy implements AutoCloseable {
    private final SSLServerSocket server;
    private final int targetPort;
    private final SocketRelay relay = new SocketRelay("tls-proxy");
    private final AtomicLong handshakes = new AtomicLong();
    private final AtomicLong failedHandshakes = new AtomicLong();
    private final Thread acceptor;

    private TlsProxy(SSLServerSocket server, int targetPort) {
        this.server = server;
        this.targetPort = targetPort;
        this.acceptor = new Thread(this::acceptLoop, "tls-proxy-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * @param serverStore PKCS12 key store with the server key and certificate ({@link TestPki#PASSWORD})
     * @param clientCa trust store of the CA that signs client certificates, or null to not ask for them
     */
    public static TlsProxy start(Path serverStore, Path clientCa, int targetPort) {
        try {
            KeyStore ks = load(serverStore);
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, TestPki.PASSWORD.toCharArray());
            TrustManagerFactory tmf = null;
            if (clientCa != null) {
                tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(load(clientCa));
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
            SSLServerSocket s = (SSLServerSocket) ctx.getServerSocketFactory().createServerSocket();
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
            s.setNeedClientAuth(clientCa != null);
            return new TlsProxy(s, targetPort);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static KeyStore load(Path p) throws IOException, java.security.GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(p)) {
            ks.load(in, TestPki.PASSWORD.toCharArray());
        }
        return ks;
    }

    public int port() {
        return server.getLocalPort();
    }

    public long handshakes() {
        return handshakes.get();
    }

    public long failedHandshakes() {
        return failedHandshakes.get();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                SSLSocket client = (SSLSocket) server.accept();
                Thread t = new Thread(() -> serve(client), "tls-proxy-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(SSLSocket client) {
        relay.track(client);
        try {
            client.startHandshake();
            handshakes.incrementAndGet();
        } catch (IOException e) {
            failedHandshakes.incrementAndGet();
            relay.close(client);
            return;
        }
        Socket upstream;
        try {
            upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        } catch (IOException e) {
            relay.close(client);
            return;
        }
        relay.relay(client, upstream);
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closing
        }
        relay.closeAll();
    }
}
