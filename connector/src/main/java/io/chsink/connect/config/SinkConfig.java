package io.chsink.connect.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/** The connector's configuration: every key, its type, default, validation and documentation. */
public final class SinkConfig extends AbstractConfig {
    public static final String CLICKHOUSE_URL = "clickhouse.url";
    public static final String CLICKHOUSE_USER = "clickhouse.user";
    public static final String CLICKHOUSE_PASSWORD = "clickhouse.password";
    public static final String CLICKHOUSE_DATABASE = "clickhouse.database";
    public static final String CLICKHOUSE_SETTINGS = "clickhouse.settings";
    public static final String TABLE_NAME_FORMAT = "table.name.format";
    public static final String TOPIC_TO_TABLE_MAP = "topic.to.table.map";
    public static final String FLUSH_MAX_ROWS = "flush.max.rows";
    public static final String FLUSH_MAX_BYTES = "flush.max.bytes";
    public static final String FLUSH_INTERVAL_MS = "flush.interval.ms";
    public static final String BUFFER_MAX_BYTES = "buffer.max.bytes";
    public static final String DELIVERY_GUARANTEE = "delivery.guarantee";
    public static final String EXACTLY_ONCE_STATE_TABLE = "exactly.once.state.table";
    public static final String TOMBSTONES_BEHAVIOR = "tombstones.behavior";
    public static final String UNKNOWN_FIELDS_BEHAVIOR = "unknown.fields.behavior";
    /** Connect's own key, read by the task to decide between failing and reporting a bad record. */
    public static final String ERRORS_TOLERANCE = "errors.tolerance";

    private static final String GROUP_CONNECTION = "ClickHouse connection";
    private static final String GROUP_ROUTING = "Routing";
    private static final String GROUP_FLUSH = "Blocks and memory";
    private static final String GROUP_DELIVERY = "Delivery";
    private static final String GROUP_RECORDS = "Records";

