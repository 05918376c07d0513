package io.chsink.it.stack;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The byte-forwarding half of the test proxies ({@link TlsProxy}, {@link ConnectProxy}): remembers the sockets
 * they opened, copies bytes both ways between a client and its upstream, and closes everything on demand.
 */
final class SocketRelay {
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final String threadName;

    SocketRelay(String threadName) {
        this.threadName = threadName;
    }

    /** Tracks a socket so that {@link #closeAll()} closes it. */
    void track(Socket s) {
        open.add(s);
    }

    /** Copies bytes both ways until either side closes; returns when the client-to-upstream direction ends. */
    void relay(Socket client, Socket upstream) {
        track(client);
        track(upstream);
        Thread back = new Thread(() -> pump(upstream, client), threadName + "-back");
        back.setDaemon(true);
        back.start();
        pump(client, upstream);
    }

    private void pump(Socket from, Socket to) {
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side closed
        } finally {
            close(from);
            close(to);
        }
    }

    void close(Socket s) {
        open.remove(s);
        try {
            s.close();
        } catch (IOException e) {
            // closing
        }
    }

    void closeAll() {
        for (Socket s : open) {
            close(s);
        }
    }
}
