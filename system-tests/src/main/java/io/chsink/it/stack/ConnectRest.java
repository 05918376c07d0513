package io.chsink.it.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A small client for the Kafka Connect REST API. Non-2xx answers throw {@link RestException} carrying the status
 * and body; I/O failures (worker down) throw {@link UncheckedIOException}. Mutating calls retry HTTP 409 for up
 * to 30 s, because Connect answers 409 while a rebalance is pending or in progress.
 */
public final class ConnectRest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CONFLICT_RETRY = Duration.ofSeconds(30);

    private final String baseUrl;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** @param baseUrl for example {@code http://127.0.0.1:8083} */
    public ConnectRest(String baseUrl) {
        this.baseUrl = baseUrl.replaceAll("/+$", "");
    }

    public String baseUrl() {
        return baseUrl;
    }

    /** A plugin as {@code GET /connector-plugins} lists it; {@code type} is {@code sink} or {@code source}. */
    public record Plugin(String className, String type, String version) {
    }

    /** State of the connector or of one task: UNASSIGNED, RUNNING, PAUSED, STOPPED, FAILED or RESTARTING. */
    public record TaskState(int id, String state, String workerId, String trace) {
        public boolean isRunning() {
            return "RUNNING".equals(state);
        }

        public boolean isFailed() {
            return "FAILED".equals(state);
        }
    }

    /** {@code GET /connectors/{name}/status}; the connector's own state has id -1. */
    public record ConnectorStatus(String name, String type, TaskState connector, List<TaskState> tasks) {
        /** Connector RUNNING with exactly {@code n} tasks, all RUNNING. */
        public boolean runningWith(int n) {
            return connector.isRunning() && tasks.size() == n && tasks.stream().allMatch(TaskState::isRunning);
        }

        public boolean anyFailed() {
            return connector.isFailed() || tasks.stream().anyMatch(TaskState::isFailed);
        }
    }

    /** A non-2xx answer. */
    public static final class RestException extends RuntimeException {
        private final int status;
        private final String body;

        RestException(String request, int status, String body) {
            super(request + " -> HTTP " + status + ": " + body);
            this.status = status;
            this.body = body;
        }

        public int status() {
            return status;
        }

        public String body() {
            return body;
        }
    }

    /**
     * True when {@code GET /health} answers 200 (worker started and joined its group); false if unreachable. Workers
     * before Connect 3.9 have no {@code /health} (KIP-1017) and answer 404: for them {@code GET /connectors}
     * answering 200 counts.
     */
    public boolean isReady() {
        try {
            int health = send("GET", "/health", null).statusCode();
            return health == 200 || health == 404 && send("GET", "/connectors", null).statusCode() == 200;
        } catch (UncheckedIOException e) {
            return false;
        }
    }

    /** {@code GET /}: the worker's Kafka version, e.g. {@code 3.5.2}. */
    public String workerVersion() {
        return call("GET", "/", null).path("version").asText();
    }

    /** {@code GET /connector-plugins?connectorsOnly=false}: connectors, converters, transforms... (Connect 3.2+). */
    public List<Plugin> allPlugins() {
        List<Plugin> plugins = new ArrayList<>();
        for (JsonNode p : call("GET", "/connector-plugins?connectorsOnly=false", null)) {
            plugins.add(new Plugin(p.path("class").asText(), p.path("type").asText(), p.path("version").asText()));
        }
        return plugins;
    }

    public List<Plugin> plugins() {
        List<Plugin> plugins = new ArrayList<>();
        for (JsonNode p : call("GET", "/connector-plugins", null)) {
            plugins.add(new Plugin(p.path("class").asText(), p.path("type").asText(), p.path("version").asText()));
        }
        return plugins;
    }

    public List<String> connectors() {
        List<String> names = new ArrayList<>();
        call("GET", "/connectors", null).forEach(n -> names.add(n.asText()));
        return names;
    }

    /** Creates or updates a connector ({@code PUT /connectors/{name}/config}). */
    public void putConnectorConfig(String name, Map<String, String> config) {
        call("PUT", "/connectors/" + encode(name) + "/config", config);
    }

    public ConnectorStatus connectorStatus(String name) {
        JsonNode status = call("GET", "/connectors/" + encode(name) + "/status", null);
        List<TaskState> tasks = new ArrayList<>();
        status.path("tasks").forEach(t -> tasks.add(state(t.path("id").asInt(), t)));
        return new ConnectorStatus(status.path("name").asText(), status.path("type").asText(null),
                state(-1, status.path("connector")), tasks);
    }

    /**
     * Polls the status until the connector and exactly {@code tasks} tasks are RUNNING on workers whose REST API
     * answers (a worker that left or died keeps its last RUNNING status until its work is reassigned; a worker
     * restarted on the same port has the same id, though). A missing connector (404), an unreachable worker or
     * 409 count as "not yet". Fails early when a FAILED state persists for 5 s, quoting
     * its trace; on timeout quotes the last status.
     */
    public ConnectorStatus waitForTasksRunning(String name, int tasks, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long failedSince = 0;
        Object last = "no answer";
        while (true) {
            try {
                ConnectorStatus status = connectorStatus(name);
                if (status.runningWith(tasks) && workersAnswer(status)) {
                    return status;
                }
                last = status;
                if (!status.anyFailed()) {
                    failedSince = 0;
                } else if (failedSince == 0) {
                    failedSince = System.nanoTime();
                } else if (System.nanoTime() - failedSince > Duration.ofSeconds(5).toNanos()) {
                    throw new IllegalStateException("connector " + name + " failed: " + describe(status));
                }
            } catch (RestException e) {
                if (e.status() != 404 && e.status() != 409) {
                    throw e;
                }
                last = e.getMessage();
            } catch (UncheckedIOException e) {
                last = e.getMessage();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("connector " + name + " did not get " + tasks + " running tasks within "
                        + timeout + "; last status: " + (last instanceof ConnectorStatus s ? describe(s) : last));
            }
            ChildJvm.sleep(250);
        }
    }

    public void restartTask(String name, int taskId) {
        call("POST", "/connectors/" + encode(name) + "/tasks/" + taskId + "/restart", null);
    }

    /** {@code POST /connectors/{name}/restart?includeTasks=..&onlyFailed=false}. */
    public void restartConnector(String name, boolean includeTasks) {
        restartConnector(name, includeTasks, false);
    }

    /** {@code POST /connectors/{name}/restart?includeTasks=..&onlyFailed=..}. */
    public void restartConnector(String name, boolean includeTasks, boolean onlyFailed) {
        call("POST", "/connectors/" + encode(name) + "/restart?includeTasks=" + includeTasks + "&onlyFailed=" + onlyFailed,
                null);
    }

    /**
     * {@code PUT /connectors/{name}/stop} (KIP-875), then waits until the connector is STOPPED with no tasks:
     * only then does Connect accept offset changes.
     */
    public void stopConnector(String name, Duration timeout) {
        call("PUT", "/connectors/" + encode(name) + "/stop", null);
        long deadline = System.nanoTime() + timeout.toNanos();
        ConnectorStatus status = null;
        while (System.nanoTime() < deadline) {
            try {
                status = connectorStatus(name);
                if ("STOPPED".equals(status.connector().state()) && status.tasks().isEmpty()) {
                    return;
                }
            } catch (RestException e) {
                if (e.status() != 409) {
                    throw e;
                }
            }
            ChildJvm.sleep(250);
        }
        throw new IllegalStateException("connector " + name + " did not stop within " + timeout + ": "
                + (status == null ? "no status" : describe(status)));
    }

    /** {@code PUT /connectors/{name}/resume}: a STOPPED (or PAUSED) connector starts its tasks again. */
    public void resumeConnector(String name) {
        call("PUT", "/connectors/" + encode(name) + "/resume", null);
    }

    /**
     * How many partitions of a connector (source or sink) have a committed offset ({@code GET
     * /connectors/{name}/offsets}): 0 before its first offset commit.
     */
    public int committedOffsetCount(String name) {
        return call("GET", "/connectors/" + encode(name) + "/offsets", null).path("offsets").size();
    }

    /** {@code GET /connectors/{name}/offsets} of a sink connector: the committed offset per topic partition. */
    public Map<TopicPartition, Long> sinkOffsets(String name) {
        Map<TopicPartition, Long> out = new LinkedHashMap<>();
        for (JsonNode o : call("GET", "/connectors/" + encode(name) + "/offsets", null).path("offsets")) {
            JsonNode p = o.path("partition");
            out.put(new TopicPartition(p.path("kafka_topic").asText(), p.path("kafka_partition").asInt()),
                    o.path("offset").path("kafka_offset").asLong());
        }
        return out;
    }

    /**
     * {@code PATCH /connectors/{name}/offsets} of a stopped sink connector: each partition to its offset, or reset
     * (its committed offset deleted) where the value is null. Returns Connect's message.
     */
    public String alterSinkOffsets(String name, Map<TopicPartition, Long> offsets) {
        List<Map<String, Object>> list = new ArrayList<>();
        offsets.forEach((tp, offset) -> {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("partition", Map.of("kafka_topic", tp.topic(), "kafka_partition", tp.partition()));
            entry.put("offset", offset == null ? null : Map.of("kafka_offset", offset));
            list.add(entry);
        });
        return offsetsCall("PATCH", name, Map.of("offsets", list));
    }

    /** {@code DELETE /connectors/{name}/offsets} of a stopped connector: all its offsets reset. Returns the message. */
    public String resetOffsets(String name) {
        return offsetsCall("DELETE", name, null);
    }

    /**
     * Offsets calls also retry, for up to 30 s, the answer Connect gives while the stopped tasks' consumers are
     * still leaving the group ("haven't stopped completely yet").
     */
    private String offsetsCall(String method, String name, Object body) {
        long deadline = System.nanoTime() + CONFLICT_RETRY.toNanos();
        while (true) {
            try {
                return call(method, "/connectors/" + encode(name) + "/offsets", body).path("message").asText();
            } catch (RestException e) {
                if (!e.body().contains("haven't stopped completely") || System.nanoTime() > deadline) {
                    throw e;
                }
            }
            ChildJvm.sleep(500);
        }
    }

    public void deleteConnector(String name) {
        call("DELETE", "/connectors/" + encode(name), null);
    }

    /**
     * {@code PUT /connector-plugins/{class}/config/validate}: the error messages per config key, only for keys
     * that have errors (empty when the config is valid). {@code connector.class} and {@code name} (which Connect
     * otherwise reports as missing) are added when absent.
     */
    public Map<String, List<String>> validate(String pluginClass, Map<String, String> config) {
        Map<String, String> body = new LinkedHashMap<>(config);
        body.putIfAbsent("connector.class", pluginClass);
        body.putIfAbsent("name", "validate");
        JsonNode result = call("PUT", "/connector-plugins/" + encode(pluginClass) + "/config/validate", body);
        Map<String, List<String>> errors = new TreeMap<>();
        for (JsonNode entry : result.path("configs")) {
            JsonNode value = entry.path("value");
            List<String> messages = new ArrayList<>();
            value.path("errors").forEach(m -> messages.add(m.asText()));
            if (!messages.isEmpty()) {
                errors.put(value.path("name").asText(), messages);
            }
        }
        return errors;
    }

    /** Worker ids are the workers' advertised REST host:port, so a live worker answers {@code GET /} there. */
    private boolean workersAnswer(ConnectorStatus status) {
        return status.tasks().stream().map(TaskState::workerId).distinct().allMatch(id -> {
            try {
                return new ConnectRest("http://" + id).send("GET", "/", null).statusCode() == 200;
            } catch (UncheckedIOException e) {
                return false;
            }
        });
    }

    private static TaskState state(int id, JsonNode node) {
        return new TaskState(id, node.path("state").asText(), node.path("worker_id").asText(null), node.path("trace").asText(null));
    }

    private static String describe(ConnectorStatus status) {
        StringBuilder text = new StringBuilder("connector " + status.connector().state());
        appendTrace(text, status.connector());
        for (TaskState task : status.tasks()) {
            text.append(", task ").append(task.id()).append(' ').append(task.state()).append(" on ").append(task.workerId());
            appendTrace(text, task);
        }
        return text.toString();
    }

    private static void appendTrace(StringBuilder text, TaskState state) {
        if (state.trace() != null) {
            text.append("\n").append(state.trace()).append("\n");
        }
    }

    private JsonNode call(String method, String path, Object body) {
        long deadline = System.nanoTime() + CONFLICT_RETRY.toNanos();
        while (true) {
            HttpResponse<String> response = send(method, path, body);
            int status = response.statusCode();
            if (status >= 200 && status < 300) {
                try {
                    return response.body().isBlank() ? JSON.missingNode() : JSON.readTree(response.body());
                } catch (JsonProcessingException e) {
                    throw new IllegalStateException(method + " " + baseUrl + path + " returned invalid JSON: " + response.body(), e);
                }
            }
            if (status != 409 || method.equals("GET") || System.nanoTime() > deadline) {
                throw new RestException(method + " " + baseUrl + path, status, response.body());
            }
            ChildJvm.sleep(500);
        }
    }

    private HttpResponse<String> send(String method, String path, Object body) {
        try {
            HttpRequest.BodyPublisher publisher = body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body));
            HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                    .timeout(Duration.ofMinutes(2))
                    .header("Content-Type", "application/json")
                    .header("Accept", "application/json")
                    .method(method, publisher)
                    .build();
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + baseUrl + path + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + method + " " + baseUrl + path, e);
        }
    }

    private static String encode(String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
