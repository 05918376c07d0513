package io.chsink.it.cdc;

import io.chsink.it.stack.PostgresServer;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Debezium source connector configuration the CDC workloads share: connection, topic prefix, tables, snapshot
 * mode, decimals precise, JSON keys and values with schemas, topics created with one replica and
 * {@code partitions} partitions. Each workload adds its own settings to the map.
 */
final class DebeziumSource {
    private DebeziumSource() {
    }

    /** The settings every workload's source has, in this order. */
    static Map<String, String> common(String connectorClass, String host, int port, String user, String password) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", connectorClass);
        c.put("tasks.max", "1");
        c.put("database.hostname", host);
        c.put("database.port", String.valueOf(port));
        c.put("database.user", user);
        c.put("database.password", password);
        return c;
    }

    /** Decimals precise, JSON with schemas, topics with {@code partitions} partitions. */
    static void jsonTopics(Map<String, String> c, int partitions) {
        c.put("decimal.handling.mode", "precise");
        c.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        c.put("key.converter.schemas.enable", "true");
        c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        c.put("value.converter.schemas.enable", "true");
        c.put("topic.creation.default.replication.factor", "1");
        c.put("topic.creation.default.partitions", String.valueOf(partitions));
    }

    /**
     * Debezium's PostgreSQL connector: pgoutput, slot {@code <topicPrefix>_slot} and filtered publication
     * {@code <topicPrefix>_pub}, the given tables ({@code public.<name>,...}) and snapshot mode; without
     * {@link #jsonTopics} yet, so that the caller puts its own settings first.
     */
    static Map<String, String> postgres(PostgresServer pg, String topicPrefix, String tableIncludeList,
            String snapshotMode) {
        Map<String, String> c = common("io.debezium.connector.postgresql.PostgresConnector", pg.host(), pg.port(),
                PostgresServer.USER, "unused-trust-auth");
        c.put("database.dbname", PostgresServer.DATABASE);
        c.put("topic.prefix", topicPrefix);
        c.put("plugin.name", "pgoutput");
        c.put("slot.name", topicPrefix + "_slot");
        c.put("publication.name", topicPrefix + "_pub");
        c.put("publication.autocreate.mode", "filtered");
        c.put("table.include.list", tableIncludeList);
        c.put("snapshot.mode", snapshotMode);
        return c;
    }
}
