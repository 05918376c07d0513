package io.chsink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.chsink.it.kafka.EventProducer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The quick start of docs/getting-started.md, run as a reader would run it: its CREATE TABLE, its connector config
 * (which must be config/clickhouse-sink-schemaless.json as it is), its records and its query, with only the names of
 * the table, topic and dead-letter topic made unique and the endpoints pointed at this stack. The query must answer
 * what the page shows.
 */
class QuickStartTest {
    private static final Path PAGE = Paths.get("..", "docs", "getting-started.md");
    private static final Path EXAMPLE = Paths.get("..", "config", "clickhouse-sink-schemaless.json");
    private final SinkHarness h = new SinkHarness();

    @Test
    void theQuickStartLandsWhatThePageShows() throws Exception {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        String create = one(page, "--data-binary \"(CREATE TABLE [^\"]*)\"", "the CREATE TABLE of step 3");
        String select = one(page, "--data-binary \"(SELECT [^\"]*)\"", "the query of step 7");
        String expected = one(page, Pattern.quote(select) + "\"\\s*\\n```\\s*\\n+```\\s*\\n(.*?)\\n```",
                "the answer shown under the query");
        List<String> records = Arrays.asList(one(page, "<<'EOF'\\n(.*?)\\nEOF", "the records of step 6").split("\n"));
        ObjectMapper json = new ObjectMapper();
        JsonNode onPage = null;
        Matcher blocks = Pattern.compile("```json\\n(.*?)\\n```", Pattern.DOTALL).matcher(page);
        while (blocks.find()) {
            JsonNode n = json.readTree(blocks.group(1));
            if (n.has("config") && n.path("name").asText().equals("clickhouse-sink-schemaless")) {
                onPage = n;
            }
        }
        assertTrue(onPage != null, "the page shows no connector config named clickhouse-sink-schemaless");
        assertEquals(json.readTree(EXAMPLE.toFile()), onPage, "the page's config is " + EXAMPLE + " as it is");

        String table = SinkHarness.unique("quick_start");
        String topic = table; // the table takes the topic's name, as events does on the page
        String mine = "default.`" + table + "`";
        assertTrue(create.contains("default.events") && select.contains("default.events"), create + " / " + select);
        h.ch().exec(create.replace("default.events", mine));
        h.stack.kafka().createTopic(topic, 2);
        Map<String, String> overrides = new HashMap<>();
        overrides.put("topics", topic);
        overrides.put("errors.deadletterqueue.topic.name", topic + "-dlq");
        Map<String, String> config = h.config("clickhouse-sink-schemaless.json", overrides);
        Iterator<Map.Entry<String, JsonNode>> fields = onPage.get("config").fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> f = fields.next();
            if (!overrides.containsKey(f.getKey()) && !f.getKey().startsWith("clickhouse.")) {
                assertEquals(f.getValue().asText(), config.get(f.getKey()), f.getKey());
            }
        }
        String connector = table;
        h.rest().putConnectorConfig(connector, config);
        try {
            new EventProducer(h.stack.kafka().bootstrapServers()).produceRaw(topic, 0, records);
            h.awaitRows(table, records.size(), connector);
            assertEquals(expected.strip(), h.ch().query(select.replace("default.events", mine)).strip(),
                    "step 7's query answers what the page shows");
        } finally {
            h.deleteQuietly(connector);
        }
    }

    private static String one(String page, String regex, String what) {
        Matcher m = Pattern.compile(regex, Pattern.DOTALL).matcher(page);
        assertTrue(m.find(), "docs/getting-started.md: " + what + " not found (" + regex + ")");
        String found = m.group(1);
        List<String> more = new ArrayList<>();
        while (m.find()) {
            more.add(m.group(1));
        }
        assertTrue(more.isEmpty(), "docs/getting-started.md: " + what + " appears more than once: " + more);
        return found;
    }
}
