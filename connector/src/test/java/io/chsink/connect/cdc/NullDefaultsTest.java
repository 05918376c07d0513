package io.chsink.connect.cdc;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.chsink.connect.config.CdcNullDefaults;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which connector configurations validate() and the task refuse for cdc.mode=debezium, and what the task warns of:
 * a value converter that writes schema defaults in place of a change event's nulls, unless cdc.null.defaults=allow.
 */
class NullDefaultsTest {
    private static final String JSON = "org.apache.kafka.connect.json.JsonConverter";
    private static final String ENVELOPE = "io.chsink.connect.convert.JsonEnvelopeConverter";
    private static final CdcNullDefaults REFUSE = CdcNullDefaults.REFUSE;
    private static final CdcNullDefaults ALLOW = CdcNullDefaults.ALLOW;

    private static Map<String, String> props(String converter, String replace) {
        Map<String, String> p = new HashMap<>();
        if (converter != null) {
            p.put("value.converter", converter);
        }
        if (replace != null) {
            p.put("value.converter.replace.null.with.default", replace);
        }
        return p;
    }

    @Test
    void kafkasJsonConverterIsRefusedUnlessItKeepsNulls() {
        for (String replace : new String[] {null, "true", " TRUE "}) {
            String p = NullDefaults.problem(true, REFUSE, props(JSON, replace));
            assertTrue(p != null && p.contains("value.converter.replace.null.with.default=false")
                    && p.contains("cdc.null.defaults=allow") && p.contains(ENVELOPE), replace + ": " + p);
        }
        assertTrue(NullDefaults.problem(true, REFUSE, props(JSON, null)).contains("unset"));
        assertNull(NullDefaults.problem(true, REFUSE, props(JSON, "false")));
        assertNull(NullDefaults.problem(true, REFUSE, props(" " + JSON + " ", "False")));
    }

    @Test
    void jsonEnvelopeConverterIsRefusedOnlyWithTheKeySetToTrue() {
        assertNull(NullDefaults.problem(true, REFUSE, props(ENVELOPE, null)), "unset: change events keep nulls");
        assertNull(NullDefaults.problem(true, REFUSE, props(ENVELOPE, "false")));
        String p = NullDefaults.problem(true, REFUSE, props(ENVELOPE, "true"));
        assertTrue(p != null && p.contains("value.converter.replace.null.with.default=false")
                && p.contains("remove the key") && p.contains("cdc.null.defaults=allow"), p);
    }

    @Test
    void theOptInAcceptsItWithAWarning() {
        assertNull(NullDefaults.problem(true, ALLOW, props(JSON, null)));
        assertNull(NullDefaults.problem(true, ALLOW, props(ENVELOPE, "true")));
        String w = NullDefaults.warning(true, ALLOW, props(JSON, null));
        assertTrue(w != null && w.startsWith("cdc.null.defaults=allow"), w);
        assertNull(NullDefaults.warning(true, REFUSE, props(JSON, null)), "refused, not warned of");
        assertNull(NullDefaults.warning(true, ALLOW, props(JSON, "false")));
        assertNull(NullDefaults.warning(true, ALLOW, props(ENVELOPE, null)));
    }

    @Test
    void onlyDebeziumModeIsChecked() {
        assertNull(NullDefaults.problem(false, REFUSE, props(JSON, null)));
        assertNull(NullDefaults.warning(false, REFUSE, props(null, null)));
    }

    @Test
    void otherConvertersPass() {
        assertNull(NullDefaults.problem(true, REFUSE, props("io.chsink.connect.convert.avro.AvroConverter", null)),
                "Avro keeps nulls");
        assertNull(NullDefaults.problem(true, REFUSE, props(JSON, "maybe")), "the converter refuses that itself");
    }

    @Test
    void aConverterSetOnTheWorkerOnlyIsWarnedOf() {
        assertNull(NullDefaults.problem(true, REFUSE, props(null, null)), "validate() cannot see the worker's");
        String w = NullDefaults.warning(true, REFUSE, props(null, "false"));
        assertTrue(w != null && w.startsWith("value.converter is not set on the connector") && w.contains(ENVELOPE), w);
    }
}