    public static final ConfigDef CONFIG_DEF = new ConfigDef()
            .define(CLICKHOUSE_URL, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new UrlValidator(), Importance.HIGH,
                    "HTTP(S) endpoint of the ClickHouse server, e.g. http://clickhouse:8123 or https://host:8443.",
                    GROUP_CONNECTION, 1, Width.LONG, "ClickHouse URL")
            .define(CLICKHOUSE_USER, Type.STRING, "default", Importance.HIGH,
                    "ClickHouse user the connector inserts as. It needs INSERT on the target tables and SELECT on "
                            + "system.columns.",
                    GROUP_CONNECTION, 2, Width.MEDIUM, "User")
            .define(CLICKHOUSE_PASSWORD, Type.PASSWORD, "", Importance.HIGH,
                    "Password of clickhouse.user. Never logged.",
                    GROUP_CONNECTION, 3, Width.MEDIUM, "Password")
            .define(CLICKHOUSE_DATABASE, Type.STRING, "default", new NonEmpty(), Importance.HIGH,
                    "Database of the target tables, unless topic.to.table.map names another.",
                    GROUP_CONNECTION, 4, Width.MEDIUM, "Database")
            .define(CLICKHOUSE_SETTINGS, Type.STRING, "", new SettingsValidator(), Importance.MEDIUM,
                    "ClickHouse settings sent with every insert, as comma-separated key=value pairs, e.g. "
                            + "'async_insert=0,insert_quorum=2'.",
                    GROUP_CONNECTION, 5, Width.LONG, "Insert settings")
            .define(TABLE_NAME_FORMAT, Type.STRING, "${topic}", new NonEmpty(), Importance.MEDIUM,
                    "Target table name for a topic; ${topic} is replaced by the topic name. The table is looked "
                            + "up in clickhouse.database and must exist.",
                    GROUP_ROUTING, 1, Width.MEDIUM, "Table name format")
            .define(TOPIC_TO_TABLE_MAP, Type.STRING, "", new TableMapValidator(), Importance.MEDIUM,
                    "Explicit topic to table routes, comma-separated 'topic:table' or 'topic:database.table' "
                            + "pairs. A topic listed here ignores table.name.format.",
                    GROUP_ROUTING, 2, Width.LONG, "Topic to table map")
            .define(FLUSH_MAX_ROWS, Type.INT, 500_000, ConfigDef.Range.atLeast(1), Importance.MEDIUM,
                    "A table's block is inserted when it holds this many rows. A block collects the records of "
                            + "every partition routed to the table (exactly_once: of one partition).",
                    GROUP_FLUSH, 1, Width.SHORT, "Rows per block")
            .define(FLUSH_MAX_BYTES, Type.LONG, 32L * 1024 * 1024, ConfigDef.Range.atLeast(1024), Importance.MEDIUM,
                    "A table's block is inserted when its encoded columns reach this many bytes (before "
                            + "compression).",
                    GROUP_FLUSH, 2, Width.SHORT, "Bytes per block")
            .define(FLUSH_INTERVAL_MS, Type.LONG, 1000L, ConfigDef.Range.atLeast(10), Importance.MEDIUM,
                    "A block is inserted at the latest this long after its first record arrived, however small.",
                    GROUP_FLUSH, 3, Width.SHORT, "Flush interval")
            .define(BUFFER_MAX_BYTES, Type.LONG, 96L * 1024 * 1024, ConfigDef.Range.atLeast(1024), Importance.MEDIUM,
                    "Memory bound of one task: encoded bytes held in open, queued and in-flight blocks. When "
                            + "reached, the task pauses consumption until inserts complete, so it exceeds the bound "
                            + "by at most one poll's records (the heap behind these bytes is up to about 1.5 times "
                            + "as much, as buffers grow by half).",
                    GROUP_FLUSH, 4, Width.SHORT, "Task buffer bound")
            .define(DELIVERY_GUARANTEE, Type.STRING, DeliveryGuarantee.AT_LEAST_ONCE.configValue(),
                    ConfigDef.ValidString.in(DeliveryGuarantee.AT_LEAST_ONCE.configValue(),
                            DeliveryGuarantee.EXACTLY_ONCE.configValue()), Importance.HIGH,
                    "at_least_once: offsets are committed only after ClickHouse verified the insert holding "
                            + "their records; a crash may insert a block twice. exactly_once: in addition, each "
                            + "block holds one partition's records, its offset range and deduplication token are "
                            + "recorded in " + EXACTLY_ONCE_STATE_TABLE + " before it is inserted, and after a crash "
                            + "or rebalance the same blocks are rebuilt and re-sent with the same token, so "
                            + "ClickHouse keeps one copy. Every target table must deduplicate inserts "
                            + "(non_replicated_deduplication_window > 0 for MergeTree, replicated_deduplication_window "
                            + "> 0 for Replicated/Shared MergeTree); validation and task start check it.",
                    GROUP_DELIVERY, 1, Width.SHORT, "Delivery guarantee")
            .define(EXACTLY_ONCE_STATE_TABLE, Type.STRING, "chsink_exactly_once_state", new NonEmpty(),
                    Importance.LOW,
                    "exactly_once only: table in clickhouse.database where block compositions are recorded. The "
                            + "connector creates it (a KeeperMap where the server has one, else a ReplacingMergeTree "
                            + "whose rows expire after 30 days); the user needs CREATE TABLE, INSERT and SELECT on it.",
                    GROUP_DELIVERY, 2, Width.MEDIUM, "Exactly-once state table")
            .define(TOMBSTONES_BEHAVIOR, Type.STRING, "skip", ConfigDef.ValidString.in("skip", "fail"),
                    Importance.MEDIUM,
                    "What a record with a null value (a tombstone) does: skip (it is counted in the task's summary "
                            + "line and its offset is committed) or fail (it is a bad record: the task fails, or with "
                            + "errors.tolerance=all it goes to the dead-letter queue).",
                    GROUP_RECORDS, 1, Width.SHORT, "Tombstones")
            .define(UNKNOWN_FIELDS_BEHAVIOR, Type.STRING, "ignore", ConfigDef.ValidString.in("ignore", "error"),
                    Importance.MEDIUM,
                    "What a value field that no column takes does (a field the table does not have, or one naming a "
                            + "MATERIALIZED or ALIAS column): ignore it, or error (the record is a bad record).",
                    GROUP_RECORDS, 2, Width.SHORT, "Unknown fields");

    private final Map<String, String> settings;
    private final Map<String, String> topicTables;

    public SinkConfig(Map<String, String> props) {
        super(CONFIG_DEF, props);
        this.settings = parsePairs(getString(CLICKHOUSE_SETTINGS), '=', CLICKHOUSE_SETTINGS);
        this.topicTables = parsePairs(getString(TOPIC_TO_TABLE_MAP), ':', TOPIC_TO_TABLE_MAP);
        String tolerance = props.get(ERRORS_TOLERANCE);
        this.tolerateErrors = tolerance != null && tolerance.trim().toLowerCase(Locale.ROOT).equals("all");
    }

