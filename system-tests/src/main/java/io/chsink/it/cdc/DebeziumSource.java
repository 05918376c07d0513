package io.chsink.it.cdc;

import io.chsink.it.kafka.ConnectorConfigs;
import io.chsink.it.stack.MariaDbServer;
import io.chsink.it.stack.PostgresServer;
import java.util.Map;

/**
 * The Debezium source connector configurations the CDC workloads run: the examples users copy,
 * config/debezium-postgres-source.json and config/debezium-mariadb-source.json, as they are, with only what names this
 * stack's server and keeps each test's connector apart overridden: host, port, user, password, database, topic prefix,
 * the captured tables, the slot and publication (PostgreSQL) or the replica's server id and schema history topic
 * (binlog), and the topics' partition count when a workload wants another than the example's.
 */
final class DebeziumSource {
    static final String POSTGRES_EXAMPLE = "debezium-postgres-source.json";
    static final String MARIADB_EXAMPLE = "debezium-mariadb-source.json";
    /**
     * Debezium's MySQL connector, which the tests run against MariaDB in place of the example's MariaDB connector:
     * Debezium's MariaDB connector is not in the build's repository (see CdcMariaDbTest for the MariaDB version it
     * needs). Both take the same binlog keys.
     */
    static final String MYSQL_CONNECTOR = "io.debezium.connector.mysql.MySqlConnector";

    private DebeziumSource() {
    }

    /**
     * Debezium's PostgreSQL connector from the example: this stack's server, topics {@code <topicPrefix>.public.<t>},
     * slot {@code <topicPrefix>_slot}, publication {@code <topicPrefix>_pub}, the given tables
     * ({@code public.<name>,...}).
     */
    static Map<String, String> postgres(PostgresServer pg, String topicPrefix, String tableIncludeList) {
        Map<String, String> c = ConnectorConfigs.load(POSTGRES_EXAMPLE, Map.of());
        c.put("database.hostname", pg.host());
        c.put("database.port", String.valueOf(pg.port()));
        c.put("database.user", PostgresServer.USER);
        c.put("database.password", "unused-trust-auth");
        c.put("database.dbname", PostgresServer.DATABASE);
        c.put("topic.prefix", topicPrefix);
        c.put("table.include.list", tableIncludeList);
        c.put("slot.name", topicPrefix + "_slot");
        c.put("publication.name", topicPrefix + "_pub");
        return c;
    }

    /**
     * Debezium's binlog connector from the MariaDB example, run as Debezium's MySQL connector
     * ({@link #MYSQL_CONNECTOR}): this stack's server and user, replica {@code serverId}, topics
     * {@code <topicPrefix>.<database>.<t>}, the given tables, the schema history in {@code <topicPrefix>.schema-history}.
     */
    static Map<String, String> mariadb(MariaDbServer db, String topicPrefix, String tableIncludeList,
            String bootstrapServers, int serverId) {
        Map<String, String> c = ConnectorConfigs.load(MARIADB_EXAMPLE, Map.of());
        c.put("connector.class", MYSQL_CONNECTOR);
        c.put("database.hostname", db.host());
        c.put("database.port", String.valueOf(db.port()));
        c.put("database.user", MariaDbServer.CDC_USER);
        c.put("database.password", MariaDbServer.CDC_PASSWORD);
        c.put("database.server.id", String.valueOf(serverId));
        c.put("topic.prefix", topicPrefix);
        c.put("database.include.list", MariaDbServer.DATABASE);
        c.put("table.include.list", tableIncludeList);
        c.put("schema.history.internal.kafka.bootstrap.servers", bootstrapServers);
        c.put("schema.history.internal.kafka.topic", topicPrefix + ".schema-history");
        return c;
    }

    /** Topics Connect creates get {@code partitions} partitions (the examples say 3). */
    static Map<String, String> partitions(Map<String, String> c, int partitions) {
        c.put("topic.creation.default.partitions", String.valueOf(partitions));
        return c;
    }
}
