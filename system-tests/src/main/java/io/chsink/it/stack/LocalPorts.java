package io.chsink.it.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free TCP ports on the loopback interface, for child processes that need a fixed port before they start. */
public final class LocalPorts {
    private LocalPorts() {
    }

    /** A port that is free right now (the OS picks it; a small race with other processes remains). */
    public static int free() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }
}
