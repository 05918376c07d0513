package io.chsink.connect.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;
import org.apache.kafka.common.config.types.Password;

/** Renders the configuration reference (README section) from the ConfigDef, so the docs cannot drift. */
public final class ConfigReference {
    private ConfigReference() {
    }

    public static String markdown() {
        return markdown(SinkConfig.CONFIG_DEF);
    }

    /** The reference table of any ConfigDef (the converters' too), keys in definition order. */
    public static String markdown(ConfigDef def) {
        StringBuilder sb = new StringBuilder();
        sb.append("| Key | Type | Default | Valid values | Description |\n");
        sb.append("|---|---|---|---|---|\n");
        java.util.Collection<ConfigKey> keys = def.configKeys().values(); // definition order
        for (ConfigKey k : keys) {
            sb.append("| `").append(k.name).append("` | ")
                    .append(k.type.name().toLowerCase(java.util.Locale.ROOT)).append(" | ")
                    .append(defaultText(k)).append(" | ")
                    .append(k.validator == null ? "" : escape(k.validator.toString())).append(" | ")
                    .append(escape(k.documentation)).append(" |\n");
        }
        return sb.toString();
    }

    private static String defaultText(ConfigKey k) {
        if (!k.hasDefault()) {
            return "(required)";
        }
        Object d = k.defaultValue;
        if (d instanceof Password) {
            return "\"\"";
        }
        String s = d == null ? "null" : ConfigDef.convertToString(d, k.type);
        return s.isEmpty() ? "\"\"" : "`" + s + "`";
    }

    private static String escape(String s) {
        return s.replace("|", "\\|").replace("\n", " ");
    }

    public static void main(String[] args) {
        System.out.print(markdown());
    }
}
