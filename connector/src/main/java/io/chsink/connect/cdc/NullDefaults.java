package io.chsink.connect.cdc;

import io.chsink.connect.config.CdcNullDefaults;
import io.chsink.connect.config.SinkConfig;
import java.util.Locale;
import java.util.Map;

/**
 * Whether the value converter a connector's configuration names writes a field's schema default where a Debezium
 * change event has null, so that a column set to NULL in the source lands as its default: Kafka's JsonConverter
 * does unless replace.null.with.default=false; JsonEnvelopeConverter reads a change event's nulls as nulls unless
 * replace.null.with.default=true. Only the connector's own settings can be seen (a converter set on the worker
 * cannot). validate() and the task's start refuse such a configuration ({@link #problem}) unless cdc.null.defaults
 * is allow; the task logs {@link #warning} at start.
 */
public final class NullDefaults {
    public static final String CONVERTER = "value.converter";
    public static final String KEY = "value.converter.replace.null.with.default";
    static final String JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter";
    static final String ENVELOPE_CONVERTER = "io.chsink.connect.convert.JsonEnvelopeConverter";

    private NullDefaults() {
    }

    /**
     * Why validate() and the task refuse this configuration (the connector's settings, {@code props}), or null: a
     * value converter that puts defaults in place of a change event's nulls, and cdc.null.defaults=refuse.
     */
    public static String problem(boolean debezium, CdcNullDefaults optIn, Map<String, String> props) {
        if (!debezium || optIn != CdcNullDefaults.REFUSE) {
            return null;
        }
        String c = replacingConverter(props);
        if (c == null) {
            return null;
        }
        boolean kafka = c.equals(JSON_CONVERTER);
        String setting = props.containsKey(KEY) ? "=" + props.get(KEY).trim() : " unset (true)";
        return SinkConfig.CDC_MODE + "=debezium with " + CONVERTER + "=" + c + " and " + KEY + setting + ": the "
                + "converter writes a field's schema default where a change event has null, so a column set to NULL "
                + "in the source lands as its default. Set " + KEY + "=false"
                + (kafka ? " (or " + CONVERTER + "=" + ENVELOPE_CONVERTER + " without that key: it reads a change "
                        + "event's nulls as nulls)" : " or remove the key (" + ENVELOPE_CONVERTER + " then reads a "
                        + "change event's nulls as nulls)")
                + ", and the same key false on the Debezium source's converter; to keep the defaults, set "
                + SinkConfig.CDC_NULL_DEFAULTS + "=allow";
    }

    /**
     * What the task logs at start, or null: with cdc.null.defaults=allow, the converter that puts defaults in place
     * of nulls; without a value.converter on the connector, that the worker's converter cannot be checked.
     */
    public static String warning(boolean debezium, CdcNullDefaults optIn, Map<String, String> props) {
        if (!debezium) {
            return null;
        }
        String configured = props.get(CONVERTER);
        if (configured == null || configured.trim().isEmpty()) {
            return CONVERTER + " is not set on the connector: the worker's value converter reads the change events, "
                    + "and the connector cannot see whether it writes a field's schema default where a change "
                    + "event has null (Kafka's JsonConverter does unless replace.null.with.default=false), which "
                    + "lands a column set to NULL in the source as its default. Set " + CONVERTER + "="
                    + ENVELOPE_CONVERTER + " on the connector (it reads a change event's nulls as nulls), or "
                    + "replace.null.with.default=false on the worker's JsonConverter";
        }
        String c = replacingConverter(props);
        if (c == null || optIn != CdcNullDefaults.ALLOW) {
            return null;
        }
        return SinkConfig.CDC_NULL_DEFAULTS + "=allow: " + CONVERTER + "=" + c + " writes a field's schema default "
                + "where a change event has null (" + KEY + " is not false), so a column set to NULL in the "
                + "source lands as its default";
    }

    /**
     * The connector's value converter class when it puts a field's default in place of a change event's null:
     * JsonConverter with replace.null.with.default unset or true, JsonEnvelopeConverter with it true. Else null
     * (another converter, or a value neither true nor false, which the converter itself refuses).
     */
    static String replacingConverter(Map<String, String> props) {
        String c = props.get(CONVERTER);
        if (c == null) {
            return null;
        }
        c = c.trim();
        String v = props.get(KEY);
        boolean set = v != null;
        boolean on = set && v.trim().toLowerCase(Locale.ROOT).equals("true");
        if (c.equals(JSON_CONVERTER)) {
            return !set || on ? c : null;
        }
        if (c.equals(ENVELOPE_CONVERTER)) {
            return on ? c : null;
        }
        return null;
    }
}
