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
                    "ClickHouse user the connector inserts as. It needs INSERT on the target tables, nothing else "
                            + "(any privilege on a table makes its columns visible in system.columns).",
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
                    "Target table name for a topic; ${topic} is replaced by the topic name as the transforms leave "
                            + "it. The table is looked up in clickhouse.database and must exist (unless auto.create "
                            + "is on).",
                    GROUP_ROUTING, 1, Width.MEDIUM, "Table name format")
            .define(TOPIC_TO_TABLE_MAP, Type.STRING, "", new TableMapValidator(), Importance.MEDIUM,
                    "Explicit topic to table routes, comma-separated 'topic:table' or 'topic:database.table' "
                            + "pairs, by the topic name as the transforms leave it. A topic listed here ignores "
                            + "table.name.format.",
                    GROUP_ROUTING, 2, Width.LONG, "Topic to table map")
            .define(DEFAULT_ASSIGNMENT, Type.STRING, DefaultAssignment.REFUSE.configValue(),
                    ConfigDef.ValidString.in(DefaultAssignment.REFUSE.configValue(),
                            DefaultAssignment.ALLOW.configValue()), Importance.LOW,
                    "Whether a connector reading more topics than tasks.max (2 or more), or topics.regex, may keep "
                            + "Kafka's default partition assignment, under which every task inserts into every "
                            + "table. refuse: validation refuses it unless "
                            + "consumer.override.partition.assignment.strategy is set, and names the value to set. "
                            + "allow: accepted with a WARN at start (for an assignor set on the worker). See "
                            + "docs/operations.md#many-topics.",
                    GROUP_ROUTING, 3, Width.SHORT, "Default assignment")
            .define(AUTO_CREATE, Type.BOOLEAN, false, Importance.MEDIUM,
                    "Create a missing target table from the first record routed to it: columns from the value "
                            + "schema's fields (types as docs/tables.md gives them; "
                            + "optional fields Nullable where ClickHouse allows it), ORDER BY " + AUTO_CREATE_ORDER_BY
                            + " or the fields of a Struct record key, else tuple(); engine " + AUTO_CREATE_ENGINE
                            + " (cdc.mode=debezium: ReplacingMergeTree(version, deleted) ordered by the key), with "
                            + AUTO_CREATE_SETTINGS + ". A record without a value schema (schemaless JSON) cannot "
                            + "create a table: a bad record naming the topic. The user needs CREATE TABLE (and "
                            + "INSERT) on the database; validation checks it. Every statement is logged at INFO.",
                    GROUP_TABLES, 1, Width.SHORT, "Create missing tables")
            .define(AUTO_EVOLVE, Type.BOOLEAN, false, Importance.MEDIUM,
                    "Add the columns a record's value schema has and its table lacks (ALTER TABLE ... ADD COLUMN IF "
                            + "NOT EXISTS): optional fields as Nullable(T) (Array, Map, Tuple, Variant and JSON as "
                            + "they are), fields with a default with a DEFAULT literal; then the record lands with "
                            + "its values. A new required field without a default is a bad record ('cannot add "
                            + "required column'). Columns are never dropped, renamed or retyped. Records without a "
                            + "value schema follow " + UNKNOWN_FIELDS_BEHAVIOR + ". The user needs ALTER ADD COLUMN "
                            + "on the tables; validation checks it.",
                    GROUP_TABLES, 2, Width.SHORT, "Add new fields as columns")
            .define(AUTO_CREATE_ENGINE, Type.STRING, "", new EngineValidator(), Importance.LOW,
                    "Engine of the tables auto.create makes, as in ENGINE = ..., e.g. "
                            + "ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}'). "
                            + "Empty: MergeTree, or with cdc.mode=debezium ReplacingMergeTree(version column, "
                            + "deleted column).",
                    GROUP_TABLES, 3, Width.LONG, "Engine of created tables")
            .define(AUTO_CREATE_ORDER_BY, Type.LIST, "", Importance.LOW,
                    "Columns of the ORDER BY of tables auto.create makes, comma-separated (quoted in the "
                            + "statement). Empty: the record key's fields when the key is a Struct (those that are "
                            + "non-Nullable value fields), else tuple().",
                    GROUP_TABLES, 4, Width.MEDIUM, "Sorting key of created tables")
            .define(AUTO_CREATE_SETTINGS, Type.STRING, "", new TableSettingsValidator(), Importance.LOW,
                    "Table settings of tables auto.create makes, comma-separated key=value pairs, e.g. "
                            + "'non_replicated_deduplication_window=1000' (which delivery.guarantee=exactly_once "
                            + "needs for a MergeTree; validation refuses exactly_once with auto.create without it).",
                    GROUP_TABLES, 5, Width.LONG, "Settings of created tables")
            .define(AUTO_CREATE_STRUCT_TYPE, Type.STRING, "tuple", ConfigDef.CaseInsensitiveValidString.in("tuple",
                    "json"), Importance.LOW,
                    "What a Struct field (not an Avro union) becomes when auto.create or auto.evolve makes its "
                            + "column: tuple (a named Tuple of its fields' types) or json (the JSON type).",
                    GROUP_TABLES, 6, Width.SHORT, "Struct columns")
            .define(CLICKHOUSE_CLUSTER, Type.STRING, "", Importance.LOW,
                    "Cluster the DDL of auto.create and auto.evolve runs ON CLUSTER on (the servers' "
                            + "remote_servers name). Empty: the statements run on the server of clickhouse.url only.",
                    GROUP_TABLES, 7, Width.MEDIUM, "Cluster for DDL")
            .define(FLUSH_MAX_ROWS, Type.INT, 500_000, ConfigDef.Range.atLeast(1), Importance.MEDIUM,
                    "A table's block is inserted when it holds this many rows. A block collects the records of "
                            + "every partition routed to the table (exactly_once: of one partition).",
                    GROUP_FLUSH, 1, Width.SHORT, "Rows per block")
            .define(FLUSH_MAX_BYTES, Type.LONG, 32L * 1024 * 1024, ConfigDef.Range.atLeast(1024), Importance.MEDIUM,
                    "A table's block is inserted when its encoded columns reach this many bytes (before "
                            + "compression).",
                    GROUP_FLUSH, 2, Width.SHORT, "Bytes per block")
            .define(FLUSH_INTERVAL_MS, Type.LONG, 1000L, ConfigDef.Range.atLeast(10), Importance.MEDIUM,
                    "A block is sent this long after its first record arrived, however small; while the previous "
                            + "insert into its table is still running, it keeps collecting records (up to "
                            + FLUSH_MAX_ROWS + " and " + FLUSH_MAX_BYTES + ") and is sent when that insert completes. "
                            + "When a poll brings no record for 100 ms (the end of a burst) and the task's open blocks "
                            + "together hold a tenth of " + FLUSH_MAX_ROWS + " or " + FLUSH_MAX_BYTES + " or more, "
                            + "they are all sent at once, over one table or many.",
                    GROUP_FLUSH, 3, Width.SHORT, "Flush interval")
            .define(BUFFER_MAX_BYTES, Type.LONG, 96L * 1024 * 1024, ConfigDef.Range.atLeast(1024), Importance.MEDIUM,
                    "Memory bound of one task: encoded bytes held in open, queued and in-flight blocks, and 12 "
                            + "bytes a row for each row's Kafka coordinates. When "
                            + "reached, the task pauses consumption until inserts complete, so it exceeds the bound "
                            + "by at most one poll's records (the heap behind these bytes is as much plus at most "
                            + "one 256 KiB chunk per column stream of each block, as buffers grow by chunks). Besides, "
                            + "the buffers of each table's last inserted block are kept for its next block, at most "
                            + "2 x " + FLUSH_MAX_BYTES + " per task. exactly_once: the partition of the oldest "
                            + "rebuild of a recorded block in progress is never paused (a rebuild is sealed only "
                            + "when its recorded range is complete), so the task may hold the bound plus one "
                            + "recorded block. Must be larger than " + FLUSH_MAX_BYTES
                            + " (validation and start refuse it otherwise: a block is sealed by size only at "
                            + FLUSH_MAX_BYTES + ", so one block would fill the whole bound); the default is 3 x "
                            + "the default " + FLUSH_MAX_BYTES + ". cdc.mode=debezium: the rows of blocks not yet "
                            + "inserted, which the task keeps for the changes after them, count against the bound; "
                            + "its cache of inserted rows (" + CDC_ROW_CACHE_BYTES + ") comes on top of it.",
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
                            + "whose rows expire after 30 days); the user needs CREATE TABLE, INSERT, SELECT and ALTER DELETE on it (ALTER DELETE prunes recorded blocks as offsets are committed, and moves offsets through the REST API). For "
                            + "Replicated or Shared MergeTree targets it must be replicated too (a KeeperMap, or a "
                            + "ReplacingMergeTree in a Replicated database or on ClickHouse Cloud, or a "
                            + "ReplicatedReplacingMergeTree you create: see docs/exactly-once.md); validation and "
                            + "task start check it.",
                    GROUP_DELIVERY, 2, Width.MEDIUM, "Exactly-once state table")
            .define(TOMBSTONES_BEHAVIOR, Type.STRING, "", ConfigDef.ValidString.in("", "skip", "fail", "delete"),
                    Importance.MEDIUM,
                    "What a record with a null value (a tombstone) does: skip (it is counted in the task's summary "
                            + "line and its offset is committed), fail (it is a bad record: the task fails, or with "
                            + "errors.tolerance=all it goes to the dead-letter queue) or, with cdc.mode=debezium only, "
                            + "delete (the row its key names is deleted, as Debezium's ExtractNewRecordState "
                            + "writes deletes by default). Empty: delete with cdc.mode=debezium, else skip.",
                    GROUP_RECORDS, 1, Width.SHORT, "Tombstones")
            .define(UNKNOWN_FIELDS_BEHAVIOR, Type.STRING, "ignore", ConfigDef.ValidString.in("ignore", "error"),
                    Importance.MEDIUM,
                    "What a value field that no column takes does (a field the table does not have, or one naming a "
                            + "MATERIALIZED or ALIAS column): ignore it, or error (the record is a bad record).",
                    GROUP_RECORDS, 2, Width.SHORT, "Unknown fields")
            .define(RETRY_TIMEOUT_MS, Type.LONG, 300_000L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                    "How long inserts may keep failing with retriable errors (network, timeouts, server overload; "
                            + "see docs/operations.md for the list of ClickHouse error codes) before the task stops taking "
                            + "new records: put() then throws Connect's RetriableException, so Connect pauses and "
                            + "redelivers the same records later. Blocks already taken keep being retried, "
                            + "offsets are never committed past them, and the task does not fail for a retriable "
                            + "error. Permanent errors (authentication, missing grants, unknown table) fail the "
                            + "task at once.",
                    GROUP_DELIVERY, 2, Width.SHORT, "Retry time budget")
            .define(RETRY_BACKOFF_MS, Type.LONG, 500L, ConfigDef.Range.between(10, 60_000), Importance.LOW,
                    "Wait before the first retry of a failed insert; it doubles with every further attempt, up to "
                            + "the larger of 10 s and this value, with random jitter (each wait is between half "
                            + "and all of the current backoff).",
                    GROUP_DELIVERY, 3, Width.SHORT, "Retry backoff")
            .define(SSL_TRUSTSTORE_LOCATION, Type.STRING, "", Importance.MEDIUM,
                    "Trust store (JKS or PKCS12 file) with the CA certificates that sign the ClickHouse server's "
                            + "certificate, for https:// URLs. Empty: the JVM's default trust store.",
                    GROUP_SECURITY, 1, Width.LONG, "Trust store")
            .define(SSL_TRUSTSTORE_PASSWORD, Type.PASSWORD, "", Importance.MEDIUM,
                    "Password of the trust store. Never logged.",
                    GROUP_SECURITY, 2, Width.MEDIUM, "Trust store password")
            .define(SSL_TRUSTSTORE_TYPE, Type.STRING, "PKCS12", ConfigDef.CaseInsensitiveValidString.in("PKCS12", "JKS"),
                    Importance.LOW, "Type of the trust store file.",
                    GROUP_SECURITY, 3, Width.SHORT, "Trust store type")
            .define(SSL_KEYSTORE_LOCATION, Type.STRING, "", Importance.MEDIUM,
                    "Key store (JKS or PKCS12 file) with the client certificate and its private key, for servers "
                            + "that require client certificates. Its first key entry is used. Empty: no client "
                            + "certificate.",
                    GROUP_SECURITY, 4, Width.LONG, "Key store")
            .define(SSL_KEYSTORE_PASSWORD, Type.PASSWORD, "", Importance.MEDIUM,
                    "Password of the key store. Never logged.",
                    GROUP_SECURITY, 5, Width.MEDIUM, "Key store password")
            .define(SSL_KEYSTORE_TYPE, Type.STRING, "PKCS12", ConfigDef.CaseInsensitiveValidString.in("PKCS12", "JKS"),
                    Importance.LOW, "Type of the key store file.",
                    GROUP_SECURITY, 6, Width.SHORT, "Key store type")
            .define(SSL_KEY_PASSWORD, Type.PASSWORD, null, Importance.LOW,
                    "Password of the private key in the key store, if it differs from the key store's. Never logged.",
                    GROUP_SECURITY, 7, Width.MEDIUM, "Key password")
            .define(SSL_HOSTNAME_VERIFICATION, Type.BOOLEAN, true, Importance.MEDIUM,
                    "Check that the server certificate names the host of clickhouse.url. Turn off only for "
                            + "servers reached by an address their certificate does not name; the certificate is "
                            + "still checked against the trust store.",
                    GROUP_SECURITY, 8, Width.SHORT, "Verify host name")
            .define(PROXY_HOST, Type.STRING, "", Importance.LOW,
                    "HTTP proxy host to reach ClickHouse through (https:// URLs are tunnelled with CONNECT). Empty: "
                            + "no proxy.",
                    GROUP_SECURITY, 9, Width.MEDIUM, "Proxy host")
            .define(PROXY_PORT, Type.INT, 3128, ConfigDef.Range.between(1, 65535), Importance.LOW,
                    "Port of the HTTP proxy given by clickhouse.proxy.host.",
                    GROUP_SECURITY, 10, Width.SHORT, "Proxy port")
            .define(PROXY_USER, Type.STRING, "", Importance.LOW,
                    "User for the proxy's basic authentication, sent with each request (client-v2 does not send it "
                            + "with CONNECT, so it works for http:// URLs only). Empty: none.",
                    GROUP_SECURITY, 11, Width.MEDIUM, "Proxy user")
            .define(PROXY_PASSWORD, Type.PASSWORD, "", Importance.LOW,
                    "Password for the proxy's basic authentication. Never logged.",
                    GROUP_SECURITY, 12, Width.MEDIUM, "Proxy password")
            .define(CDC_MODE, Type.STRING, "none", ConfigDef.ValidString.in("none", "debezium"), Importance.HIGH,
                    "none: every record is a row, appended as it is. debezium: every record value is a Debezium "
                            + "change event (the envelope with before, after, source and op, or the flattened form "
                            + "of Debezium's ExtractNewRecordState transform with __deleted or __op), and the target "
                            + "tables are ReplacingMergeTree(version, is_deleted) tables whose rows "
                            + "converge to the source table: creates, snapshot reads and updates write the after "
                            + "image (a column holding Debezium's placeholder for an unchanged TOAST value takes "
                            + "the row's current value), deletes the row's key and the columns of the table's "
                            + "sorting and partition keys with the deleted column set to 1 (its other columns take "
                            + "their defaults); tombstones delete the row their key names (tombstones.behavior); "
                            + "the version column grows with every change of a row (PostgreSQL: source.lsn; "
                            + "MySQL/MariaDB: binlog file, position and row; other connectors: the Kafka offset; "
                            + "see cdc.version.*), so the latest change wins however often and in whatever order "
                            + "records are inserted. Validation and task start refuse a table that is not a "
                            + "ReplacingMergeTree with these columns, naming the statement that fixes it. See "
                            + "docs/cdc.md.",
                    GROUP_CDC, 1, Width.SHORT, "CDC mode")
            .define(CDC_VERSION_COLUMN, Type.STRING, "_version", new NonEmpty(), Importance.MEDIUM,
                    "cdc.mode=debezium only: the version column of the ReplacingMergeTree (its first engine "
                            + "parameter), UInt64 (or UInt128, UInt256), filled by the connector.",
                    GROUP_CDC, 2, Width.SHORT, "Version column")
            .define(CDC_DELETED_COLUMN, Type.STRING, "_is_deleted", new NonEmpty(), Importance.MEDIUM,
                    "cdc.mode=debezium only: the is_deleted column of the ReplacingMergeTree (its second engine "
                            + "parameter), UInt8, filled by the connector: 1 for a delete, else 0.",
                    GROUP_CDC, 3, Width.SHORT, "Deleted column")
            .define(CDC_TRUNCATE_BEHAVIOR, Type.STRING, "skip", ConfigDef.ValidString.in("skip", "fail"),
                    Importance.LOW,
                    "cdc.mode=debezium only: what a truncate event (op t) does: skip (logged as a WARN naming the "
                            + "topic, partition and offset, counted in RecordsWithoutRow; the rows of the table stay "
                            + "in ClickHouse) or fail (it is a bad record: the task fails, or with errors.tolerance=all "
                            + "it goes to the dead-letter queue).",
                    GROUP_CDC, 4, Width.SHORT, "Truncate events")
            .define(CDC_UNAVAILABLE_PLACEHOLDER, Type.STRING, "__debezium_unavailable_value", new NonEmpty(),
                    Importance.LOW,
                    "cdc.mode=debezium only: the value Debezium writes for an unchanged TOAST column it did not "
                            + "receive (its unavailable.value.placeholder; for bytes columns its bytes, also in "
                            + "base64 or hex with binary.handling.mode). The connector fills such a column from "
                            + "the row's current value (in a block not yet inserted, in the task's cache of "
                            + "inserted rows, " + CDC_ROW_CACHE_BYTES + ", or in ClickHouse); a row it cannot find "
                            + "is a bad record. Set it to the source connector's value.",
                    GROUP_CDC, 8, Width.MEDIUM, "Unavailable value placeholder")
            .define(CDC_VERSION_BITS, Type.INT, 64, new VersionBitsValidator(), Importance.LOW,
                    "cdc.mode=debezium only: the width of the versions the connector writes. 64: a UInt64 version "
                            + "column (or wider) takes them; positions beyond 64 bits (a binlog file index of 2^15 "
                            + "or more, a binlog position of 2^32 or more, more than 4,095 rows in one binlog event, "
                            + "an LSN or Kafka offset of 2^59 or more) are bad records naming this key. 128: the "
                            + "version column must be UInt128 or UInt256; no real position is out of reach. Every "
                            + "128-bit version is above every 64-bit one, so a table can switch from 64 to 128 (ALTER "
                            + "TABLE ... MODIFY COLUMN <version column> UInt128 first), never back.",
                    GROUP_CDC, 5, Width.SHORT, "Version width")
            .define(CDC_VERSION_EPOCH, Type.INT, 0, ConfigDef.Range.between(0, CDC_VERSION_MAX_EPOCH),
                    Importance.LOW,
                    "cdc.mode=debezium only: the epoch of the versions, in their high bits: every version of "
                            + "epoch e+1 is above every version of epoch e. Raise it by one when the source log "
                            + "restarts at lower positions (a MySQL/MariaDB failover to a server with a lower binlog "
                            + "index, PostgreSQL moved to a new cluster, a re-created topic under the Kafka-offset "
                            + "rule), after the connector has consumed every record of the old log; otherwise every "
                            + "later change of an existing row loses to its older version. For single topics: "
                            + CDC_VERSION_EPOCH_MAP + ". 0 to " + CDC_VERSION_MAX_EPOCH + ".",
                    GROUP_CDC, 6, Width.SHORT, "Version epoch")
            .define(CDC_VERSION_EPOCH_MAP, Type.STRING, "", new EpochMapValidator(), Importance.LOW,
                    "cdc.mode=debezium only: the epoch of single topics, comma-separated 'topic:epoch' pairs "
                            + "(epoch 0 to " + CDC_VERSION_MAX_EPOCH + "), e.g. 'srv.app.orders:1'; other topics "
                            + "take " + CDC_VERSION_EPOCH + ". Give every topic routed to one table the same epoch.",
                    GROUP_CDC, 7, Width.LONG, "Version epoch per topic")
            .define(CDC_ROW_CACHE_BYTES, Type.LONG, 32L * 1024 * 1024, ConfigDef.Range.atLeast(0), Importance.LOW,
                    "cdc.mode=debezium only: the bound of each task's cache of the rows it wrote and saw inserted "
                            + "(the latest row of each key, least recently used out first; of each row only the "
                            + "columns a placeholder, delete or tombstone can ask for, counted as the heap it keeps: "
                            + "those values, its key and about 150 bytes of the cache's own). An unchanged "
                            + "TOAST value, a delete or a tombstone whose row is neither in a block not yet inserted "
                            + "nor here makes the task read the table (one query per table and batch, in put()). "
                            + "All changes of a key come through one partition, so the cached row is the key's "
                            + "latest while the task owns it; the cache is emptied when partitions are revoked and "
                            + "starts empty. It is memory on top of " + BUFFER_MAX_BYTES + ": a task holds up to "
                            + BUFFER_MAX_BYTES + " plus this. The default holds about 54,000 rows whose TOASTed column holds 250 characters (an integer key). 0: "
                            + "no cache (every such change whose row is not pending reads the table). See "
                            + "docs/cdc.md.",
                    GROUP_CDC, 9, Width.SHORT, "Row cache bytes")
            .define(CDC_READ_POLLS, Type.INT, 8, ConfigDef.Range.between(1, 64), Importance.LOW,
                    "cdc.mode=debezium only: how many polls one read of current rows may serve. A poll whose "
                            + "changes need rows that are neither in a block not yet inserted nor in the cache ("
                            + CDC_ROW_CACHE_BYTES + ") is held, not yet appended and its offsets not committed, "
                            + "until this many polls are held, a poll brings nothing or the first was held for "
                            + "500 ms; then one query per table reads the keys of all of them. A read costs about the "
                            + "same for one key as for a hundred (ClickHouse reads a granule per key and part), so "
                            + "fewer, larger reads cost less. 1: every poll reads at once.",
                    GROUP_CDC, 10, Width.SHORT, "Polls per read")
            .define(CDC_NULL_DEFAULTS, Type.STRING, CdcNullDefaults.REFUSE.configValue(),
                    ConfigDef.ValidString.in(CdcNullDefaults.REFUSE.configValue(),
                            CdcNullDefaults.ALLOW.configValue()), Importance.LOW,
                    "cdc.mode=debezium only: whether the connector runs with a value converter that writes a "
                            + "field's schema default where a change event has null, so that a column set to NULL "
                            + "in the source lands as its default. refuse: validation and task start refuse "
                            + "value.converter=org.apache.kafka.connect.json.JsonConverter unless "
                            + "value.converter.replace.null.with.default=false, and "
                            + "value.converter=io.chsink.connect.convert.JsonEnvelopeConverter with "
                            + "value.converter.replace.null.with.default=true (without that key it reads a change "
                            + "event's nulls as nulls), naming the key to set. allow: such a converter is accepted "
                            + "and the task logs a WARN at start. A value.converter set on the worker rather than "
                            + "the connector cannot be checked: the task logs a WARN at start. See docs/cdc.md.",
                    GROUP_CDC, 11, Width.SHORT, "Nulls with defaults")
            .define(CDC_KEY_CHANGE_WAIT_MS, Type.LONG, CDC_KEY_CHANGE_WAIT_MS_DEFAULT, ConfigDef.Range.atLeast(0),
                    Importance.LOW,
                    "cdc.mode=debezium only: how long the create of a primary-key change whose unchanged TOAST "
                            + "values arrive as Debezium's placeholder waits for the delete of its old key (another "
                            + "partition, maybe another task) to reach the table; the delete carries those values. "
                            + "Meanwhile the create's partition is read again from it and not committed past it. "
                            + "Then the create is a bad record naming the old key. See docs/cdc.md.",
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
