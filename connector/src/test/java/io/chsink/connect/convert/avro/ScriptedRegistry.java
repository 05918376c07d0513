package io.chsink.connect.convert.avro;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scripted HTTP endpoint, not a registry: it answers each request whose raw path and query equal a scripted one with
 * that body, 404 (Confluent's error body) otherwise, or {@code failStatus} for the next {@code failFirst} requests;
 * and it records every request's raw path and query.
 */
final class ScriptedRegistry implements AutoCloseable {
    final Map<String, String> bodies = new ConcurrentHashMap<>();
    final List<String> requests = new ArrayList<>();
    final AtomicInteger failFirst = new AtomicInteger();
    volatile int failStatus = 503;
    private final HttpServer server;

    ScriptedRegistry() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        server.createContext("/", x -> {
            String asked = x.getRequestURI().getRawPath()
                    + (x.getRequestURI().getRawQuery() == null ? "" : "?" + x.getRequestURI().getRawQuery());
            synchronized (requests) {
                requests.add(asked);
            }
            int status;
            String body;
            if (failFirst.getAndDecrement() > 0) {
                status = failStatus;
                body = "{\"error_code\":" + failStatus + ",\"message\":\"scripted failure\"}";
            } else if (bodies.containsKey(asked)) {
                status = 200;
                body = bodies.get(asked);
            } else {
                status = 404;
                body = "{\"error_code\":40403,\"message\":\"Schema not found\"}";
            }
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(status, b.length);
            try (OutputStream out = x.getResponseBody()) {
                out.write(b);
            }
        });
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    List<String> requests() {
        synchronized (requests) {
            return new ArrayList<>(requests);
        }
    }

    /** A converter configuration for this endpoint, retries 10 ms apart. */
    Map<String, Object> config() {
        Map<String, Object> m = new HashMap<>();
        m.put("schema.registry.url", url());
        m.put("retries.wait.ms", "10");
        return m;
    }

    /** A registry answer: the schema as a JSON string, then the other members (raw JSON) as given. */
    static String answer(String schema, String... members) {
        StringBuilder sb = new StringBuilder("{\"schema\":\"")
                .append(schema.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        for (String m : members) {
            sb.append(',').append(m);
        }
        return sb.append('}').toString();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
