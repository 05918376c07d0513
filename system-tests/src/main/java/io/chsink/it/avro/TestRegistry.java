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
import java.util.UUID;
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
 * <li>{@code GET /schemas/ids/{id}}: {@code {"schema": "...", "guid": "..."}} (plus {@code schemaType} when not
 * AVRO, and {@code references} when there are any), or 404 with error_code 40403;</li>
 * <li>{@code GET /schemas/guids/{guid}}: the same by the schema's GUID (what Confluent's HeaderSchemaIdSerializer
 * puts in a record header), or 404 with error_code 40403;</li>
 * <li>{@code GET /subjects/{subject}/versions/{version|latest}}: subject, version, id, guid, schema (40401 /
 * 40402); a soft-deleted version only with {@code ?deleted=true} (then with {@code "deleted": true}), as Confluent's
 * client asks for the versions a schema references;</li>
 * <li>{@code DELETE /subjects/{subject}/versions/{version}}: a soft delete (the version number), 40406 when it is
 * soft-deleted already, 422 with error_code 42206 while a schema with a version that is not soft-deleted references
 * it (as Confluent's registry: the referencing versions go first);</li>
 * <li>{@code GET /subjects} and {@code GET /subjects/{subject}/versions} (soft-deleted ones with
 * {@code ?deleted=true});</li>
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
        final UUID guid = UUID.randomUUID();
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

    /** A version of a subject; a soft-deleted one keeps its number and is served only with ?deleted=true. */
    private static final class Version {
        final Registered schema;
        boolean deleted;

        Version(Registered schema) {
            this.schema = schema;
        }
    }

    private final String authorization;
    private final List<Registered> byId = new ArrayList<>();
    private final Map<String, List<Version>> subjects = new LinkedHashMap<>();
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
        List<Version> versions = subjects.computeIfAbsent(subject, s -> new ArrayList<>());
        Registered schemaOf = found;
        if (versions.stream().noneMatch(v -> v.schema == schemaOf && !v.deleted)) {
            versions.add(new Version(found));
        }
        return found.id;
    }

    /** The GUID of a registered schema id (what a header names it by). */
    public synchronized UUID guid(int id) {
        return byId.get(id - 1).guid;
    }

    /**
     * Soft-deletes a version of a subject, as {@code DELETE /subjects/{subject}/versions/{version}} does: it keeps its
     * number and id, and is served only to requests with {@code ?deleted=true}.
     */
    public synchronized void softDelete(String subject, int version) {
        List<Version> versions = subjects.get(subject);
        if (versions == null || version < 1 || version > versions.size()) {
            throw new IllegalArgumentException("no version " + version + " of subject " + subject);
        }
        versions.get(version - 1).deleted = true;
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
            boolean deleted = withDeleted(x.getRequestURI().getRawQuery());
            if (parts.length == 4 && parts[1].equals("schemas") && parts[2].equals("ids") && method.equals("GET")) {
                schemaById(x, parts[3]);
            } else if (parts.length == 4 && parts[1].equals("schemas") && parts[2].equals("guids") && method.equals("GET")) {
                schemaByGuid(x, URLDecoder.decode(parts[3], StandardCharsets.UTF_8));
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
                    send(x, 200, JSON.createObjectNode().put("id", id).put("guid", guid(id).toString()));
                } else {
                    versions(x, subject, deleted);
                }
            } else if (parts.length == 5 && parts[1].equals("subjects") && parts[3].equals("versions") && method.equals("GET")) {
                version(x, URLDecoder.decode(parts[2], StandardCharsets.UTF_8), parts[4], deleted);
            } else if (parts.length == 5 && parts[1].equals("subjects") && parts[3].equals("versions")
                    && method.equals("DELETE")) {
                delete(x, URLDecoder.decode(parts[2], StandardCharsets.UTF_8), parts[4]);
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

    private void schemaByGuid(HttpExchange x, String guidText) throws IOException {
        Registered r = null;
        synchronized (this) {
            for (Registered candidate : byId) {
                if (candidate.guid.toString().equalsIgnoreCase(guidText)) {
                    r = candidate;
                    break;
                }
            }
        }
        if (r == null) {
            error(x, 404, 40403, "Schema " + guidText + " not found");
            return;
        }
        send(x, 200, describe(r, JSON.createObjectNode()));
    }

    /** Whether a query asks for soft-deleted versions too ({@code deleted=true}). */
    private static boolean withDeleted(String rawQuery) {
        if (rawQuery == null) {
            return false;
        }
        for (String pair : rawQuery.split("&")) {
            if (pair.equalsIgnoreCase("deleted=true")) {
                return true;
            }
        }
        return false;
    }

    private void versions(HttpExchange x, String subject, boolean deleted) throws IOException {
        ArrayNode out = JSON.createArrayNode();
        synchronized (this) {
            List<Version> versions = subjects.get(subject);
            if (versions == null || (!deleted && versions.stream().allMatch(v -> v.deleted))) {
                error(x, 404, 40401, "Subject '" + subject + "' not found.");
                return;
            }
            for (int v = 1; v <= versions.size(); v++) {
                if (deleted || !versions.get(v - 1).deleted) {
                    out.add(v);
                }
            }
        }
        send(x, 200, out);
    }

    private void version(HttpExchange x, String subject, String versionText, boolean deleted) throws IOException {
        ObjectNode out = JSON.createObjectNode();
        synchronized (this) {
            List<Version> versions = subjects.get(subject);
            if (versions == null) {
                error(x, 404, 40401, "Subject '" + subject + "' not found.");
                return;
            }
            int v = versionText.equals("latest") || versionText.equals("-1") ? latest(versions, deleted)
                    : parseInt(versionText);
            if (v < 1 || v > versions.size() || (versions.get(v - 1).deleted && !deleted)) {
                error(x, 404, 40402, "Version " + versionText + " not found.");
                return;
            }
            Version found = versions.get(v - 1);
            Registered r = found.schema;
            describe(r, out.put("subject", subject).put("version", v).put("id", r.id));
            if (found.deleted) {
                out.put("deleted", true);
            }
        }
        send(x, 200, out);
    }

    /** The highest version number a request may see (0 when none). */
    private static int latest(List<Version> versions, boolean deleted) {
        for (int v = versions.size(); v >= 1; v--) {
            if (deleted || !versions.get(v - 1).deleted) {
                return v;
            }
        }
        return 0;
    }

    private void delete(HttpExchange x, String subject, String versionText) throws IOException {
        int v;
        synchronized (this) {
            List<Version> versions = subjects.get(subject);
            if (versions == null) {
                error(x, 404, 40401, "Subject '" + subject + "' not found.");
                return;
            }
            v = versionText.equals("latest") ? latest(versions, false) : parseInt(versionText);
            if (v < 1 || v > versions.size()) {
                error(x, 404, 40402, "Version " + versionText + " not found.");
                return;
            }
            if (versions.get(v - 1).deleted) {
                error(x, 404, 40406, "Subject '" + subject + "' Version " + v + " was soft deleted. Set permanent=true "
                        + "to delete permanently");
                return;
            }
            List<Integer> referencedBy = referencedBy(subject, v);
            if (!referencedBy.isEmpty()) {
                error(x, 422, 42206, "One or more references exist to the schema {subject=" + subject + ",version=" + v
                        + "}: schema ids " + referencedBy);
                return;
            }
            versions.get(v - 1).deleted = true;
        }
        send(x, 200, JSON.getNodeFactory().numberNode(v));
    }

    /**
     * The ids of the schemas that reference version {@code version} of {@code subject} and still have a version that
     * is not soft-deleted. Confluent's registry refuses to delete a version while this is not empty (42206); soft
     * deleting the referencing versions first lets it go.
     */
    private synchronized List<Integer> referencedBy(String subject, int version) {
        List<Integer> ids = new ArrayList<>();
        for (List<Version> versions : subjects.values()) {
            for (Version candidate : versions) {
                if (candidate.deleted || ids.contains(candidate.schema.id)) {
                    continue;
                }
                for (JsonNode ref : candidate.schema.references) {
                    if (subject.equals(ref.path("subject").asText()) && ref.path("version").asInt() == version) {
                        ids.add(candidate.schema.id);
                        break;
                    }
                }
            }
        }
        return ids;
    }

    /** schemaType (when not AVRO), schema, guid and references (when any), as the registry answers them. */
    private static ObjectNode describe(Registered r, ObjectNode out) {
        if (!r.type.equals("AVRO")) {
            out.put("schemaType", r.type);
        }
        out.put("schema", r.schema);
        out.put("guid", r.guid.toString());
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
