package io.chsink.connect.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/** The README's configuration reference is the one generated from the ConfigDef. */
class ConfigReferenceTest {
    private static final String START = "<!-- config-reference:start -->\n";
    private static final String END = "<!-- config-reference:end -->";

    @Test
    void readmeReferenceMatchesTheConfigDef() throws IOException {
        check(START, END, ConfigReference.markdown(), "config-reference.md");
    }

    @Test
    void readmeAvroConverterReferenceMatchesItsConfigDef() throws IOException {
        check("<!-- avro-config:start -->\n", "<!-- avro-config:end -->",
                ConfigReference.markdown(io.chsink.connect.convert.avro.AvroConverterConfig.CONFIG_DEF), "avro-config.md");
    }

    private static void check(String start, String end, String generated, String file) throws IOException {
        Path readme = Paths.get("..", "README.md");
        String text = new String(Files.readAllBytes(readme), StandardCharsets.UTF_8);
        int s = text.indexOf(start);
        int e = text.indexOf(end);
        assertTrue(s >= 0 && e > s, "README.md lacks the markers " + start.trim() + " ... " + end);
        Path out = Paths.get("target", file);
        Files.createDirectories(out.getParent());
        Files.write(out, generated.getBytes(StandardCharsets.UTF_8));
        assertEquals(generated, text.substring(s + start.length(), e),
                "README.md's reference is stale: replace it with " + out.toAbsolutePath());
    }

    @Test
    void everyKeyIsDocumented() {
        for (org.apache.kafka.common.config.ConfigDef.ConfigKey k : SinkConfig.CONFIG_DEF.configKeys().values()) {
            assertTrue(k.documentation != null && k.documentation.length() > 20, k.name);
        }
    }
}
