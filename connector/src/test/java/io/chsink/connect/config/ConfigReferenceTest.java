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
        Path readme = Paths.get("..", "README.md");
        String text = new String(Files.readAllBytes(readme), StandardCharsets.UTF_8);
        int s = text.indexOf(START);
        int e = text.indexOf(END);
        assertTrue(s >= 0 && e > s, "README.md lacks the config-reference markers");
        String generated = ConfigReference.markdown();
        Path out = Paths.get("target", "config-reference.md");
        Files.createDirectories(out.getParent());
        Files.write(out, generated.getBytes(StandardCharsets.UTF_8));
        assertEquals(generated, text.substring(s + START.length(), e),
                "README.md's configuration reference is stale: replace it with " + out.toAbsolutePath());
    }

    @Test
    void everyKeyIsDocumented() {
        for (org.apache.kafka.common.config.ConfigDef.ConfigKey k : SinkConfig.CONFIG_DEF.configKeys().values()) {
            assertTrue(k.documentation != null && k.documentation.length() > 20, k.name);
        }
    }
}
