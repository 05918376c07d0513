package io.chsink.connect.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.convert.JsonEnvelopeConverter;
import io.chsink.connect.convert.avro.AvroConverterConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/**
 * The references of docs/configuration.md are the ones generated from the ConfigDefs: the sink's, the
 * AvroConverter's and the JsonEnvelopeConverter's, each between its markers. On a mismatch the test names the file
 * under target/ that holds the generated text to paste.
 */
class ConfigReferenceTest {
    private static final Path PAGE = Paths.get("..", "docs", "configuration.md");

    @Test
    void sinkReferenceMatchesTheConfigDef() throws IOException {
        check("config-reference", ConfigReference.markdown(), "config-reference.md");
    }

    @Test
    void avroConverterReferenceMatchesItsConfigDef() throws IOException {
        check("avro-config", ConfigReference.markdown(AvroConverterConfig.CONFIG_DEF), "avro-config.md");
    }

    @Test
    void jsonEnvelopeConverterReferenceMatchesItsConfigDef() throws IOException {
        check("json-config", ConfigReference.markdown(new JsonEnvelopeConverter().config()), "json-config.md");
    }

    private static void check(String marker, String generated, String file) throws IOException {
        String start = "<!-- " + marker + ":start -->\n";
        String end = "<!-- " + marker + ":end -->";
        Path out = Paths.get("target", file);
        Files.createDirectories(out.getParent());
        Files.write(out, generated.getBytes(StandardCharsets.UTF_8));
        String text = new String(Files.readAllBytes(PAGE), StandardCharsets.UTF_8);
        int s = text.indexOf(start);
        int e = text.indexOf(end);
        assertTrue(s >= 0 && e > s, "docs/configuration.md lacks the markers " + start.trim() + " ... " + end
                + ": put them there, with the content of " + out.toAbsolutePath() + " between them");
        assertEquals(generated, text.substring(s + start.length(), e),
                "docs/configuration.md's " + marker + " reference is stale: replace the text between "
                        + start.trim() + " and " + end + " with the content of " + out.toAbsolutePath());
    }

    @Test
    void everyKeyIsDocumented() {
        for (org.apache.kafka.common.config.ConfigDef.ConfigKey k : SinkConfig.CONFIG_DEF.configKeys().values()) {
            assertTrue(k.documentation != null && k.documentation.length() > 20, k.name);
        }
    }
}
