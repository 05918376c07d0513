package io.chsink.connect.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
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

    /**
     * Where a key is explained, as a Markdown link relative to docs/configuration.md: by the key's name, else by
     * its group (the sink's groups: the link under the group's heading), else by the start of its name (the
     * AvroConverter's keys). So the descriptions stay short and the details have one place.
     */
    private static final Map<String, String> BY_KEY = new HashMap<>();
    private static final Map<String, String> BY_GROUP = new HashMap<>();
    private static final Map<String, String> BY_PREFIX = new LinkedHashMap<>();

    static {
        String start = "[getting started](getting-started.md#a-working-config)";
        BY_GROUP.put("ClickHouse connection", start);
        BY_KEY.put(SinkConfig.CLICKHOUSE_USER, "[least privilege](operations.md#least-privilege)");
        BY_KEY.put(SinkConfig.CLICKHOUSE_SETTINGS,
                "[ClickHouse's settings](https://clickhouse.com/docs/operations/settings/settings)");
        BY_GROUP.put("Routing", "[routing after transforms](#routing-after-transforms)");
        BY_KEY.put(SinkConfig.DEFAULT_ASSIGNMENT, "[many topics](operations.md#many-topics)");
        BY_GROUP.put("Tables that follow the data", "[creating a table](tables.md#creating-a-table-autocreate)");
        BY_KEY.put(SinkConfig.AUTO_EVOLVE, "[adding columns](tables.md#adding-columns-autoevolve)");
        BY_KEY.put(SinkConfig.AUTO_CREATE_STRUCT_TYPE,
                "[column types](tables.md#column-types-of-created-and-added-columns)");
        BY_KEY.put(SinkConfig.CLICKHOUSE_CLUSTER, "[on a cluster](tables.md#on-a-cluster)");
        BY_GROUP.put("Blocks and memory", "[blocks and memory](#how-blocks-fill-and-flush)");
        BY_GROUP.put("Delivery", "[retries and outages](operations.md#retries-and-outages)");
        BY_KEY.put(SinkConfig.DELIVERY_GUARANTEE, "[exactly-once](exactly-once.md)");
        BY_KEY.put(SinkConfig.EXACTLY_ONCE_STATE_TABLE, "[the state table](exactly-once.md#the-state-table)");
        BY_GROUP.put("Records", "[types](types.md#tombstones-unknown-fields-schema-changes)");
        BY_GROUP.put("TLS and proxy", "[security](operations.md#security)");
        BY_GROUP.put("Change data capture", "[CDC](cdc.md#how-it-behaves)");
        BY_KEY.put(SinkConfig.CDC_MODE, "[CDC](cdc.md)");
        BY_KEY.put(SinkConfig.CDC_VERSION_COLUMN, "[target tables](cdc.md#target-tables)");
        BY_KEY.put(SinkConfig.CDC_DELETED_COLUMN, "[target tables](cdc.md#target-tables)");
        BY_KEY.put(SinkConfig.CDC_VERSION_BITS, "[version rule](cdc.md#version-rule)");
        String newLog = "[a new source log](cdc.md#moving-a-table-onto-a-new-source-log)";
        BY_KEY.put(SinkConfig.CDC_VERSION_EPOCH, newLog);
        BY_KEY.put(SinkConfig.CDC_VERSION_EPOCH_MAP, newLog);
        BY_KEY.put(SinkConfig.CDC_NULL_DEFAULTS, "[nulls on the sink](cdc.md#nulls-on-the-sink)");
        BY_KEY.put(SinkConfig.CDC_KEY_CHANGE_WAIT_MS, "[primary-key changes](cdc.md#primary-key-changes)");
        // JsonEnvelopeConverter (JsonConverter's keys)
        String json = "[below](#jsonenvelopeconverter-keys)";
        for (String k : new String[] {"converter.type", "schemas.enable", "schemas.cache.size", "decimal.format"}) {
            BY_KEY.put(k, json);
        }
        BY_KEY.put("replace.null.with.default", "[nulls on the sink](cdc.md#nulls-on-the-sink)");
        // AvroConverter
        String registry = "[registry](avro.md#the-registry-client)";
        String auth = "[auth](avro.md#authentication-and-tls)";
        BY_PREFIX.put("schema.registry.url", registry);
        BY_PREFIX.put("http.", registry);
        BY_PREFIX.put("max.retries", registry);
        BY_PREFIX.put("retries.", registry);
        BY_PREFIX.put("basic.auth.", auth);
        BY_PREFIX.put("bearer.auth.", auth);
        BY_PREFIX.put("schema.registry.", auth);
        String data = "[data](avro.md#avro-to-connect)";
        for (String k : new String[] {"connect.meta.data", "enhanced.avro.schema.support", "scrub.invalid.names",
            "flatten.singleton.unions"}) {
            BY_PREFIX.put(k, data);
        }
    }

    /** The link to where the key is explained, or null when none is known. */
    static String details(ConfigKey k) {
        String link = BY_KEY.get(k.name);
        if (link == null && k.group != null) {
            link = BY_GROUP.get(k.group);
        }
        for (Map.Entry<String, String> p : BY_PREFIX.entrySet()) {
            if (link == null && k.name.startsWith(p.getKey())) {
                link = p.getValue();
            }
        }
        return link;
    }

    private ConfigReference() {
    }

    /** The sink's reference: one {@code ###} section per group, in the groups' order. */
    public static String markdown() {
        return byGroup(SinkConfig.CONFIG_DEF, "###");
    }

    /**
     * One section per group of the ConfigDef, in the order the groups were defined, each a heading (the group's
     * name, at the given level such as "###"), the link to the page that explains the group, and a table of its
     * keys by their order in the group (then in definition order). Columns: Key, Type, Default, Valid values,
     * Description (the heading is the group); a key explained elsewhere than its group ends its description with
     * its own link. Keys without a group come last, under "Other".
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
            String groupLink = BY_GROUP.get(g.getKey());
            if (groupLink != null) {
                sb.append("Explained in ").append(groupLink).append(".\n\n");
            }
            sb.append("| Key | Type | Default | Valid values | Description |\n");
            sb.append("|---|---|---|---|---|\n");
            for (ConfigKey k : keys) {
                String link = details(k);
                row(sb, k, false, link == null || link.equals(groupLink) ? null : link);
            }
        }
        return sb.toString();
    }

    /**
     * The reference table of any ConfigDef (the converters'), keys in definition order. Columns: Key, Type,
     * Default, Valid values, Group, Description; the Group column only when some key has a group. Each description
     * ends with the link to where its key is explained.
     */
    public static String markdown(ConfigDef def) {
        boolean grouped = def.configKeys().values().stream().anyMatch(k -> k.group != null);
        StringBuilder sb = new StringBuilder();
        sb.append(grouped ? "| Key | Type | Default | Valid values | Group | Description |\n"
                : "| Key | Type | Default | Valid values | Description |\n");
        sb.append(grouped ? "|---|---|---|---|---|---|\n" : "|---|---|---|---|---|\n");
        for (ConfigKey k : def.configKeys().values()) { // definition order
            row(sb, k, grouped, details(k));
        }
        return sb.toString();
    }

    private static void row(StringBuilder sb, ConfigKey k, boolean withGroup, String link) {
        sb.append("| `").append(k.name).append("` | ")
                .append(k.type.name().toLowerCase(Locale.ROOT)).append(" | ")
                .append(defaultText(k)).append(" | ")
                .append(k.validator == null ? "" : escape(k.validator.toString())).append(" | ");
        if (withGroup) {
            sb.append(k.group == null ? "" : escape(k.group)).append(" | ");
        }
        String doc = k.documentation == null ? "" : escape(k.documentation.trim());
        sb.append(doc);
        if (link != null) {
            // Kafka's own descriptions do not all end with a period.
            sb.append(doc.isEmpty() ? "" : doc.endsWith(".") ? " " : ". ").append("See ").append(link).append('.');
        }
        sb.append(" |\n");
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
