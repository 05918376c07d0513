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
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;
import org.junit.jupiter.api.Test;

/**
 * The references of docs/configuration.md are the ones generated from the ConfigDefs: the sink's, the
 * AvroConverter's and the JsonEnvelopeConverter's, each between its markers. On a mismatch the test names the file
 * under target/ that holds the generated text to paste. Each key's description is at most two sentences, and the
 * reference links it to the page that explains it.
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

    private static List<ConfigDef> defs() {
        return List.of(SinkConfig.CONFIG_DEF, AvroConverterConfig.CONFIG_DEF, new JsonEnvelopeConverter().config());
    }

    @Test
    void noDescriptionHasMoreThanTwoSentences() {
        List<String> wordy = new ArrayList<>();
        for (ConfigDef def : defs()) {
            for (ConfigKey k : def.configKeys().values()) {
                int n = sentences(k.documentation == null ? "" : k.documentation);
                if (n > 2) {
                    wordy.add(k.name + " (" + n + " sentences): " + k.documentation);
                }
            }
        }
        assertEquals(List.of(), wordy, "descriptions of more than two sentences: shorten them, and leave the "
                + "details to the page the reference links");
    }

    @Test
    void sentencesAreCountedAsAReaderWould() {
        assertEquals(1, sentences("Engine as in ENGINE = ..., e.g. MergeTree."));
        assertEquals(2, sentences("Password of the key store. Never logged."));
        assertEquals(3, sentences("none: a row. debezium: a change event. See docs/cdc.md"));
        assertEquals(1, sentences("A list, i.e. 'a:b' pairs (the default is 3 x flush.max.bytes)"));
    }

    /** Sentences end at '.', '!' or '?' before a space or the end; "e.g.", "i.e." and "..." end none. */
    static int sentences(String doc) {
        String t = doc.trim().replace("e.g.", "eg").replace("i.e.", "ie").replace("...", "\u2026");
        Matcher m = Pattern.compile("[.!?](?=\\s|$)").matcher(t);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return t.isEmpty() || t.matches("(?s).*[.!?]") ? n : n + 1;
    }

    @Test
    void everyKeyLinksToThePageThatExplainsIt() {
        List<String> without = new ArrayList<>();
        for (ConfigDef def : defs()) {
            for (ConfigKey k : def.configKeys().values()) {
                if (ConfigReference.details(k) == null) {
                    without.add(k.name);
                }
            }
        }
        assertEquals(List.of(), without, "keys ConfigReference links to no page (add them to its BY_KEY, "
                + "BY_GROUP or BY_PREFIX)");
    }

    @Test
    void everyKeyIsDocumented() {
        for (ConfigKey k : SinkConfig.CONFIG_DEF.configKeys().values()) {
            assertTrue(k.documentation != null && k.documentation.length() > 20, k.name);
        }
    }
}