    private final boolean tolerateErrors;

    public String url() {
        return getString(CLICKHOUSE_URL);
    }

    public String user() {
        return getString(CLICKHOUSE_USER);
    }

    public Password password() {
        return getPassword(CLICKHOUSE_PASSWORD);
    }

    public String database() {
        return getString(CLICKHOUSE_DATABASE);
    }

    /** Server settings for inserts, in the order given. */
    public Map<String, String> insertSettings() {
        return settings;
    }

    public String tableNameFormat() {
        return getString(TABLE_NAME_FORMAT);
    }

    public Map<String, String> topicTables() {
        return topicTables;
    }

    public int flushMaxRows() {
        return getInt(FLUSH_MAX_ROWS);
    }

    public long flushMaxBytes() {
        return getLong(FLUSH_MAX_BYTES);
    }

    public long flushIntervalMs() {
        return getLong(FLUSH_INTERVAL_MS);
    }

    public long bufferMaxBytes() {
        return getLong(BUFFER_MAX_BYTES);
    }

    public DeliveryGuarantee deliveryGuarantee() {
        return DeliveryGuarantee.parse(getString(DELIVERY_GUARANTEE));
    }

    public boolean exactlyOnce() {
        return deliveryGuarantee() == DeliveryGuarantee.EXACTLY_ONCE;
    }

    public String exactlyOnceStateTable() {
        return getString(EXACTLY_ONCE_STATE_TABLE).trim();
    }

    /** tombstones.behavior=fail: a record with a null value is a bad record. */
    public boolean failOnTombstones() {
        return getString(TOMBSTONES_BEHAVIOR).equals("fail");
    }

    /** unknown.fields.behavior=error: a field no column takes is a bad record. */
    public boolean rejectUnknownFields() {
        return getString(UNKNOWN_FIELDS_BEHAVIOR).equals("error");
    }

    /** errors.tolerance=all: bad records go to the errant record reporter instead of failing the task. */
    public boolean tolerateErrors() {
        return tolerateErrors;
    }

    static Map<String, String> parsePairs(String text, char separator, String key) {
        Map<String, String> out = new LinkedHashMap<>();
        if (text == null || text.trim().isEmpty()) {
            return Collections.unmodifiableMap(out);
        }
        for (String pair : text.split(",")) {
            String p = pair.trim();
            if (p.isEmpty()) {
                continue;
            }
            int i = p.indexOf(separator);
            if (i <= 0 || i == p.length() - 1) {
                throw new ConfigException(key, text, "expected comma-separated 'a" + separator + "b' pairs, got '" + p + "'");
            }
            out.put(p.substring(0, i).trim(), p.substring(i + 1).trim());
        }
        return Collections.unmodifiableMap(out);
    }

    private static final class UrlValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (value == null) {
                throw new ConfigException(name, null, "is required, e.g. http://localhost:8123");
            }
            String s = value.toString().trim();
            try {
                URI u = new URI(s);
                String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
                if (!(scheme.equals("http") || scheme.equals("https")) || u.getHost() == null || u.getPort() < 0) {
                    throw new ConfigException(name, s, "must look like http://host:port or https://host:port");
                }
                if (u.getUserInfo() != null) {
                    throw new ConfigException(name, "(hidden)", "must not carry credentials; use clickhouse.user and clickhouse.password");
                }
            } catch (URISyntaxException e) {
                throw new ConfigException(name, s, "is not a URL: " + e.getReason());
            }
        }

        @Override
        public String toString() {
            return "http(s)://host:port";
        }
    }

    private static final class NonEmpty implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (value == null || value.toString().trim().isEmpty()) {
                throw new ConfigException(name, value, "must not be empty");
            }
        }

        @Override
        public String toString() {
            return "non-empty string";
        }
    }

    private static final class SettingsValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            parsePairs(value == null ? "" : value.toString(), '=', name);
        }

        @Override
        public String toString() {
            return "key=value[,key=value...]";
        }
    }

    private static final class TableMapValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            parsePairs(value == null ? "" : value.toString(), ':', name);
        }

        @Override
        public String toString() {
            return "topic:table[,topic:database.table...]";
        }
    }

    /** The names of all keys, for documentation checks. */
    public static List<String> keys() {
        return new java.util.ArrayList<>(CONFIG_DEF.names());
    }
}
