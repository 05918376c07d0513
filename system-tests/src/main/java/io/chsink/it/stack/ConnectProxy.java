package io.chsink.it.stack;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A minimal HTTP proxy on loopback that only tunnels ({@code CONNECT host:port}), optionally requiring basic
 * proxy authentication; it records the tunnels it opened. Enough to prove that HTTPS traffic goes through a proxy.
 */
public final class ConnectProxy implements AutoCloseable {
    private final ServerSocket server;
    private final String expectedAuth;
    private final List<String> tunnels = new CopyOnWriteArrayList<>();
    private final List<String> refused = new CopyOnWriteArrayList<>();
    private final SocketRelay relay = new SocketRelay("connect-proxy");

    private ConnectProxy(ServerSocket server, String expectedAuth) {
        this.server = server;
        this.expectedAuth = expectedAuth;
        Thread t = new Thread(this::acceptLoop, "connect-proxy-" + server.getLocalPort());
        t.setDaemon(true);
        t.start();
    }

    /** @param user null for no authentication */
    public static ConnectProxy start(String user, String password) {
        try {
            ServerSocket s = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
            return new ConnectProxy(s, user == null ? null : "Basic " + Base64.getEncoder()
                    .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    /** The targets of the tunnels opened, e.g. {@code 127.0.0.1:8443}. */
    public List<String> tunnels() {
        return tunnels;
    }

    /** Request lines refused (not CONNECT, or without the right credentials). */
    public List<String> refused() {
        return refused;
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket c = server.accept();
                Thread t = new Thread(() -> serve(c), "connect-proxy-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket client) {
        relay.track(client);
        try {
            InputStream in = client.getInputStream();
            List<String> head = readHead(in);
            String request = head.isEmpty() ? "" : head.get(0);
            String auth = null;
            for (String h : head) {
                if (h.toLowerCase(Locale.ROOT).startsWith("proxy-authorization:")) {
                    auth = h.substring(h.indexOf(':') + 1).trim();
                }
            }
            String[] parts = request.split(" ");
            OutputStream out = client.getOutputStream();
            if (parts.length < 2 || !parts[0].equals("CONNECT")) {
                refused.add(request);
                out.write("HTTP/1.1 405 Only CONNECT\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                relay.close(client);
                return;
            }
            if (expectedAuth != null && !expectedAuth.equals(auth)) {
                refused.add(request);
                out.write(("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"test\"\r\n"
                        + "Content-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                relay.close(client);
                return;
            }
            String target = parts[1];
            int colon = target.lastIndexOf(':');
            Socket upstream = new Socket(target.substring(0, colon), Integer.parseInt(target.substring(colon + 1)));
            tunnels.add(target);
            out.write("HTTP/1.1 200 Connection established\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            relay.relay(client, upstream);
        } catch (IOException | RuntimeException e) {
            relay.close(client);
        }
    }

    private static List<String> readHead(InputStream in) throws IOException {
        List<String> lines = new java.util.ArrayList<>();
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            if (b == '\n') {
                String l = line.toString(StandardCharsets.US_ASCII).replace("\r", "");
                if (l.isEmpty()) {
                    break;
                }
                lines.add(l);
                line.reset();
            } else {
                line.write(b);
            }
        }
        return lines;
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
