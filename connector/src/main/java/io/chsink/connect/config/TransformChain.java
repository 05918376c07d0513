package io.chsink.connect.config;

import java.util.Map;
import java.util.Set;

/**
 * What a connector's {@code transforms} tell before any record is seen: whether the topic a record reaches the sink
 * with can differ from the topic it was read from. Routing ({@code topic.to.table.map}, {@code table.name.format})
 * applies to the topic as the transforms leave it, so a config whose transforms may rename topics cannot have its
 * tables checked by the names in {@code topics}: the check then waits for the first record of each renamed topic.
 */
public final class TransformChain {
    /**
     * Transforms that never change a record's topic: Kafka's own (connect-transforms) but the routers, and Debezium's
     * ExtractNewRecordState. Any other (RegexRouter, TimestampRouter, Debezium's ByLogicalTableRouter, a user's
     * own) may rename topics.
     */
    private static final Set<String> KEEP_TOPIC = Set.of(
            "org.apache.kafka.connect.transforms.Cast",
            "org.apache.kafka.connect.transforms.DropHeaders",
            "org.apache.kafka.connect.transforms.ExtractField",
            "org.apache.kafka.connect.transforms.Filter",
            "org.apache.kafka.connect.transforms.Flatten",
            "org.apache.kafka.connect.transforms.HeaderFrom",
            "org.apache.kafka.connect.transforms.HoistField",
            "org.apache.kafka.connect.transforms.InsertField",
            "org.apache.kafka.connect.transforms.InsertHeader",
            "org.apache.kafka.connect.transforms.MaskField",
            "org.apache.kafka.connect.transforms.ReplaceField",
            "org.apache.kafka.connect.transforms.SetSchemaMetadata",
            "org.apache.kafka.connect.transforms.TimestampConverter",
            "org.apache.kafka.connect.transforms.ValueToKey",
            "io.debezium.transforms.ExtractNewRecordState");

    private static final String FILTER = "org.apache.kafka.connect.transforms.Filter";
    /** Predicates that pick records, not topics: a Filter on them leaves each topic reaching the sink. */
    private static final Set<String> RECORD_PREDICATES = Set.of(
            "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
            "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone");

    private TransformChain() {
    }

    /**
     * Whether the listed topics' tables are known before any record is seen: no transform may rename a topic
     * ({@link #mayRenameTopics}) or drop a whole topic ({@link #mayDropTopics}). Otherwise only the tables that
     * {@code topic.to.table.map} names are checked up front, the others when their first record arrives.
     */
    public static boolean tablesKnownFromTopics(Map<String, String> connectorConfig) {
        return !mayRenameTopics(connectorConfig) && !mayDropTopics(connectorConfig);
    }

    /**
     * Whether a Filter may drop every record of a topic, so that the topic's table is never needed: a Filter without
     * a predicate, or on a predicate other than HasHeaderKey and RecordIsTombstone (TopicNameMatches, a user's own).
     */
    public static boolean mayDropTopics(Map<String, String> connectorConfig) {
        String chain = connectorConfig.get("transforms");
        if (chain == null || chain.isBlank()) {
            return false;
        }
        for (String alias : chain.split(",")) {
            String prefix = "transforms." + alias.trim() + ".";
            String type = connectorConfig.get(prefix + "type");
            if (type == null || !FILTER.equals(type.trim())) {
                continue;
            }
            String predicate = connectorConfig.get(prefix + "predicate");
            String predicateType = predicate == null ? null
                    : connectorConfig.get("predicates." + predicate.trim() + ".type");
            if (predicateType == null || !RECORD_PREDICATES.contains(predicateType.trim())) {
                return true;
            }
        }
        return false;
    }

    /** Whether a transform of the connector config may give records another topic than the one they were read from. */
    public static boolean mayRenameTopics(Map<String, String> connectorConfig) {
        String chain = connectorConfig.get("transforms");
        if (chain == null || chain.isBlank()) {
            return false;
        }
        for (String alias : chain.split(",")) {
            String type = connectorConfig.get("transforms." + alias.trim() + ".type");
            if (type == null) {
                return true; // Connect itself reports it; nothing is known of what it does
            }
            int inner = type.indexOf('$'); // InsertField$Value and the like
            if (!KEEP_TOPIC.contains((inner < 0 ? type : type.substring(0, inner)).trim())) {
                return true;
            }
        }
        return false;
    }
}
