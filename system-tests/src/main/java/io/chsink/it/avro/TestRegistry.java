package io.chsink.it.avro;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stand-in schema registry for the tests and the demo: the subset of the Confluent Schema Registry REST API
 * (documented at docs.confluent.io, "Schema Registry API Reference") that serializers and deserializers use, on
 * 127.0.0.1. It stands in for a real registry because none can be had here: Confluent's is not obtainable, and
 * Apicurio Registry from Maven Central is a Quarkus application module (not a runnable jar) whose runtime
 * dependencies are not all served (see docs/avro.md). Implemented:
 * <ul>
 * <li>{@code POST /subjects/{subject}/versions} with {@code {"schema": "...", "schemaType": "AVRO",
 * "references": [...]}}: {@code {"id": N}}; the same schema text gets the same id in every subject, and registering
 * it again under a subject returns its id without a new version;</li>
 * <li>{@code GET /schemas/ids/{id}}: {@code {"schema": "..."}} (plus {@code schemaType} when not AVRO, and
 * {@code references} when there are any), or 404 with error_code 40403;</li>
 * <li>{@code GET /subjects/{subject}/versions/{version|latest}}: subject, version, id, schema (40401 / 40402);</li>
 * <li>{@code GET /subjects} and {@code GET /subjects/{subject}/versions};</li>
 * <li>basic authentication when constructed with credentials: 401 with error_code 401 otherwise.</li>
 * </ul>
 * Errors are Confluent's JSON error bodies. {@link #stop()} and {@link #start()} make an outage on the same port; the
 * schemas survive it. {@link #requests()} counts the requests answered.
 */
public final class TestRegistry implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

    private static final class Registered {
        final int id;
        final String schema;
        final String type;
        final JsonNode references;

        Registered(int id, String schema, String type, JsonNode references) {
            this.id = id;
            this.schema = schema;
            this.type = type;
            this.references = references;
        }
    }

    private final String authorization;
    private final List<Registered> byId = new ArrayList<>();
    private final Map<String, List<Registered>> subjects = new LinkedHashMap<>();
    private final AtomicLong requests = new AtomicLong();
    private int port;
    private HttpServer server;

    /** Without authentication. */
    public TestRegistry() {
        this(null, null);
    }

    /** With basic authentication: every request must carry these credentials. */
    public TestRegistry(String user, String password) {
        this.authorization = user == null ? null
                : "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        start();
    }

    /** http://127.0.0.1:PORT */
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    public long requests() {
        return requests.get();
    }

    /** Starts listening (again, on the same port after {@link #stop()}). */
    public synchronized void start() {
        if (server != null) {
            return;
        }
        try {
            HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
            s.createContext("/", this::handle);
            s.setExecutor(Executors.newFixedThreadPool(2, r -> {
                Thread t = new Thread(r, "test-registry");
                t.setDaemon(true);
                return t;
            }));
            s.start();
            port = s.getAddress().getPort();
            server = s;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the test registry on port " + port, e);
        }
    }

    /** Stops listening: connections are refused until {@link #start()}. */
    public synchronized void stop() {
        if (server != null) {
            server.stop(0);
            ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
            server = null;
        }
    }

    @Override
    public void close() {
        stop();
    }

    /** Registers an Avro schema under a subject (as a producer's serializer would, but without HTTP): its id. */
    public synchronized int register(String subject, String schema) {
        return register(subject, schema, "AVRO", JSON.createArrayNode());
    }

    /** Registers a schema of another type (PROTOBUF, JSON): what a reader of Avro must refuse. */
    public synchronized int register(String subject, String schema, String type) {
        return register(subject, schema, type, JSON.createArrayNode());
    }

    private synchronized int register(String subject, String schema, String type, JsonNode references) {
        Registered found = null;
        for (Registered r : byId) {
            if (r.schema.equals(schema) && r.type.equals(type) && r.references.equals(references)) {
                found = r;
                break;
            }
        }
        if (found == null) {
            found = new Registered(byId.size() + 1, schema, type, references);
            byId.add(found);
        }
        List<Registered> versions = subjects.computeIfAbsent(subject, s -> new ArrayList<>());
        if (!versions.contains(found)) {
            versions.add(found);
        }
        return found.id;
    }

    private void handle(HttpExchange x) throws IOException {
        try (x) {
            requests.incrementAndGet();
            if (authorization != null && !authorization.equals(x.getRequestHeaders().getFirst("Authorization"))) {
                error(x, 401, 401, "Unauthorized");
                return;
            }
            String[] parts = x.getRequestURI().getRawPath().replaceAll("/+$", "").split("/");
            String method = x.getRequestMethod();
            if (parts.length == 4 && parts[1].equals("schemas") && parts[2].equals("ids") && method.equals("GET")) {
                schemaById(x, parts[3]);
            } else if (parts.length == 2 && parts[1].equals("subjects") && method.equals("GET")) {
                ArrayNode names = JSON.createArrayNode();
                synchronized (this) {
                    subjects.keySet().forEach(names::add);
                }
                send(x, 200, names);
            } else if (parts.length == 4 && parts[1].equals("subjects") && parts[3].equals("versions")) {
                String subject = URLDecoder.decode(parts[2], StandardCharsets.UTF_8);
                if (method.equals("POST")) {
                    JsonNode body = JSON.readTree(x.getRequestBody());
                    if (!body.path("schema").isTextual()) {
                        error(x, 422, 42201, "Invalid schema");
                        return;
                    }
                    int id = register(subject, body.get("schema").asText(), body.path("schemaType").asText("AVRO"),
                            body.has("references") ? body.get("references") : JSON.createArrayNode());
                    send(x, 200, JSON.createObjectNode().put("id", id));
                } else {
                    versions(x, subject);
                }
            } else if (parts.length == 5 && parts[1].equals("subjects") && parts[3].equals("versions") && method.equals("GET")) {
                version(x, URLDecoder.decode(parts[2], StandardCharsets.UTF_8), parts[4]);
            } else {
                error(x, 404, 404, "HTTP 404 Not Found");
            }
        } catch (RuntimeException e) {
            error(x, 500, 50001, "Error in the backend data store");
        }
    }

    private void schemaById(HttpExchange x, String idText) throws IOException {
        Registered r;
        synchronized (this) {
            int id = parseInt(idText);
            r = id >= 1 && id <= byId.size() ? byId.get(id - 1) : null;
        }
        if (r == null) {
            error(x, 404, 40403, "Schema " + idText + " not found");
            return;
        }
        send(x, 200, describe(r, JSON.createObjectNode()));
    }

    private void versions(HttpExchange x, String subject) throws IOException {
        ArrayNode out = JSON.createArrayNode();
        synchronized (this) {
            List<Registered> versions = subjects.get(subject);
            if (versions == null) {
                error(x, 404, 40401, "Subject '" + subject + "' not found.");
                return;
            }
            for (int v = 1; v <= versions.size(); v++) {
                out.add(v);
            }
        }
        send(x, 200, out);
    }

    private void version(HttpExchange x, String subject, String versionText) throws IOException {
        ObjectNode out = JSON.createObjectNode();
        synchronized (this) {
            List<Registered> versions = subjects.get(subject);
            if (versions == null) {
                error(x, 404, 40401, "Subject '" + subject + "' not found.");
                return;
            }
            int v = versionText.equals("latest") ? versions.size() : parseInt(versionText);
            if (v < 1 || v > versions.size()) {
                error(x, 404, 40402, "Version " + versionText + " not found.");
                return;
            }
            Registered r = versions.get(v - 1);
            describe(r, out.put("subject", subject).put("version", v).put("id", r.id));
        }
        send(x, 200, out);
    }

    /** schemaType (when not AVRO), schema and references (when any), as the registry answers them. */
    private static ObjectNode describe(Registered r, ObjectNode out) {
        if (!r.type.equals("AVRO")) {
            out.put("schemaType", r.type);
        }
        out.put("schema", r.schema);
        if (r.references.size() > 0) {
            out.set("references", r.references);
        }
        return out;
    }

    private static int parseInt(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static void error(HttpExchange x, int status, int code, String message) throws IOException {
        send(x, status, JSON.createObjectNode().put("error_code", code).put("message", message));
    }

    private static void send(HttpExchange x, int status, JsonNode body) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(body);
        x.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
        x.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(bytes);
        }
    }
}
