package io.chsink.connect;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.ServerException;
import io.chsink.connect.cdc.NullDefaults;
import io.chsink.connect.cdc.RowSources;
import io.chsink.connect.cluster.ClusterReader;
import io.chsink.connect.cluster.DistributedTable;
import io.chsink.connect.cluster.ShardTable;
import io.chsink.connect.config.AssignmentAdvice;
import io.chsink.connect.config.CdcNullDefaults;
import io.chsink.connect.config.DefaultAssignment;
import io.chsink.connect.config.SinkConfig;
import io.chsink.connect.config.TableRouter;
import io.chsink.connect.config.TransformChain;
import io.chsink.connect.evolve.EvolveChecks;
import io.chsink.connect.exactlyonce.DedupCheck;
import io.chsink.connect.exactlyonce.OffsetsReset;
import io.chsink.connect.exactlyonce.StateEngineCheck;
import io.chsink.connect.schema.TableId;
import io.chsink.connect.schema.TableSchemaLoader;
import io.chsink.connect.writer.ClientFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The ClickHouse sink: every task gets the same configuration; Connect spreads partitions over them. */
public class ClickHouseSinkConnector extends SinkConnector {
    private static final Logger LOG = LoggerFactory.getLogger(ClickHouseSinkConnector.class);
    private Map<String, String> props;

    @Override
    public String version() {
        return Version.get();
    }

    @Override
    public void start(Map<String, String> props) {
        new SinkConfig(props); // fail fast on a bad configuration
        this.props = new HashMap<>(props);
        String advice = AssignmentAdvice.advice(props);
        if (advice != null) {
            LOG.warn("Every task inserts into every table: {} (connector {})", advice, connectorName(props));
        }
    }

    @Override
    public Class<? extends Task> taskClass() {
        return ClickHouseSinkTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        List<Map<String, String>> out = new ArrayList<>(maxTasks);
        for (int i = 0; i < maxTasks; i++) {
            out.add(Collections.unmodifiableMap(props));
        }
        return out;
    }

    @Override
    public void stop() {
    }

    /**
     * Offsets altered or reset through Connect's REST API (KIP-875), called on a worker while the connector is
     * stopped, before Connect moves the offsets. at_least_once keeps no state: nothing to do. exactly_once: the
     * altered partitions' recorded blocks are deleted from the state table and their epoch raised (see
     * {@link OffsetsReset}), so the records consumed from the new offsets land once more. A failure (ClickHouse
     * down) throws: the REST request fails and the offsets stay as they were.
     */
    @Override
    public boolean alterOffsets(Map<String, String> connectorConfig, Map<TopicPartition, Long> offsets) {
        SinkConfig config;
        try {
            config = new SinkConfig(connectorConfig);
        } catch (org.apache.kafka.common.config.ConfigException e) {
            throw new org.apache.kafka.connect.errors.ConnectException("Cannot alter the offsets of connector "
                    + connectorConfig.get("name") + ": its configuration is invalid: " + e.getMessage(), e);
        }
        if (config.exactlyOnce()) {
            OffsetsReset.apply(config, connectorName(connectorConfig), offsets, System.currentTimeMillis());
        }
        return true;
    }

    /** The name the tasks put in their tokens and state rows (ClickHouseSinkTask: "name", else "task"). */
    static String connectorName(Map<String, String> config) {
        return config.getOrDefault("name", "task");
    }

    @Override
    public ConfigDef config() {
        return SinkConfig.CONFIG_DEF;
    }

