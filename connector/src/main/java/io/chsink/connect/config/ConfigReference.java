package io.chsink.connect.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;
import org.apache.kafka.common.config.types.Password;

/**
 * Renders the configuration reference of docs/configuration.md from the ConfigDefs, so the docs cannot drift
 * (ConfigReferenceTest compares the page with this output).
 */
public final class ConfigReference {
    /** What a key without a group is filed under when keys are rendered by group. */
    static final String NO_GROUP = "Other";

    private ConfigReference() {
    }

    /** The sink's reference: one {@code ###} section per group, in the groups' order. */
    public static String markdown() {
        return byGroup(SinkConfig.CONFIG_DEF, "###");
    }

    /**
     * One section per group of the ConfigDef, in the order the groups were defined, each a heading (the group's
     * name, at the given level such as "###") and a table of its keys by their order in the group (then in
     * definition order). Columns: Key, Type, Default, Valid values, Importance, Description (the heading is the
     * group). Keys without a group come last, under "Other".
     */
    public static String byGroup(ConfigDef def, String heading) {
        Map<String, List<ConfigKey>> groups = new LinkedHashMap<>();
        for (String g : def.groups()) {
            groups.put(g, new ArrayList<>());
        }
        for (ConfigKey k : def.configKeys().values()) { // definition order
            groups.computeIfAbsent(k.group == null ? NO_GROUP : k.group, g -> new ArrayList<>()).add(k);
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, List<ConfigKey>> g : groups.entrySet()) {
            if (g.getValue().isEmpty()) {
                continue;
            }
            List<ConfigKey> keys = new ArrayList<>(g.getValue());
            keys.sort(Comparator.comparingInt(k -> k.orderInGroup)); // stable: ties keep definition order
            if (sb.length() > 0) {
                sb.append('\n');
            }
            sb.append(heading).append(' ').append(g.getKey()).append("\n\n");
            sb.append("| Key | Type | Default | Valid values | Importance | Description |\n");
            sb.append("|---|---|---|---|---|---|\n");
            for (ConfigKey k : keys) {
                row(sb, k, false);
            }
        }
        return sb.toString();
    }

    /**
     * The reference table of any ConfigDef (the converters'), keys in definition order. Columns: Key, Type,
     * Default, Valid values, Importance, Group, Description; the Group column only when some key has a group.
     */
    public static String markdown(ConfigDef def) {
        boolean grouped = def.configKeys().values().stream().anyMatch(k -> k.group != null);
        StringBuilder sb = new StringBuilder();
        sb.append(grouped ? "| Key | Type | Default | Valid values | Importance | Group | Description |\n"
                : "| Key | Type | Default | Valid values | Importance | Description |\n");
        sb.append(grouped ? "|---|---|---|---|---|---|---|\n" : "|---|---|---|---|---|---|\n");
        for (ConfigKey k : def.configKeys().values()) { // definition order
            row(sb, k, grouped);
        }
        return sb.toString();
    }

    private static void row(StringBuilder sb, ConfigKey k, boolean withGroup) {
        sb.append("| `").append(k.name).append("` | ")
                .append(k.type.name().toLowerCase(Locale.ROOT)).append(" | ")
                .append(defaultText(k)).append(" | ")
                .append(k.validator == null ? "" : escape(k.validator.toString())).append(" | ")
                .append(k.importance == null ? "" : k.importance.name().toLowerCase(Locale.ROOT)).append(" | ");
        if (withGroup) {
            sb.append(k.group == null ? "" : escape(k.group)).append(" | ");
        }
        sb.append(k.documentation == null ? "" : escape(k.documentation)).append(" |\n");
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

    /** Table-cell text: pipes escaped, one line, and no '<' that Markdown would take for an HTML tag. */
    private static String escape(String s) {
        return s.replace("|", "\\|").replace("\n", " ").replace("<", "&lt;");
    }

    public static void main(String[] args) {
        System.out.print(markdown());
    }
}
