package io.chsink.it.kafka;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;

/** Connector configurations from the repository's config/ examples, so tests run what users copy. */
public final class ConnectorConfigs {
    private ConnectorConfigs() {
    }

    public static Path configDir() {
        String dir = System.getProperty("chsink.config.dir");
        if (dir == null) {
            throw new IllegalStateException("system property chsink.config.dir (the repository's config/ folder) is not set");
        }
        return Paths.get(dir);
    }

    /** The "config" object of a REST example such as clickhouse-sink.json, with {@code overrides} applied. */
    public static Map<String, String> load(String exampleFile, Map<String, String> overrides) {
        try {
            JsonNode root = new ObjectMapper().readTree(configDir().resolve(exampleFile).toFile());
            Map<String, String> config = new ObjectMapper().convertValue(root.get("config"),
                    new TypeReference<LinkedHashMap<String, String>>() { });
            config.putAll(overrides);
            return config;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
