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
    public static final String AUTO_CREATE = "auto.create";
    public static final String AUTO_EVOLVE = "auto.evolve";
    public static final String AUTO_CREATE_ENGINE = "auto.create.engine";
    public static final String AUTO_CREATE_ORDER_BY = "auto.create.order.by";
    public static final String AUTO_CREATE_SETTINGS = "auto.create.settings";
    public static final String AUTO_CREATE_STRUCT_TYPE = "auto.create.struct.type";
    public static final String CLICKHOUSE_CLUSTER = "clickhouse.cluster";
    public static final String FLUSH_MAX_ROWS = "flush.max.rows";
    public static final String FLUSH_MAX_BYTES = "flush.max.bytes";
    public static final String FLUSH_INTERVAL_MS = "flush.interval.ms";
    public static final String BUFFER_MAX_BYTES = "buffer.max.bytes";
    public static final String DELIVERY_GUARANTEE = "delivery.guarantee";
    public static final String EXACTLY_ONCE_STATE_TABLE = "exactly.once.state.table";
    public static final String TOMBSTONES_BEHAVIOR = "tombstones.behavior";
    public static final String UNKNOWN_FIELDS_BEHAVIOR = "unknown.fields.behavior";
    public static final String RETRY_TIMEOUT_MS = "retry.timeout.ms";
    public static final String RETRY_BACKOFF_MS = "retry.backoff.ms";
    public static final String SSL_TRUSTSTORE_LOCATION = "clickhouse.ssl.truststore.location";
    public static final String SSL_TRUSTSTORE_PASSWORD = "clickhouse.ssl.truststore.password";
    public static final String SSL_TRUSTSTORE_TYPE = "clickhouse.ssl.truststore.type";
    public static final String SSL_KEYSTORE_LOCATION = "clickhouse.ssl.keystore.location";
    public static final String SSL_KEYSTORE_PASSWORD = "clickhouse.ssl.keystore.password";
    public static final String SSL_KEYSTORE_TYPE = "clickhouse.ssl.keystore.type";
    public static final String SSL_KEY_PASSWORD = "clickhouse.ssl.key.password";
    public static final String SSL_HOSTNAME_VERIFICATION = "clickhouse.ssl.hostname.verification";
    public static final String PROXY_HOST = "clickhouse.proxy.host";
    public static final String PROXY_PORT = "clickhouse.proxy.port";
    public static final String PROXY_USER = "clickhouse.proxy.user";
    public static final String PROXY_PASSWORD = "clickhouse.proxy.password";
    public static final String CDC_MODE = "cdc.mode";
    public static final String CDC_VERSION_COLUMN = "cdc.version.column";
    public static final String CDC_DELETED_COLUMN = "cdc.deleted.column";
    public static final String CDC_TRUNCATE_BEHAVIOR = "cdc.truncate.behavior";
    public static final String CDC_UNAVAILABLE_PLACEHOLDER = "cdc.unavailable.value.placeholder";
    public static final String CDC_VERSION_BITS = "cdc.version.bits";
    public static final String CDC_VERSION_EPOCH = "cdc.version.epoch";
    public static final String CDC_VERSION_EPOCH_MAP = "cdc.version.epoch.map";
    public static final String CDC_ROW_CACHE_BYTES = "cdc.row.cache.bytes";
    public static final String CDC_READ_POLLS = "cdc.read.polls";
    public static final String CDC_NULL_DEFAULTS = "cdc.null.defaults";
    public static final String DEFAULT_ASSIGNMENT = "default.assignment";
    public static final String CDC_KEY_CHANGE_WAIT_MS = "cdc.key.change.wait.ms";
    public static final long CDC_KEY_CHANGE_WAIT_MS_DEFAULT = 300_000;
    /** The largest epoch: versions keep 4 bits for it, in either width. */
    public static final int CDC_VERSION_MAX_EPOCH = 15;
    /** Connect's own key, read by the task to decide between failing and reporting a bad record. */
    public static final String ERRORS_TOLERANCE = "errors.tolerance";

    private static final String GROUP_CONNECTION = "ClickHouse connection";
    private static final String GROUP_ROUTING = "Routing";
    private static final String GROUP_TABLES = "Tables that follow the data";
    private static final String GROUP_FLUSH = "Blocks and memory";
    private static final String GROUP_DELIVERY = "Delivery";
    private static final String GROUP_RECORDS = "Records";
    private static final String GROUP_SECURITY = "TLS and proxy";
    private static final String GROUP_CDC = "Change data capture";

    public static final ConfigDef CONFIG_DEF = new ConfigDef()
            .define(CLICKHOUSE_URL, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new UrlValidator(), Importance.HIGH,
                    "HTTP(S) endpoint of the ClickHouse server, e.g. http://clickhouse:8123 or https://host:8443.",
                    GROUP_CONNECTION, 1, Width.LONG, "ClickHouse URL")
            .define(CLICKHOUSE_USER, Type.STRING, "default", Importance.HIGH,
                    "ClickHouse user the connector inserts as. It needs INSERT on the target tables, and the grants "
                            + "of the options it uses.",
                    GROUP_CONNECTION, 2, Width.MEDIUM, "User")
            .define(CLICKHOUSE_PASSWORD, Type.PASSWORD, "", Importance.HIGH,
                    "Password of clickhouse.user.",
                    GROUP_CONNECTION, 3, Width.MEDIUM, "Password")
            .define(CLICKHOUSE_DATABASE, Type.STRING, "default", new NonEmpty(), Importance.HIGH,
                    "Database of the target tables, unless topic.to.table.map names another.",
                    GROUP_CONNECTION, 4, Width.MEDIUM, "Database")
            .define(CLICKHOUSE_SETTINGS, Type.STRING, "", new SettingsValidator(), Importance.MEDIUM,
                    "ClickHouse settings sent with every insert, comma-separated key=value pairs, e.g. "
                            + "'async_insert=0,insert_quorum=2'.",
                    GROUP_CONNECTION, 5, Width.LONG, "Insert settings")
            .define(TABLE_NAME_FORMAT, Type.STRING, "${topic}", new NonEmpty(), Importance.MEDIUM,
                    "Target table of a topic, ${topic} standing for the topic's name as the transforms leave it. "
                            + "The table must exist in clickhouse.database, unless auto.create is on.",
                    GROUP_ROUTING, 1, Width.MEDIUM, "Table name format")
            .define(TOPIC_TO_TABLE_MAP, Type.STRING, "", new TableMapValidator(), Importance.MEDIUM,
                    "Routes by topic, comma-separated 'topic:table' or 'topic:database.table' pairs, which override "
                            + "table.name.format.",
                    GROUP_ROUTING, 2, Width.LONG, "Topic to table map")
            .define(DEFAULT_ASSIGNMENT, Type.STRING, DefaultAssignment.REFUSE.configValue(),
                    ConfigDef.ValidString.in(DefaultAssignment.REFUSE.configValue(),
                            DefaultAssignment.ALLOW.configValue()), Importance.LOW,
                    "Whether more topics than tasks.max (2 or more), or topics.regex, may come with Kafka's default "
                            + "assignment, which makes every task insert into every table. refuse: not without "
                            + "consumer.override.partition.assignment.strategy; allow: a WARN at start.",
                    GROUP_ROUTING, 3, Width.SHORT, "Default assignment")
            .define(AUTO_CREATE, Type.BOOLEAN, false, Importance.MEDIUM,
                    "Create a missing target table from the first record routed to it, with columns from its value "
                            + "schema. The user needs CREATE TABLE on the database, which validation checks.",
                    GROUP_TABLES, 1, Width.SHORT, "Create missing tables")
            .define(AUTO_EVOLVE, Type.BOOLEAN, false, Importance.MEDIUM,
                    "Add the columns a record's value schema has and its table lacks, then write the record; columns "
                            + "are never dropped, renamed or retyped. The user needs ALTER ADD COLUMN, which "
                            + "validation checks.",
                    GROUP_TABLES, 2, Width.SHORT, "Add new fields as columns")
            .define(AUTO_CREATE_ENGINE, Type.STRING, "", new EngineValidator(), Importance.LOW,
                    "Engine of the tables auto.create makes, as in ENGINE = ..., e.g. "
                            + "ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}'). "
                            + "Empty: "
                            + "MergeTree, or ReplacingMergeTree(version, deleted) with cdc.mode=debezium.",
                    GROUP_TABLES, 3, Width.LONG, "Engine of created tables")
            .define(AUTO_CREATE_ORDER_BY, Type.LIST, "", Importance.LOW,
                    "ORDER BY columns of the tables auto.create makes, comma-separated. Empty: the fields of a Struct "
                            + "record key that are non-Nullable value fields, else tuple().",
                    GROUP_TABLES, 4, Width.MEDIUM, "Sorting key of created tables")
            .define(AUTO_CREATE_SETTINGS, Type.STRING, "", new TableSettingsValidator(), Importance.LOW,
                    "Table settings of the tables auto.create makes, comma-separated key=value pairs; exactly_once "
                            + "needs non_replicated_deduplication_window=1000 for a MergeTree.",
                    GROUP_TABLES, 5, Width.LONG, "Settings of created tables")
            .define(AUTO_CREATE_STRUCT_TYPE, Type.STRING, "tuple", ConfigDef.CaseInsensitiveValidString.in("tuple",
                    "json"), Importance.LOW,
                    "What a Struct field (not an Avro union) becomes in a column auto.create or auto.evolve makes: "
                            + "tuple (a named Tuple) or json (the JSON type).",
                    GROUP_TABLES, 6, Width.SHORT, "Struct columns")
            .define(CLICKHOUSE_CLUSTER, Type.STRING, "", Importance.LOW,
                    "Cluster the statements of auto.create and auto.evolve run ON CLUSTER on. Empty: the server of "
                            + "clickhouse.url only.",
                    GROUP_TABLES, 7, Width.MEDIUM, "Cluster for DDL")
            .define(FLUSH_MAX_ROWS, Type.INT, 500_000, ConfigDef.Range.atLeast(1), Importance.MEDIUM,
                    "A table's block is inserted when it holds this many rows.",
                    GROUP_FLUSH, 1, Width.SHORT, "Rows per block")
            .define(FLUSH_MAX_BYTES, Type.LONG, 32L * 1024 * 1024, ConfigDef.Range.atLeast(1024), Importance.MEDIUM,
                    "A table's block is inserted when its encoded columns reach this many bytes.",
                    GROUP_FLUSH, 2, Width.SHORT, "Bytes per block")
            .define(FLUSH_INTERVAL_MS, Type.LONG, 1000L, ConfigDef.Range.atLeast(10), Importance.MEDIUM,
                    "A block is sent this long after its first record arrived, however small; if an insert into its "
                            + "table is still running then, when that insert completes.",
                    GROUP_FLUSH, 3, Width.SHORT, "Flush interval")
            .define(BUFFER_MAX_BYTES, Type.LONG, 96L * 1024 * 1024, ConfigDef.Range.atLeast(1024), Importance.MEDIUM,
                    "Memory bound of one task's blocks; at the bound the task pauses consumption until inserts "
                            + "complete. It must be larger than "
                            + FLUSH_MAX_BYTES
                            + ", which validation checks.",
                    GROUP_FLUSH, 4, Width.SHORT, "Task buffer bound")
            .define(DELIVERY_GUARANTEE, Type.STRING, DeliveryGuarantee.AT_LEAST_ONCE.configValue(),
                    ConfigDef.ValidString.in(DeliveryGuarantee.AT_LEAST_ONCE.configValue(),
                            DeliveryGuarantee.EXACTLY_ONCE.configValue()), Importance.HIGH,
                    "at_least_once: offsets are committed after their rows are inserted; a crash may insert a block "
                            + "twice. exactly_once: ClickHouse keeps one copy of every block, on tables that "
                            + "deduplicate inserts.",
                    GROUP_DELIVERY, 1, Width.SHORT, "Delivery guarantee")
            .define(EXACTLY_ONCE_STATE_TABLE, Type.STRING, "chsink_exactly_once_state", new NonEmpty(),
                    Importance.LOW,
                    "exactly_once only: the table in clickhouse.database where the connector records its blocks. The "
                            + "user needs CREATE TABLE, INSERT, SELECT and ALTER DELETE on it.",
                    GROUP_DELIVERY, 2, Width.MEDIUM, "Exactly-once state table")
            .define(TOMBSTONES_BEHAVIOR, Type.STRING, "", ConfigDef.ValidString.in("", "skip", "fail", "delete"),
                    Importance.MEDIUM,
                    "What a record with a null value does: skip, fail (a bad record) or, with cdc.mode=debezium, "
                            + "delete "
                            + "the row its key names. Empty: delete with cdc.mode=debezium, else skip.",
                    GROUP_RECORDS, 1, Width.SHORT, "Tombstones")
            .define(UNKNOWN_FIELDS_BEHAVIOR, Type.STRING, "ignore", ConfigDef.ValidString.in("ignore", "error"),
                    Importance.MEDIUM,
                    "What a value field no column takes does: ignore, or error (a bad record).",
                    GROUP_RECORDS, 2, Width.SHORT, "Unknown fields")
            .define(RETRY_TIMEOUT_MS, Type.LONG, 300_000L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                    "How long inserts may fail with retriable errors before the task stops taking new records (it "
                            + "keeps retrying, and does not fail). Permanent errors fail the task at once.",
                    GROUP_DELIVERY, 2, Width.SHORT, "Retry time budget")
            .define(RETRY_BACKOFF_MS, Type.LONG, 500L, ConfigDef.Range.between(10, 60_000), Importance.LOW,
                    "Wait before the first retry of a failed insert; it doubles with every further attempt, up to the "
                            + "larger of 10 s and this value.",
                    GROUP_DELIVERY, 3, Width.SHORT, "Retry backoff")
            .define(SSL_TRUSTSTORE_LOCATION, Type.STRING, "", Importance.MEDIUM,
                    "Trust store with the CA certificates of the server's certificate, for https:// URLs. Empty: the "
                            + "JVM's default trust store.",
                    GROUP_SECURITY, 1, Width.LONG, "Trust store")
            .define(SSL_TRUSTSTORE_PASSWORD, Type.PASSWORD, "", Importance.MEDIUM,
                    "Password of the trust store.",
                    GROUP_SECURITY, 2, Width.MEDIUM, "Trust store password")
            .define(SSL_TRUSTSTORE_TYPE, Type.STRING, "PKCS12", ConfigDef.CaseInsensitiveValidString.in("PKCS12", "JKS"),
                    Importance.LOW, "Type of the trust store file.",
                    GROUP_SECURITY, 3, Width.SHORT, "Trust store type")
            .define(SSL_KEYSTORE_LOCATION, Type.STRING, "", Importance.MEDIUM,
                    "Key store with the client certificate and its key (its first key entry), for servers that "
                            + "require client certificates.",
                    GROUP_SECURITY, 4, Width.LONG, "Key store")
            .define(SSL_KEYSTORE_PASSWORD, Type.PASSWORD, "", Importance.MEDIUM,
                    "Password of the key store.",
                    GROUP_SECURITY, 5, Width.MEDIUM, "Key store password")
            .define(SSL_KEYSTORE_TYPE, Type.STRING, "PKCS12", ConfigDef.CaseInsensitiveValidString.in("PKCS12", "JKS"),
                    Importance.LOW, "Type of the key store file.",
                    GROUP_SECURITY, 6, Width.SHORT, "Key store type")
            .define(SSL_KEY_PASSWORD, Type.PASSWORD, null, Importance.LOW,
                    "Password of the private key, if it differs from the key store's.",
                    GROUP_SECURITY, 7, Width.MEDIUM, "Key password")
            .define(SSL_HOSTNAME_VERIFICATION, Type.BOOLEAN, true, Importance.MEDIUM,
                    "Check that the server certificate names the host of clickhouse.url (the trust store is checked "
                            + "either way).",
                    GROUP_SECURITY, 8, Width.SHORT, "Verify host name")
            .define(PROXY_HOST, Type.STRING, "", Importance.LOW,
                    "HTTP proxy to reach ClickHouse through. Empty: no proxy.",
                    GROUP_SECURITY, 9, Width.MEDIUM, "Proxy host")
            .define(PROXY_PORT, Type.INT, 3128, ConfigDef.Range.between(1, 65535), Importance.LOW,
                    "Port of the HTTP proxy.",
                    GROUP_SECURITY, 10, Width.SHORT, "Proxy port")
            .define(PROXY_USER, Type.STRING, "", Importance.LOW,
                    "User for the proxy's basic authentication, for http:// URLs only. Empty: none.",
                    GROUP_SECURITY, 11, Width.MEDIUM, "Proxy user")
            .define(PROXY_PASSWORD, Type.PASSWORD, "", Importance.LOW,
                    "Password for the proxy's basic authentication.",
                    GROUP_SECURITY, 12, Width.MEDIUM, "Proxy password")
            .define(CDC_MODE, Type.STRING, "none", ConfigDef.ValidString.in("none", "debezium"), Importance.HIGH,
                    "none: every record is a row, appended. debezium: every record is a Debezium change event, "
                            + "written to ReplacingMergeTree(version, deleted) tables whose rows converge to the "
                            + "source's.",
                    GROUP_CDC, 1, Width.SHORT, "CDC mode")
            .define(CDC_VERSION_COLUMN, Type.STRING, "_version", new NonEmpty(), Importance.MEDIUM,
                    "cdc.mode=debezium only: the version column (UInt64, UInt128 or UInt256), filled by the connector.",
                    GROUP_CDC, 2, Width.SHORT, "Version column")
            .define(CDC_DELETED_COLUMN, Type.STRING, "_is_deleted", new NonEmpty(), Importance.MEDIUM,
                    "cdc.mode=debezium only: the deleted column (UInt8), filled by the connector.",
                    GROUP_CDC, 3, Width.SHORT, "Deleted column")
            .define(CDC_TRUNCATE_BEHAVIOR, Type.STRING, "skip", ConfigDef.ValidString.in("skip", "fail"),
                    Importance.LOW,
                    "cdc.mode=debezium only: what a truncate event does: skip (a WARN; the rows stay) or fail (a bad "
                            + "record).",
                    GROUP_CDC, 4, Width.SHORT, "Truncate events")
            .define(CDC_UNAVAILABLE_PLACEHOLDER, Type.STRING, "__debezium_unavailable_value", new NonEmpty(),
                    Importance.LOW,
                    "cdc.mode=debezium only: the value Debezium writes for an unchanged TOAST column (its "
                            + "unavailable.value.placeholder). Set it to the source connector's value.",
                    GROUP_CDC, 8, Width.MEDIUM, "Unavailable value placeholder")
            .define(CDC_VERSION_BITS, Type.INT, 64, new VersionBitsValidator(), Importance.LOW,
                    "cdc.mode=debezium only: the width of the versions, 64 (a UInt64 version column) or 128 (UInt128 "
                            + "or "
                            + "UInt256). A table can switch from 64 to 128, never back.",
                    GROUP_CDC, 5, Width.SHORT, "Version width")
            .define(CDC_VERSION_EPOCH, Type.INT, 0, ConfigDef.Range.between(0, CDC_VERSION_MAX_EPOCH),
                    Importance.LOW,
                    "cdc.mode=debezium only: the epoch of the versions, 0 to "
                            + CDC_VERSION_MAX_EPOCH
                            + ". Raise it by one when the source log "
                            + "restarts at lower positions.",
                    GROUP_CDC, 6, Width.SHORT, "Version epoch")
            .define(CDC_VERSION_EPOCH_MAP, Type.STRING, "", new EpochMapValidator(), Importance.LOW,
                    "cdc.mode=debezium only: the epochs of single topics, comma-separated 'topic:epoch' pairs; other "
                            + "topics take "
                            + CDC_VERSION_EPOCH
                            + ".",
                    GROUP_CDC, 7, Width.LONG, "Version epoch per topic")
            .define(CDC_ROW_CACHE_BYTES, Type.LONG, 32L * 1024 * 1024, ConfigDef.Range.atLeast(0), Importance.LOW,
                    "cdc.mode=debezium only: the bound of each task's cache of the rows it wrote, memory on top of "
                            + BUFFER_MAX_BYTES
                            + ". 0: no cache.",
                    GROUP_CDC, 9, Width.SHORT, "Row cache bytes")
            .define(CDC_READ_POLLS, Type.INT, 8, ConfigDef.Range.between(1, 64), Importance.LOW,
                    "cdc.mode=debezium only: how many polls one read of current rows from ClickHouse may serve. 1: "
                            + "every poll reads at once.",
                    GROUP_CDC, 10, Width.SHORT, "Polls per read")
            .define(CDC_NULL_DEFAULTS, Type.STRING, CdcNullDefaults.REFUSE.configValue(),
                    ConfigDef.ValidString.in(CdcNullDefaults.REFUSE.configValue(),
                            CdcNullDefaults.ALLOW.configValue()), Importance.LOW,
                    "cdc.mode=debezium only: refuse (validation and task start refuse a value converter that writes a "
                            + "field's default where a change event has null), or allow (a WARN at start).",
                    GROUP_CDC, 11, Width.SHORT, "Nulls with defaults")
            .define(CDC_KEY_CHANGE_WAIT_MS, Type.LONG, CDC_KEY_CHANGE_WAIT_MS_DEFAULT, ConfigDef.Range.atLeast(0),
                    Importance.LOW,
                    "cdc.mode=debezium only: how long a primary-key change with unchanged TOAST values waits for the "
                            + "delete of its old key to reach the table, before it is a bad record.",
                    GROUP_CDC, 12, Width.SHORT, "Key change wait (ms)");

    private final Map<String, String> settings;
    private final Map<String, String> topicTables;
    private final Map<String, Integer> topicEpochs;
    private final CdcNullDefaults cdcNullDefaults;

    public SinkConfig(Map<String, String> props) {
        super(CONFIG_DEF, props);
        this.settings = parsePairs(getString(CLICKHOUSE_SETTINGS), '=', CLICKHOUSE_SETTINGS);
        this.topicTables = parsePairs(getString(TOPIC_TO_TABLE_MAP), ':', TOPIC_TO_TABLE_MAP);
        this.topicEpochs = parseEpochs(getString(CDC_VERSION_EPOCH_MAP), CDC_VERSION_EPOCH_MAP);
        this.cdcNullDefaults = CdcNullDefaults.parse(getString(CDC_NULL_DEFAULTS));
        String tolerance = props.get(ERRORS_TOLERANCE);
        this.tolerateErrors = tolerance != null && tolerance.trim().toLowerCase(Locale.ROOT).equals("all");
        String bound = bufferBoundProblem(flushMaxBytes(), bufferMaxBytes());
        if (bound != null) {
            throw new ConfigException(BUFFER_MAX_BYTES, bufferMaxBytes(), bound);
        }
    }

    /**
     * Why {@code buffer.max.bytes} cannot work with {@code flush.max.bytes}, or null when it can: a block is sealed
     * by size only when it reaches flush.max.bytes, and the task pauses consumption once it holds buffer.max.bytes,
     * so the bound must leave room for more than one full block (an exactly_once rebuild, never sealed before its
     * last record arrives, would otherwise stall the paused task).
     */
    public static String bufferBoundProblem(long flushMaxBytes, long bufferMaxBytes) {
        if (flushMaxBytes < bufferMaxBytes) {
            return null;
        }
        return BUFFER_MAX_BYTES + " (" + bufferMaxBytes + ") must be larger than " + FLUSH_MAX_BYTES + " ("
                + flushMaxBytes + "): a block is sealed by size only when it reaches " + FLUSH_MAX_BYTES
                + ", and the task pauses consumption once it holds " + BUFFER_MAX_BYTES + ", so one block would "
                + "fill the whole bound (and an exactly_once rebuild, which waits for its own records, would stall "
                + "the task). Raise " + BUFFER_MAX_BYTES + " to " + multiply(flushMaxBytes, 3) + " (3 x "
                + FLUSH_MAX_BYTES + ", as the defaults) or more, or lower " + FLUSH_MAX_BYTES + " to "
                + Math.max(1024, bufferMaxBytes / 3) + " (a third of " + BUFFER_MAX_BYTES + ") or less.";
    }

    private static long multiply(long a, int b) {
        return a > Long.MAX_VALUE / b ? Long.MAX_VALUE : a * b;
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

    public boolean autoCreate() {
        return getBoolean(AUTO_CREATE);
    }

    public boolean autoEvolve() {
        return getBoolean(AUTO_EVOLVE);
    }

    /** The engine text for created tables, or empty for the default. */
    public String autoCreateEngine() {
        return getString(AUTO_CREATE_ENGINE).trim();
    }

    public List<String> autoCreateOrderBy() {
        List<String> out = new java.util.ArrayList<>();
        for (String c : getList(AUTO_CREATE_ORDER_BY)) {
            if (!c.trim().isEmpty()) {
                out.add(c.trim());
            }
        }
        return out;
    }

    /** Table settings for created tables, in the order given. */
    public Map<String, String> autoCreateSettings() {
        return parsePairs(getString(AUTO_CREATE_SETTINGS), '=', AUTO_CREATE_SETTINGS);
    }

    public String autoCreateStructType() {
        return getString(AUTO_CREATE_STRUCT_TYPE).trim().toLowerCase(Locale.ROOT);
    }

    /** The cluster DDL runs ON CLUSTER on, or empty. */
    public String cluster() {
        return getString(CLICKHOUSE_CLUSTER).trim();
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
        return tombstonesBehavior().equals("fail");
    }

    /** tombstones.behavior as it applies: skip, fail or delete (empty: delete with cdc.mode=debezium, else skip). */
    public String tombstonesBehavior() {
        String b = getString(TOMBSTONES_BEHAVIOR).trim();
        return b.isEmpty() ? (debeziumCdc() ? "delete" : "skip") : b;
    }

    /** Debezium's unavailable.value.placeholder: an unchanged TOAST value the sink fills from the current row. */
    public String cdcUnavailablePlaceholder() {
        return getString(CDC_UNAVAILABLE_PLACEHOLDER);
    }

    /** unknown.fields.behavior=error: a field no column takes is a bad record. */
    public boolean rejectUnknownFields() {
        return getString(UNKNOWN_FIELDS_BEHAVIOR).equals("error");
    }

    public long retryTimeoutMs() {
        return getLong(RETRY_TIMEOUT_MS);
    }

    public long retryBackoffMs() {
        return getLong(RETRY_BACKOFF_MS);
    }

    /** The TLS and proxy settings of the connection. */
    public TlsSettings tls() {
        Password keyPassword = getPassword(SSL_KEY_PASSWORD);
        return new TlsSettings(getString(SSL_TRUSTSTORE_LOCATION), getPassword(SSL_TRUSTSTORE_PASSWORD),
                getString(SSL_TRUSTSTORE_TYPE), getString(SSL_KEYSTORE_LOCATION), getPassword(SSL_KEYSTORE_PASSWORD),
                getString(SSL_KEYSTORE_TYPE), keyPassword != null ? keyPassword : getPassword(SSL_KEYSTORE_PASSWORD),
                getBoolean(SSL_HOSTNAME_VERIFICATION));
    }

    public String proxyHost() {
        return getString(PROXY_HOST).trim();
    }

    public int proxyPort() {
        return getInt(PROXY_PORT);
    }

    public String proxyUser() {
        return getString(PROXY_USER);
    }

    public Password proxyPassword() {
        return getPassword(PROXY_PASSWORD);
    }

    /** cdc.mode=debezium: record values are Debezium change events. */
    public boolean debeziumCdc() {
        return getString(CDC_MODE).equals("debezium");
    }

    public String cdcVersionColumn() {
        return getString(CDC_VERSION_COLUMN).trim();
    }

    public String cdcDeletedColumn() {
        return getString(CDC_DELETED_COLUMN).trim();
    }

    /** cdc.truncate.behavior=fail: a truncate event is a bad record. */
    public boolean failOnTruncate() {
        return getString(CDC_TRUNCATE_BEHAVIOR).equals("fail");
    }

    /** cdc.version.bits: 64 or 128. */
    public int cdcVersionBits() {
        return getInt(CDC_VERSION_BITS);
    }

    /** cdc.version.epoch: the epoch of topics cdc.version.epoch.map does not name. */
    public int cdcVersionEpoch() {
        return getInt(CDC_VERSION_EPOCH);
    }

    /** cdc.read.polls: how many polls one read of current rows may serve. */
    public int cdcReadPolls() {
        return getInt(CDC_READ_POLLS);
    }

    /** cdc.row.cache.bytes: the bound of a task's cache of the rows it wrote and saw inserted (0: none). */
    public long cdcRowCacheBytes() {
        return getLong(CDC_ROW_CACHE_BYTES);
    }

    /** cdc.key.change.wait.ms: how long a key change's create waits for its old key's delete. */
    public long cdcKeyChangeWaitMs() {
        return getLong(CDC_KEY_CHANGE_WAIT_MS);
    }

    /** cdc.null.defaults: whether a value converter that puts schema defaults in place of nulls is accepted. */
    public CdcNullDefaults cdcNullDefaults() {
        return cdcNullDefaults;
    }

    /** cdc.version.epoch.map: topic to epoch. */
    public Map<String, Integer> cdcVersionEpochs() {
        return topicEpochs;
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

    static Map<String, Integer> parseEpochs(String text, String key) {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : parsePairs(text, ':', key).entrySet()) {
            int epoch;
            try {
                epoch = Integer.parseInt(e.getValue());
            } catch (NumberFormatException x) {
                epoch = -1;
            }
            if (epoch < 0 || epoch > CDC_VERSION_MAX_EPOCH) {
                throw new ConfigException(key, text, "the epoch of topic '" + e.getKey() + "' is '" + e.getValue()
                        + "', not an integer from 0 to " + CDC_VERSION_MAX_EPOCH);
            }
            out.put(e.getKey(), epoch);
        }
        return Collections.unmodifiableMap(out);
    }

    private static final class VersionBitsValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (value == null) {
                return; // not an integer: ConfigDef reported it already
            }
            if (!(value instanceof Integer) || (Integer) value != 64 && (Integer) value != 128) {
                throw new ConfigException(name, value, "must be 64 (a UInt64 version column) or 128 (a UInt128 or "
                        + "UInt256 version column)");
            }
        }

        @Override
        public String toString() {
            return "64 or 128";
        }
    }

    private static final class EpochMapValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            parseEpochs(value == null ? "" : value.toString(), name);
        }

        @Override
        public String toString() {
            return "topic:epoch[,topic:epoch...], epoch 0 to " + CDC_VERSION_MAX_EPOCH;
        }
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

    private static final class EngineValidator implements ConfigDef.Validator {
        private static final java.util.regex.Pattern ENGINE =
                java.util.regex.Pattern.compile("[A-Za-z][A-Za-z0-9_]*(\\s*\\(.*\\))?", java.util.regex.Pattern.DOTALL);

        @Override
        public void ensureValid(String name, Object value) {
            String s = value == null ? "" : value.toString().trim();
            if (!s.isEmpty() && (!ENGINE.matcher(s).matches() || s.contains(";"))) {
                throw new ConfigException(name, s, "must be an engine name with optional arguments, e.g. MergeTree "
                        + "or ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}')");
            }
        }

        @Override
        public String toString() {
            return "empty, or Engine[(arguments)]";
        }
    }

    private static final class TableSettingsValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            for (String k : parsePairs(value == null ? "" : value.toString(), '=', name).keySet()) {
                if (!k.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                    throw new ConfigException(name, value, "'" + k + "' is not a setting name");
                }
            }
        }

        @Override
        public String toString() {
            return "setting=value[,setting=value...]";
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