    /**
     * Beyond the per-key checks: can the server be reached with these credentials, does the database exist,
     * does every table that a listed topic routes to exist (when transforms may rename topics or filter whole topics
     * away: every table that topic.to.table.map names; the others are checked when their first record arrives), and
     * (exactly_once) does it deduplicate inserts, and is
     * the state table replicated where the table is? Is buffer.max.bytes above flush.max.bytes? With auto.create and
     * auto.evolve: has the user the grants their statements need, and will exactly_once accept created tables? Each
     * problem is reported on its key.
     */
    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config config = super.validate(connectorConfigs);
        Map<String, ConfigValue> values = new HashMap<>();
        for (ConfigValue v : config.configValues()) {
            values.put(v.name(), v);
        }
        checkBufferBound(values);
        checkTombstones(values);
        checkNullDefaults(values, connectorConfigs);
        checkAssignment(values, connectorConfigs);
        for (String key : new String[] {SinkConfig.CLICKHOUSE_URL, SinkConfig.CLICKHOUSE_USER,
                SinkConfig.CLICKHOUSE_PASSWORD, SinkConfig.CLICKHOUSE_DATABASE, SinkConfig.TABLE_NAME_FORMAT,
                SinkConfig.TOPIC_TO_TABLE_MAP, SinkConfig.CLICKHOUSE_SETTINGS, SinkConfig.SSL_TRUSTSTORE_LOCATION,
                SinkConfig.SSL_KEYSTORE_LOCATION, SinkConfig.PROXY_HOST, SinkConfig.FLUSH_MAX_BYTES,
                SinkConfig.BUFFER_MAX_BYTES, SinkConfig.AUTO_CREATE, SinkConfig.AUTO_EVOLVE,
                SinkConfig.AUTO_CREATE_ENGINE, SinkConfig.AUTO_CREATE_ORDER_BY, SinkConfig.AUTO_CREATE_SETTINGS,
                SinkConfig.AUTO_CREATE_STRUCT_TYPE}) {
            ConfigValue v = values.get(key);
            if (v != null && !v.errorMessages().isEmpty()) {
                return config; // per-key errors first; no point in connecting
            }
        }
        new ServerCheck(new SinkConfig(connectorConfigs), connectorConfigs.get("topics"),
                !TransformChain.tablesKnownFromTopics(connectorConfigs), values).run();
        return config;
    }

    /** tombstones.behavior=delete needs cdc.mode=debezium (a delete is a row of its ReplacingMergeTree). */
    private static void checkTombstones(Map<String, ConfigValue> values) {
        ConfigValue t = values.get(SinkConfig.TOMBSTONES_BEHAVIOR);
        ConfigValue mode = values.get(SinkConfig.CDC_MODE);
        if (t != null && mode != null && "delete".equals(t.value()) && !"debezium".equals(mode.value())) {
            t.addErrorMessage(SinkConfig.TOMBSTONES_BEHAVIOR + "=delete needs " + SinkConfig.CDC_MODE
                    + "=debezium: a deleted row is a row of its ReplacingMergeTree(version, is_deleted) there; with "
                    + SinkConfig.CDC_MODE + "=" + mode.value() + " use skip or fail");
        }
    }

    /**
     * cdc.mode=debezium with a value converter that writes schema defaults in place of a change event's nulls,
     * unless cdc.null.defaults=allow ({@link NullDefaults}); reported on value.converter where the values have it,
     * else on cdc.mode.
     */
    private static void checkNullDefaults(Map<String, ConfigValue> values, Map<String, String> props) {
        ConfigValue mode = values.get(SinkConfig.CDC_MODE);
        ConfigValue optIn = values.get(SinkConfig.CDC_NULL_DEFAULTS);
        if (mode == null || optIn == null || !optIn.errorMessages().isEmpty() || optIn.value() == null) {
            return;
        }
        String problem = NullDefaults.problem("debezium".equals(mode.value()),
                CdcNullDefaults.parse(optIn.value().toString()), props);
        if (problem != null) {
            values.getOrDefault(NullDefaults.CONVERTER, mode).addErrorMessage(problem);
        }
    }

    /**
     * More topics than tasks (or topics.regex) under Kafka's default assignment, unless default.assignment=allow
     * ({@link AssignmentAdvice#problem}); reported on default.assignment.
     */
    private static void checkAssignment(Map<String, ConfigValue> values, Map<String, String> props) {
        ConfigValue mode = values.get(SinkConfig.DEFAULT_ASSIGNMENT);
        if (mode == null || !mode.errorMessages().isEmpty() || mode.value() == null) {
            return;
        }
        String problem = AssignmentAdvice.problem(props, DefaultAssignment.parse(mode.value().toString()));
        if (problem != null) {
            mode.addErrorMessage(problem);
        }
    }

    /** flush.max.bytes must stay below buffer.max.bytes; reported on buffer.max.bytes. */
    private static void checkBufferBound(Map<String, ConfigValue> values) {
        ConfigValue flush = values.get(SinkConfig.FLUSH_MAX_BYTES);
        ConfigValue bound = values.get(SinkConfig.BUFFER_MAX_BYTES);
        if (flush == null || bound == null || !flush.errorMessages().isEmpty() || !bound.errorMessages().isEmpty()
                || !(flush.value() instanceof Long) || !(bound.value() instanceof Long)) {
            return;
        }
        String problem = SinkConfig.bufferBoundProblem((Long) flush.value(), (Long) bound.value());
        if (problem != null) {
            bound.addErrorMessage(problem);
        }
    }

    /** The server-side part of {@link #validate}. */
    private static final class ServerCheck {
        private final SinkConfig config;
        private final String topics;
        private final Map<String, ConfigValue> values;

        /**
         * Whether transforms may rename topics or filter whole topics away: then the tables of {@code topics} are
         * checked by the task, when their first record arrives.
         */
        private final boolean renamed;

        ServerCheck(SinkConfig config, String topics, boolean renamed, Map<String, ConfigValue> values) {
            this.renamed = renamed;
            this.config = config;
            this.topics = topics;
            this.values = values;
        }

        void run() {
            Client built;
            try {
                built = ClientFactory.create(config);
            } catch (org.apache.kafka.connect.errors.ConnectException e) {
                // a store that cannot be read, or settings the client refuses
                String m = String.valueOf(e.getMessage());
                error(m.contains(SinkConfig.SSL_TRUSTSTORE_LOCATION) ? SinkConfig.SSL_TRUSTSTORE_LOCATION
                        : m.contains(SinkConfig.SSL_KEYSTORE_LOCATION) ? SinkConfig.SSL_KEYSTORE_LOCATION
                        : SinkConfig.CLICKHOUSE_URL, m);
                return;
            }
            try (Client client = built) {
                try {
                    client.queryAll("SELECT 1");
                } catch (RuntimeException e) {
                    ServerException se = findServerException(e);
                    javax.net.ssl.SSLException ssl = find(e, javax.net.ssl.SSLException.class);
                    if (se != null && (se.getCode() == 516 || se.getCode() == 192 || se.getCode() == 193)) {
                        error(SinkConfig.CLICKHOUSE_PASSWORD, "Authentication failed for user '" + config.user()
                                + "' (ClickHouse error " + se.getCode() + ")");
                    } else if (ssl != null) {
                        error(config.tls().hasTruststore() ? SinkConfig.SSL_TRUSTSTORE_LOCATION : SinkConfig.CLICKHOUSE_URL,
                                "TLS handshake with " + config.url() + " failed: "
                                        + io.chsink.connect.writer.InsertFailure.tlsReason(ssl));
                    } else {
                        error(SinkConfig.CLICKHOUSE_URL, "ClickHouse at " + config.url() + " is unreachable: "
                                + (se != null ? "error " + se.getCode() : rootMessage(e)));
                    }
                    return;
                }
                Map<String, Object> p = new HashMap<>();
                p.put("db", config.database());
                if (client.queryAll("SELECT 1 FROM system.databases WHERE name = {db:String}", p).isEmpty()) {
                    error(SinkConfig.CLICKHOUSE_DATABASE, "Database '" + config.database() + "' does not exist");
                    return;
                }
                checkTables(client);
            } catch (RuntimeException e) {
                error(SinkConfig.CLICKHOUSE_URL, "Could not check ClickHouse at " + config.url() + ": " + rootMessage(e));
            }
        }

        private void checkTables(Client client) {
            String eo = EvolveChecks.exactlyOnceProblem(config);
            if (eo != null) {
                error(SinkConfig.AUTO_CREATE_SETTINGS, eo);
            }
            boolean listed = topics != null && !topics.trim().isEmpty();
            if (!listed || renamed) {
                // topics.regex, or transforms that may rename or drop topics: tables are known only as records arrive
                // (the task checks each then); the grants must cover the database
                String all = TableId.quote(config.database()) + ".*";
                if (config.autoCreate()) {
                    errorIfAny(SinkConfig.AUTO_CREATE, EvolveChecks.createProblem(client, config, all));
                }
                if (config.autoEvolve()) {
                    errorIfAny(SinkConfig.AUTO_EVOLVE, EvolveChecks.evolveProblem(client, config, all));
                }
                if (!listed) {
                    return;
                }
            }
            TableRouter router = new TableRouter(config);
            Map<String, TableId> tables = new LinkedHashMap<>();
            // Under renaming transforms only the topics topic.to.table.map names are known to reach the sink.
            for (String topic : renamed ? config.topicTables().keySet() : List.of(topics.split(","))) {
                String t = topic.trim();
                if (!t.isEmpty()) {
                    tables.putIfAbsent(t, router.tableFor(t));
                }
            }
            // One query for the columns of every table (per database), not one per topic: a connector of 200
            // topics is validated with 1 query, not 200.
            Map<TableId, ?> columns = new TableSchemaLoader(client).loadAll(new LinkedHashSet<>(tables.values()));
            Set<TableId> distributed = ClusterReader.distributedAmong(client, new LinkedHashSet<>(tables.values()));
            for (Map.Entry<String, TableId> e : tables.entrySet()) {
                String t = e.getKey();
                TableId table = e.getValue();
                boolean exists = columns.get(table) != null;
                if (!exists && config.autoCreate()) {
                    errorIfAny(SinkConfig.AUTO_CREATE, EvolveChecks.createProblem(client, config, table.quoted()));
                    continue; // created by the first record with a value schema
                }
                if (exists && config.autoEvolve()) {
                    errorIfAny(SinkConfig.AUTO_EVOLVE, EvolveChecks.evolveProblem(client, config, table.quoted()));
                }
                if (!exists) {
                    String key = config.topicTables().containsKey(t) ? SinkConfig.TOPIC_TO_TABLE_MAP
                            : SinkConfig.TABLE_NAME_FORMAT;
                    error(key, "Table " + table.quoted() + " for topic '" + t + "' does not exist (or user '"
                            + config.user() + "' has no grant on it: GRANT INSERT ON " + table.quoted() + " TO "
                            + TableId.quote(config.user()) + ")");
                } else {
                    // A Distributed target's shards are read once, for their own check and exactly_once's; a plain
                    // one (known above) reads no cluster.
                    Shards shards = distributed.contains(table) ? readShards(client, table) : Shards.NONE;
                    if (errorIfAny(SinkConfig.CLICKHOUSE_URL, shards.problem)) {
                        continue; // the shards' own problem first: the checks below would meet it again
                    }
                    if (config.exactlyOnce()) {
                        checkExactlyOnce(client, table, shards);
                    }
                }
                checkRowSource(client, table);
            }
        }

        /** A Distributed target as validate() read it: the table, its shards' local tables, their problem. */
        private static final class Shards {
            static final Shards NONE = new Shards(null, null, null);

            final DistributedTable table;
            final Collection<ShardTable> locals;
            final String problem;

            Shards(DistributedTable table, Collection<ShardTable> locals, String problem) {
                this.table = table;
                this.locals = locals;
                this.problem = problem;
            }
        }

        /**
         * Reads the Distributed target's shards and checks them ({@link ClusterReader#shardProblem}); a shard that
         * cannot be read is the problem then.
         */
        private Shards readShards(Client client, TableId table) {
            DistributedTable d = ClusterReader.read(client, table);
            if (d == null) {
                return Shards.NONE;
            }
            try {
                Map<Integer, ShardTable> locals = ClusterReader.shardTables(client, d);
                return new Shards(d, locals.values(), ClusterReader.shardProblem(client, d, locals));
            } catch (RuntimeException e) {
                return new Shards(d, null, unreadableShardsProblem(d, e));
            }
        }

        private String unreadableShardsProblem(DistributedTable d, RuntimeException e) {
            return d.describe() + ": could not read the local table on its shards " + d.shards()
                    + " (a shard down or unreachable from the server of clickhouse.url?): " + rootMessage(e);
        }

        /** delivery.guarantee=exactly_once's requirements on the table (or, Distributed, on its shards' tables). */
        private void checkExactlyOnce(Client client, TableId table, Shards shards) {
            String problem = DedupCheck.problem(client, table, shards.table, shards.locals);
            if (problem == null) {
                // The state table's engine, if it exists already (else the task checks it once created).
                problem = StateEngineCheck.problem(client, table,
                        new TableId(config.database(), config.exactlyOnceStateTable()), null);
            }
            if (problem != null) {
                error(SinkConfig.DELIVERY_GUARANTEE, problem);
            }
        }

        /** cdc.mode's requirements on the table (debezium: a ReplacingMergeTree(version, is_deleted)). */
        private void checkRowSource(Client client, TableId table) {
            String problem = RowSources.tableProblem(config, client, table);
            if (problem != null) {
                error(SinkConfig.CDC_MODE, problem);
            }
        }

        private boolean errorIfAny(String key, String message) {
            if (message != null) {
                error(key, message);
            }
            return message != null;
        }

        private void error(String key, String message) {
            ConfigValue v = values.get(key);
            if (v != null) {
                v.addErrorMessage(message);
            }
        }

        private static <T extends Throwable> T find(Throwable t, Class<T> type) {
            for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
                if (type.isInstance(c)) {
                    return type.cast(c);
                }
            }
            return null;
        }

        private static ServerException findServerException(Throwable t) {
            for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
                if (c instanceof ServerException) {
                    return (ServerException) c;
                }
            }
            return null;
        }

        private static String rootMessage(Throwable t) {
            Throwable c = t;
            while (c.getCause() != null && c.getCause() != c) {
                c = c.getCause();
            }
            return c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage());
        }
    }
}
